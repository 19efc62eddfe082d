"""The web port without a built client: the API still answers, and / says what to do."""

from __future__ import annotations

import asyncio
import http.client

from belote.api.web import start_web


class NoServicer:
    """The RPCs are not reached here: only the static side is asked."""


def _get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


async def test_an_unbuilt_client_gets_a_page_saying_so(tmp_path):
    web = await start_web("127.0.0.1", 0, NoServicer(), b"k" * 32, static_root=tmp_path / "absent")
    try:
        status, body = await asyncio.to_thread(_get, web.port, "/")
        assert status == 200 and b"The web client was not built" in body and b"make install" in body
        status, _ = await asyncio.to_thread(_get, web.port, "/app.js")
        assert status == 404
    finally:
        await web.stop()
    assert web.task.done()
