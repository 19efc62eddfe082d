"""Fixtures of the web port's tests: a real `belote serve` (tests/api/servers.py's ServerProcess,
whose web port is on), a gRPC stub of it, and Connect clients of its web port."""

from __future__ import annotations

import sys
from pathlib import Path

import grpc
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT / "tests" / "api"))  # ServerProcess and the players, as the API tests


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    from servers import ServerProcess

    # Behind a proxy on loopback: a browser context that sends its own X-Forwarded-For is a
    # caller of its own (two players of one quick-play table must be two callers).
    proc = ServerProcess(tmp_path_factory.mktemp("web-server"),
                         extra_args=("--web-origins", "https://game.example, http://localhost:5173",
                                     "--trusted-proxies", "127.0.0.1/32"))
    proc.start()
    yield proc
    proc.kill()


@pytest.fixture
async def stub(server):
    from belote.v1 import table_service_pb2_grpc

    async with grpc.aio.insecure_channel(server.address) as channel:
        yield table_service_pb2_grpc.TableServiceStub(channel)


@pytest.fixture
def web(server):
    from web_helpers import ConnectClient

    return ConnectClient(server.web_url)


# One module's: Playwright's sync API runs an event loop of its own while it is open, which the
# asyncio tests of the other modules must not find running.
@pytest.fixture(scope="module")
def browser():
    from browser import CHROMIUM_ARGS, executable, require_browser

    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    """A phone-sized page of a fresh browser context (its own localStorage)."""
    from browser import PHONE

    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, f"the page threw: {errors}"
