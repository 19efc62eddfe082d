"""The signed end of an export: after the events, ExportLog (and `belote export`) gives the log's
head (table id, last sequence, last hash, when it was read) signed with the server's Ed25519 key.

The hash chain alone is unkeyed: whoever edits a log can recompute it, and a log cut after any
event still chains. The head's signature can only be made with the server's key, which derives
from the server key (``derive(key, "export-signing")``, app/server_key.py), from outside the
store; its public half is served by GetExportKey and printed by ``belote serve``. The signed
bytes are in events.proto (ExportHead); ``HEAD_VERSION`` names their layout, so a later layout
gets a new version and the reviewers of today's exports keep checking version 1.
"""

from __future__ import annotations

import functools
import os
import struct

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from belote.store.chain import GENESIS_HASH
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as tpb

from .server_key import derive

HEAD_VERSION = 1
ALGORITHM = "ed25519"
_DOMAIN = b"belote/export-head/v1\x00"


def head_bytes(head: epb.ExportHead) -> bytes:
    """The bytes a version-1 head's signature is over (see ExportHead in events.proto)."""
    table_id = head.table_id.encode()
    return b"".join((_DOMAIN, struct.pack(">I", len(table_id)), table_id,
                     struct.pack(">QI", head.last_sequence, len(head.last_hash)), head.last_hash,
                     struct.pack(">q", head.export_time.seconds * 1_000_000
                                 + head.export_time.nanos // 1000)))


@functools.lru_cache(maxsize=8)
def _signing_key(server_key: bytes) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(derive(server_key, "export-signing"))


def public_key(server_key: bytes) -> bytes:
    """The raw 32-byte public key of the exports signed under ``server_key``."""
    return _signing_key(server_key).public_key().public_bytes(serialization.Encoding.Raw,
                                                               serialization.PublicFormat.Raw)


def key_text(public: bytes) -> str:
    """A public key as `belote replay --key` takes it (and `belote serve` prints it)."""
    return f"{ALGORITHM}:{public.hex()}"


def key_response(server_key: bytes) -> tpb.GetExportKeyResponse:
    public = public_key(server_key)
    return tpb.GetExportKeyResponse(algorithm=ALGORITHM, public_key=public, key_text=key_text(public))


def signed_head(server_key: bytes, table_id: str, last: epb.LoggedEvent | None,
                now_us: int) -> epb.LoggedEvent:
    """The export's last line: the head after ``last`` (the last event exported; None: none)."""
    head = epb.ExportHead(version=HEAD_VERSION, table_id=last.table_id if last else table_id,
                          last_sequence=last.sequence if last else 0,
                          last_hash=last.hash if last else GENESIS_HASH,
                          public_key=public_key(server_key))
    head.export_time.FromMicroseconds(now_us)
    head.signature = _signing_key(server_key).sign(head_bytes(head))
    return epb.LoggedEvent(head=head)


def signed_export(export_log):
    """Decorates ``TableApp.export_log``: after the events it yields, the signed head of the last
    one, so the head is always that of the very events the caller got."""
    @functools.wraps(export_log)
    async def with_head(app, table_id, token):
        last = None
        async for message in export_log(app, table_id, token):
            last = message
            yield message
        yield signed_head(app.server_key, table_id, last, app.clock())
    return with_head


def signature_ok(head: epb.ExportHead, public: bytes) -> bool:
    """Whether ``head`` is signed by the private key of ``public`` (raw 32 bytes)."""
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(head.signature, head_bytes(head))
    except (InvalidSignature, ValueError):
        return False
    return True


def parse_public_key(text: str) -> bytes:
    """A public key given to `belote replay --key`: "ed25519:<64 hex digits>" (GetExportKey's
    key_text, or as `belote serve` prints it), the 64 hex digits alone, the 32 bytes in base64
    (GetExportKey's public_key as grpcurl shows it), a PEM public key, or a file holding one of
    these. ValueError says what is wrong."""
    given = text.strip()
    if os.path.isfile(given):
        with open(given, "rb") as f:
            data = f.read(16_384)
        if b"-----BEGIN" in data:
            try:
                key = serialization.load_pem_public_key(data)
            except ValueError as exc:
                raise ValueError(f"{given}: not a PEM public key ({exc})") from None
            if not isinstance(key, Ed25519PublicKey):
                raise ValueError(f"{given}: not an Ed25519 public key")
            return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        try:
            return _key_of_text(data.decode("ascii").strip())
        except (UnicodeDecodeError, ValueError):
            raise ValueError(f"{given}: holds no public key (ed25519:<64 hex digits>)") from None
    return _key_of_text(given)


def _key_of_text(text: str) -> bytes:
    import base64
    import binascii

    body = text.removeprefix(f"{ALGORITHM}:")
    try:
        key = bytes.fromhex(body) if len(body) == 64 else base64.b64decode(body, validate=True)
    except (ValueError, binascii.Error):
        key = b""
    if len(key) != 32:
        raise ValueError(f"not a public key, nor a file: {text[:80]!r} (want ed25519:<64 hex "
                         "digits>, as GetExportKey and `belote serve` give it)")
    return key
