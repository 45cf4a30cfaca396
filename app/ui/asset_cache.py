"""Let the browser keep custom components' content-hashed scripts, instead of fetching them on
every navigation.

Streamlit (1.67) serves a v1 component's files with `Cache-Control: public` and no max-age, ETag
or Last-Modified: the browser may store them but must fetch them again each time. The graph's
component (streamlit-agraph) is an iframe made anew on every navigation to a graph page, and
its 1.26 MB script was downloaded, parsed and compiled again each time before the canvas drew.

Its build names each script after its content (`static/js/2.2b44160c.chunk.js`): a new version
is a new name, so a file of that name never changes and may be kept for a year. Only such files
(under `/component/`, a hash of 8+ hex digits before `.js` / `.css`) are marked immutable; the
component's index.html, which names them, stays `no-cache`, as do all other responses.
"""
from __future__ import annotations

import re
from typing import Any, Awaitable, Callable

IMMUTABLE = b"public, max-age=31536000, immutable"
# a component's file whose name carries its content hash, below any base URL path
HASHED_COMPONENT_FILE = re.compile(r"/component/[^/]+/(?:.+/)?[^/]+\.[0-9a-f]{8,}(?:\.chunk)?\.(?:js|css)$")

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def is_hashed_component_file(path: str) -> bool:
    return HASHED_COMPONENT_FILE.search(path) is not None


def cached_headers(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The response headers with Cache-Control replaced by IMMUTABLE."""
    return [(k, v) for k, v in headers if k.lower() != b"cache-control"] + [(b"cache-control", IMMUTABLE)]


class HashedComponentFiles:
    """ASGI middleware: a successful response for a content-hashed component file is marked
    immutable; every other request passes through untouched."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or not is_hashed_component_file(scope.get("path", "")):
            await self.app(scope, receive, send)
            return

        async def send_cached(message: Message) -> None:
            if message.get("type") == "http.response.start" and message.get("status") == 200:
                message = {**message, "headers": cached_headers(list(message.get("headers") or []))}
            await send(message)

        await self.app(scope, receive, send_cached)


def install() -> bool:
    """Add the middleware to the Streamlit server about to start; False (nothing changed) when
    this Streamlit builds its server otherwise (the files are then fetched as before)."""
    try:
        from starlette.middleware import Middleware
        from streamlit.web.server.starlette import starlette_app
    except ImportError:
        return False
    original = getattr(starlette_app, "create_streamlit_middleware", None)
    if original is None or getattr(original, "baton_hashed_files", False):
        return original is not None

    def create_streamlit_middleware() -> list:
        return [Middleware(HashedComponentFiles)] + list(original())

    create_streamlit_middleware.baton_hashed_files = True  # type: ignore[attr-defined]
    starlette_app.create_streamlit_middleware = create_streamlit_middleware
    return True
