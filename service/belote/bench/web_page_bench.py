"""What a browser downloads on its first visit to the web page, as a real ``belote serve`` sends
it to a request with ``Accept-Encoding: gzip`` (about 2 s):

- ``web_page_gzip_kb``: the bodies of ``/`` and of every script and style sheet it names, as
  they come over the wire (gzipped where the server gzips them);
- ``web_page_js_gzip_kb``: the script's share of it (the page's budget: under 80 KB).

Needs the built web client (``make install``: clients/web/dist/).
"""

from __future__ import annotations

import http.client
import tempfile
from html.parser import HTMLParser
from urllib.parse import urlsplit

from belote.bench.web_bench import start_server


class PageAssets(HTMLParser):
    """The scripts and style sheets a page loads, as its tags name them."""

    def __init__(self) -> None:
        super().__init__()
        self.paths: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "script" and named.get("src"):
            self.paths.append(named["src"] or "")
        elif tag == "link" and named.get("rel") == "stylesheet" and named.get("href"):
            self.paths.append(named["href"] or "")


def fetch(conn: http.client.HTTPConnection, path: str) -> tuple[bytes, str]:
    """(body as sent, its content-encoding) of one GET a browser would make."""
    conn.request("GET", path, headers={"accept-encoding": "gzip, deflate, br"})
    answer = conn.getresponse()
    body = answer.read()
    if answer.status != 200:
        raise RuntimeError(f"GET {path}: {answer.status}")
    return body, answer.getheader("content-encoding") or "identity"


def run() -> list[tuple[str, float, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        proc, _target, web = start_server(f"sqlite:///{tmp}/page.db")
        try:
            address = urlsplit(web)
            conn = http.client.HTTPConnection(address.hostname or "", address.port, timeout=10)
            page, encoding = fetch(conn, "/")
            if b"The web client was not built" in page:
                raise RuntimeError("clients/web/dist/ is not built: run make install")
            sizes = {"/": (len(page), encoding)}
            assets = PageAssets()
            assets.feed(page.decode())
            for path in assets.paths:
                body, encoding = fetch(conn, "/" + path.lstrip("/"))
                sizes[path] = (len(body), encoding)
            conn.close()
        finally:
            proc.terminate()
            proc.wait(10)
    for path, (size, encoding) in sizes.items():
        print(f"# {path}: {size} bytes ({encoding})")
    total = sum(size for size, _ in sizes.values())
    script = sum(size for path, (size, _) in sizes.items() if path.endswith(".js"))
    return [("web_page_gzip_kb", total / 1024, "KB"), ("web_page_js_gzip_kb", script / 1024, "KB")]


if __name__ == "__main__":
    for name, value, unit in run():
        print(f"bench: {name} {value:.1f} {unit}")
