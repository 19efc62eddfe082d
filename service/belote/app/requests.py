"""Request ids: one caller's key for one operation (AIP-155).

A request id is a UUID the client draws per request that changes a table (the canonical
8-4-4-4-12 form or its 32 hex digits: both name the same id). What the store records is not
the id but a keyed hash of the caller and the id, so two callers' ids never meet and the log
does not show them; beside it the RPC and a keyed fingerprint of the request's fields, so the
same id sent for another request is refused (REQUEST_ID_REUSED) instead of answered with the
first one's events. Both keys derive from the server's key (app/server_key.py): the store
alone links no id, fingerprint or password guess to anything.

The caller is its bearer token when it sends one, else its registered player (the verified
``sub`` of its x-player-token), else its peer host.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from google.protobuf.message import Message

from . import errors as err
from .server_key import derive

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
                   r"|[0-9a-fA-F]{32}")
# 32 random hex digits show fewer than 6 distinct ones once in ~10^12 ids; a made-up id
# ("00000000-0000-0000-0000-000000000001", "1234...") nearly always does.
MIN_DISTINCT_DIGITS = 6
EXPECTED = ("a fresh random UUID per request, e.g. 3f2b8c1e-9d4a-4e7b-a1c5-0b6d2e8f9a73 "
            "(or its 32 hex digits); resend the same one only to retry the same request")
REUSED = "REQUEST_ID_REUSED"


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sends a request: its bearer token, its x-player-token and its peer host."""

    token: str | None = None
    player_token: str | None = None
    peer: str = ""


@dataclass(frozen=True, slots=True)
class RequestKey:
    """A request as the store records it: ``key`` (caller and id, hashed), ``rpc``, and the
    ``fingerprint`` of its fields (all but the request id)."""

    key: str
    rpc: str
    fingerprint: bytes

    def __str__(self) -> str:
        return self.key


def request_uuid(request_id: str) -> str:
    """The id's 32 hex digits (lower case); INVALID_ARGUMENT for anything but a random UUID."""
    if not request_id:
        raise err.invalid("request_id", f"request_id: required ({EXPECTED})")
    if not _UUID.fullmatch(request_id):
        raise err.invalid("request_id", f"request_id: not a UUID ({EXPECTED})")
    digits = request_id.replace("-", "").lower()
    if len(set(digits)) < MIN_DISTINCT_DIGITS:
        raise err.invalid("request_id", f"request_id: a guessable UUID ({EXPECTED})")
    return digits


class RequestKeys:
    """Keys and fingerprints of requests, under the server's key."""

    def __init__(self, server_key: bytes, identity) -> None:
        self._ids = derive(server_key, "request-keys")
        self._fingerprints = derive(server_key, "request-fingerprints")
        self._identity = identity

    def scope(self, token: str | None, caller: Caller | None) -> str:
        """Who the caller is, for its request ids: its bearer token, else its registered
        player, else its peer host. A bad x-player-token counts as none (the RPCs that need
        it refuse it themselves)."""
        caller = caller or Caller()
        token = token or caller.token
        if token:
            return "token|" + token
        if caller.player_token:
            try:
                return "player|" + self._identity.player_id(caller.player_token)
            except err.AppError:
                pass
        return "peer|" + caller.peer

    def key(self, rpc: str, request: Message, token: str | None,
            caller: Caller | None) -> RequestKey:
        digits = request_uuid(request.request_id)
        scope = self.scope(token, caller)
        # Keyed BLAKE2b: a MAC, and a few times cheaper than HMAC-SHA256 (two per command).
        key = hashlib.blake2b(f"{scope}|{digits}".encode(), key=self._ids, digest_size=16).hexdigest()
        fields = type(request)()
        fields.CopyFrom(request)
        fields.ClearField("request_id")
        body = rpc.encode() + b"\x00" + fields.SerializeToString(deterministic=True)
        return RequestKey("r:" + key, rpc,
                          hashlib.blake2b(body, key=self._fingerprints, digest_size=16).digest())


def reused(rpc: str) -> err.AppError:
    first = f" (a {rpc})" if rpc else ""
    return err.AppError(REUSED,
                        f"this request_id was already used for another request{first}: a new "
                        f"request needs a fresh request_id; a retry must resend the same request")
