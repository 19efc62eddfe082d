"""The web port's static side: the page's assets under content-hashed names, cached for a year,
gzipped once when the browser accepts it; the page itself revalidated by its ETag (304); and,
without a built client, a page saying what to do."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import http.client
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from belote.api.web import start_web

DIST = Path(__file__).resolve().parents[2] / "clients" / "web" / "dist"
CSP = ("content-security-policy",
       "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'")
PAGE = [CSP, ("x-content-type-options", "nosniff"), ("referrer-policy", "no-referrer")]
IMMUTABLE = ("cache-control", "public, max-age=31536000, immutable")
NO_CACHE = ("cache-control", "no-cache")
JS = ("content-type", "text/javascript; charset=utf-8")
# A bundle of our own: a page under 1 KB, a script and a style sheet above it (under hashed
# names, as clients/web/build.mjs writes them), and an unhashed file above it.
INDEX = (b'<!doctype html><link rel="stylesheet" href="style.ABCD2345.css">'
         b'<script type="module" src="app.WXYZ4567.js"></script>')
SCRIPT = b"export const cards = [" + b", ".join(b'"card %d"' % n for n in range(400)) + b"];\n"
STYLE = b"".join(b".seat-%d { margin: %dpx; }\n" % (n, n) for n in range(100))
NOTES = b"notes of the page\n" * 100


class NoServicer:
    """The RPCs are not reached here: only the static side is asked."""


def _etag(body: bytes) -> str:
    """The strong ETag the server gives the bytes it serves (api/web.py)."""
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _gzip(body: bytes) -> bytes:
    """The server's gzip of a file: once, at the best level, no timestamp (the same bytes, so the
    same ETag, on every replica)."""
    return gzip.compress(body, compresslevel=9, mtime=0)


def _request(port: int, path: str, method: str = "GET", headers: dict[str, str] | None = None
             ) -> tuple[int, list[tuple[str, str]], bytes]:
    """(status, headers but date, body) of one request."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, headers=headers or {})
        answer = conn.getresponse()
        body = answer.read()
        return (answer.status, [(k.lower(), v) for k, v in answer.getheaders() if k.lower() != "date"],
                body)
    finally:
        conn.close()


@pytest.fixture
async def bundle(tmp_path):
    """The port of a web server serving the bundle above."""
    for name, body in (("index.html", INDEX), ("app.WXYZ4567.js", SCRIPT),
                       ("style.ABCD2345.css", STYLE), ("notes.txt", NOTES)):
        (tmp_path / name).write_bytes(body)
    web = await start_web("127.0.0.1", 0, NoServicer(), b"k" * 32, static_root=tmp_path)
    yield web.port
    await web.stop()


async def _ask(port: int, path: str, method: str = "GET", **headers: str):
    return await asyncio.to_thread(_request, port, path, method,
                                   {k.replace("_", "-"): v for k, v in headers.items()})


async def test_the_page_is_revalidated_by_its_etag_and_small_enough_to_go_as_it_is(bundle):
    # Under 1 KB: never gzipped, so the answer does not vary with Accept-Encoding.
    expected = [("content-length", str(len(INDEX))), ("content-type", "text/html; charset=utf-8"),
                NO_CACHE, ("etag", _etag(INDEX)), *PAGE]
    assert await _ask(bundle, "/", accept_encoding="gzip") == (200, expected, INDEX)
    assert await _ask(bundle, "/index.html") == (200, expected, INDEX)
    assert await _ask(bundle, "/", "HEAD") == (200, expected, b"")


async def test_hashed_assets_are_immutable_and_gzipped_when_accepted(bundle):
    for path, body, kind in (("/app.WXYZ4567.js", SCRIPT, JS),
                             ("/style.ABCD2345.css", STYLE, ("content-type", "text/css; charset=utf-8"))):
        packed = _gzip(body)
        assert len(packed) < len(body) and len(body) > 1024
        gzipped = [("content-length", str(len(packed))), kind, IMMUTABLE, ("etag", _etag(packed)),
                   ("content-encoding", "gzip"), ("vary", "accept-encoding"), *PAGE]
        status, headers, answer = await _ask(bundle, path, accept_encoding="gzip, deflate, br")
        assert (status, headers) == (200, gzipped)
        assert gzip.decompress(answer) == body
        assert await _ask(bundle, path, "HEAD", accept_encoding="gzip") == (200, gzipped, b"")
        # Identity when gzip is not accepted: no header, refused with q=0, or not named.
        plain = [("content-length", str(len(body))), kind, IMMUTABLE, ("etag", _etag(body)),
                 ("vary", "accept-encoding"), *PAGE]
        for accepted in (None, "gzip;q=0", "identity", "br", "*;q=0.5, gzip;q=0", ""):
            asked = {} if accepted is None else {"accept_encoding": accepted}
            assert await _ask(bundle, path, **asked) == (200, plain, body), accepted
        for accepted in ("*", "GZIP;q=0.5", "br;q=1.0, gzip;q=0.1", "x-gzip"):
            assert (await _ask(bundle, path, accept_encoding=accepted))[:2] == (200, gzipped), accepted


