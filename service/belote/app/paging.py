"""Page tokens for the list RPCs (AIP-158): ListTables and GetLeaderboard.

A token is opaque to clients: base64url of a small cursor (where the next page starts, and the
last item the previous page showed) with a MAC keyed by the server's key and bound to the query
it pages (``query``: the RPC and its filters). A client cannot build one, edit one, or carry one
over to another query: any of those is INVALID_ARGUMENT, reason INVALID_PAGE_TOKEN. Every
replica of a deployment shares the server's key, so a token works on any of them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Callable, Sequence
from typing import TypeVar

from . import errors as err

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
# The most items a token may skip: far past any lobby or month's leaderboard, and a bound on
# what a page costs to find.
MAX_OFFSET = 100_000
_MAC_BYTES = 16

Item = TypeVar("Item")


def page_size(requested: int) -> int:
    """The page size to serve: the default for 0, capped at the maximum; negative refused."""
    if requested < 0:
        raise err.invalid("page_size", "page_size: must be 0 or more")
    return min(requested or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)


def _bad(message: str) -> err.AppError:
    return err.invalid("page_token", f"page_token: {message}; send the next_page_token of the "
                       "previous page as it came, or none for the first page", "INVALID_PAGE_TOKEN")


class PageTokens:
    """Issues and reads the page tokens of one server key."""

    def __init__(self, key: bytes):
        self._key = key

    def _mac(self, query: str, body: bytes) -> bytes:
        return hmac.new(self._key, query.encode() + b"\x00" + body, hashlib.sha256).digest()[:_MAC_BYTES]

    def issue(self, query: str, offset: int, last: str) -> str:
        body = json.dumps([offset, last], separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(self._mac(query, body) + body).decode().rstrip("=")

    def read(self, query: str, token: str) -> tuple[int, str]:
        """(offset, last item's key) of a token issued for ``query``; INVALID_PAGE_TOKEN else."""
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (binascii.Error, ValueError):
            raise _bad("not a page token") from None
        mac, body = raw[:_MAC_BYTES], raw[_MAC_BYTES:]
        if len(mac) < _MAC_BYTES or not hmac.compare_digest(mac, self._mac(query, body)):
            raise _bad("not a token this server gave for this request")
        offset, last = json.loads(body)
        return offset, last

    def cursor(self, query: str, token: str, size: int) -> tuple[int, str, int]:
        """(offset, last item's key, how many items to list) for the page of ``token`` ('' for
        the first page): the items listed reach past the page, so that the previous page's last
        item is found again when newer ones came before it, and a next page is known."""
        offset, last = self.read(query, token) if token else (0, "")
        if not isinstance(offset, int) or not isinstance(last, str) or not 0 <= offset <= MAX_OFFSET:
            raise _bad("not a page token")
        return offset, last, offset + 2 * size + 1

    def cut(self, query: str, items: Sequence[Item], offset: int, last: str, size: int,
            key: Callable[[Item], str]) -> tuple[list[Item], str]:
        """The page of ``items`` (the list in its stable order, as ``cursor`` asked for) and the
        next page's token ('' after the last page). The page starts after the previous page's
        last item where it still is, else at the previous page's offset."""
        if last:
            offset = next((i + 1 for i, item in enumerate(items) if key(item) == last), offset)
        page = list(items[offset:offset + size])
        more = page and len(items) > offset + size and offset + size <= MAX_OFFSET
        return page, self.issue(query, offset + size, key(page[-1])) if more else ""
