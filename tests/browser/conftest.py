"""A real Baton server and Debian's headless Chromium driven by Playwright.

Never a browser that Playwright downloads: without /usr/bin/chromium these tests are
skipped with a message saying so.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT, write_project

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, config: Path):
        self.config = config
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = None

    def start(self):
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "app", "serve", str(self.config), "--port", str(self.port),
             "--address", "127.0.0.1"], cwd=ROOT, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(self.proc.stdout.read().decode(errors="replace"))
            try:
                with urllib.request.urlopen(self.url + "/_stcore/health", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("server did not start in 60 s")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"browser tests skipped: Debian's Chromium not found at {CHROMIUM} "
                    "(apt-get install chromium; .ci/run does this)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def server(tmp_path):
    """A Baton server on a fresh copy of the demo project (annotations in tmp_path)."""
    srv = Server(write_project(tmp_path)).start()
    yield srv
    srv.stop()


@pytest.fixture
def wide(browser):
    """A page at 1440x900, the size issue 27's pages were seen at."""
    ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    yield ctx.new_page()
    ctx.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    yield pg
    ctx.close()


def wait_app(pg, timeout=60000):
    """Wait until Streamlit finished running the script (generous: CI machines may be busy)."""
    pg.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    # (the running indicator shows only some time after a run starts, and the summary's bar says
    # it is still computing: idle means neither, twice in a row, 300 ms apart)
    idle = ("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
            " && !document.body.innerText.includes('Computing the summary')")
    for _ in range(2):
        pg.wait_for_function(idle, timeout=timeout)
        pg.wait_for_timeout(300)
