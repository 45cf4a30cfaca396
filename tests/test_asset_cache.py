"""app/ui/asset_cache.py: a component's content-hashed files are marked immutable, nothing else."""
import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.ui.asset_cache import IMMUTABLE, HashedComponentFiles, install, is_hashed_component_file

AGRAPH = "/component/streamlit_agraph.agraph/static/js/2.2b44160c.chunk.js"


@pytest.mark.parametrize("path, hashed", [
    (AGRAPH, True),
    ("/component/streamlit_agraph.agraph/static/js/main.df689717.chunk.js", True),
    ("/component/streamlit_agraph.agraph/static/js/runtime-main.0f76dc34.js", True),
    ("/base/component/x.y/static/css/main.0123abcd.css", True),  # under a base URL path
    ("/component/streamlit_agraph.agraph/index.html", False),  # names the scripts: always asked again
    ("/component/streamlit_agraph.agraph/static/js/bundle.js", False),  # no hash: may change
    ("/component/x.y/static/js/2.2b44160c.chunk.js.map", False),
    ("/static/js/2.2b44160c.chunk.js", False),  # not a component's
    ("/component/x.y/evil.2b44160c.html", False),
])
def test_which_files_are_kept(path, hashed):
    assert is_hashed_component_file(path) is hashed


def _serve(path: str, status: int = 200, method_type: str = "http") -> list[dict]:
    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"text/javascript"), (b"cache-control", b"public")]})
        await send({"type": "http.response.body", "body": b"x"})

    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request"}

    # (in a thread of its own: a browser test earlier in the run may leave an event loop
    # running in this one, and asyncio.run refuses to start inside it)
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, HashedComponentFiles(app)({"type": method_type, "path": path}, receive, send)).result()
    return sent


def test_a_hashed_file_is_immutable_and_its_other_headers_kept():
    start, body = _serve(AGRAPH)
    assert start["headers"] == [(b"content-type", b"text/javascript"), (b"cache-control", IMMUTABLE)]
    assert body == {"type": "http.response.body", "body": b"x"}


@pytest.mark.parametrize("path, status", [("/component/streamlit_agraph.agraph/index.html", 200), (AGRAPH, 404)])
def test_everything_else_passes_untouched(path, status):
    start, _ = _serve(path, status)
    assert (b"cache-control", b"public") in start["headers"] and (b"cache-control", IMMUTABLE) not in start["headers"]


def test_installed_once_into_the_server_streamlit_builds():
    from streamlit.web.server.starlette import starlette_app
    original = starlette_app.create_streamlit_middleware
    try:
        assert install() and install()  # a second call adds nothing
        stack = starlette_app.create_streamlit_middleware()
        assert [m.cls for m in stack].count(HashedComponentFiles) == 1 and stack[0].cls is HashedComponentFiles
    finally:
        starlette_app.create_streamlit_middleware = original