async def test_an_unhashed_file_is_revalidated_and_gzipped(bundle):
    packed = _gzip(NOTES)
    status, headers, body = await _ask(bundle, "/notes.txt", accept_encoding="gzip")
    assert (status, headers) == (200, [
        ("content-length", str(len(packed))), ("content-type", "text/plain; charset=utf-8"),
        NO_CACHE, ("etag", _etag(packed)), ("content-encoding", "gzip"),
        ("vary", "accept-encoding"), *PAGE])
    assert gzip.decompress(body) == NOTES


async def test_a_matching_if_none_match_is_not_modified(bundle):
    not_modified = (304, [NO_CACHE, ("etag", _etag(INDEX)), *PAGE], b"")
    for method in ("GET", "HEAD"):
        for tags in (_etag(INDEX), f'"other", {_etag(INDEX)}', f"W/{_etag(INDEX)}", "*"):
            assert await _ask(bundle, "/", method, if_none_match=tags) == not_modified, (method, tags)
        status, _, body = await _ask(bundle, "/", method, if_none_match='"other"')
        assert (status, body) == (200, INDEX if method == "GET" else b"")
    # The ETag is the served bytes': the gzipped one matches a gzipped answer, not a plain one.
    packed = _etag(_gzip(SCRIPT))
    assert await _ask(bundle, "/app.WXYZ4567.js", if_none_match=packed, accept_encoding="gzip") == (
        304, [IMMUTABLE, ("etag", packed), ("vary", "accept-encoding"), *PAGE], b"")
    status, _, body = await _ask(bundle, "/app.WXYZ4567.js", if_none_match=packed)
    assert (status, body) == (200, SCRIPT)


async def test_a_rebuilt_page_is_served_anew(bundle, tmp_path):
    assert (await _ask(bundle, "/"))[2] == INDEX
    rebuilt = INDEX.replace(b"WXYZ4567", b"QRST2345") + b"\n"
    (tmp_path / "index.html").write_bytes(rebuilt)
    status, headers, body = await _ask(bundle, "/", if_none_match=_etag(INDEX))
    assert (status, body, ("etag", _etag(rebuilt)) in headers) == (200, rebuilt, True)


async def test_bad_paths_keep_their_4xx(bundle):
    for path, status in (("/absent.js", 404), ("/../index.html", 404), ("/.hidden", 404),
                         ("/app.WXYZ4567.js%00", 400), ("/" + "a" * 2000, 414)):
        assert (await _ask(bundle, path, accept_encoding="gzip"))[0] == status, path
    assert (await _ask(bundle, "/", "POST"))[0] == 405


async def test_an_unbuilt_client_gets_a_page_saying_so(tmp_path):
    web = await start_web("127.0.0.1", 0, NoServicer(), b"k" * 32, static_root=tmp_path / "absent")
    try:
        status, _, body = await asyncio.to_thread(_request, web.port, "/")
        assert status == 200 and b"The web client was not built" in body and b"make install" in body
        status, _, _ = await asyncio.to_thread(_request, web.port, "/app.js")
        assert status == 404
    finally:
        await web.stop()
    assert web.task.done()


# The build (`make install`: clients/web/build.mjs), served by a real `belote serve`.

def _page_assets() -> list[str]:
    """The names of the script and the style sheet the built page loads."""
    page = (DIST / "index.html").read_text()
    return re.findall(r'<script type="module" src="([^"]+)"></script>', page) + re.findall(
        r'<link rel="stylesheet" href="([^"]+)">', page)


def test_the_build_names_its_assets_by_their_content():
    script, style = _page_assets()
    assert re.fullmatch(r"app\.[A-Z2-7]{8}\.js", script) and re.fullmatch(r"style\.[A-Z2-7]{8}\.css", style)
    assert sorted(p.name for p in DIST.iterdir()) == sorted(["index.html", script, style])
    source = (DIST.parent / "static" / "style.css").read_bytes()
    assert (DIST / style).read_bytes() == source
    # No inline script: the page's CSP allows none.
    assert "<script>" not in (DIST / "index.html").read_text()


def test_the_built_page_is_served_gzipped_and_its_script_is_under_budget(server):
    port = urlsplit(server.web_url).port
    for name in _page_assets():
        status, headers, body = _request(port, "/" + name, headers={"accept-encoding": "gzip"})
        assert status == 200 and IMMUTABLE in headers and ("content-encoding", "gzip") in headers
        assert gzip.decompress(body) == (DIST / name).read_bytes()
        if name.endswith(".js"):
            assert len(body) < 80 * 1024, len(body)
    status, headers, body = _request(port, "/", headers={"accept-encoding": "gzip"})
    assert (status, body) == (200, (DIST / "index.html").read_bytes()) and NO_CACHE in headers
