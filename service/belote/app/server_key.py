"""The server's key, from outside the store: tokens, log hashes and export signatures derive
from it, so a copy of the database alone derives none of them.

Where it comes from, first found: the file named by ``--key-file`` / ``BELOTE_KEY_FILE`` (32 or
more bytes, or their hex); else, for a SQLite store only, a key file of this user's own,
``$XDG_STATE_HOME/belote/server.key`` (``~/.local/state/belote/``), made on first use with mode
0600. A PostgreSQL store needs the file: its replicas must all hold the same key.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

KEY_BYTES = 32


class KeyError_(Exception):
    """The key cannot be had: the message says which file and why."""


def state_dir() -> Path:
    """This user's state directory for belote (XDG base directory spec)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(base) / "belote"


def read_key_file(path: str | os.PathLike) -> bytes:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise KeyError_(f"cannot read the key file {path}: {exc.strerror}") from None
    text = raw.strip()
    try:
        key = bytes.fromhex(text.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        key = raw
    if len(key) < KEY_BYTES:
        raise KeyError_(f"the key file {path} holds {len(key)} bytes; it needs {KEY_BYTES} or "
                        f"more (e.g. `openssl rand -hex 32 > {path}`)")
    return key


def _own_key_file() -> Path:
    path = state_dir() / "server.key"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first: use theirs
            return path
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(KEY_BYTES) + "\n")
    return path


def load_server_key(key_file: str | None, store_url: str) -> bytes:
    """The key for a server on `store_url`: see the module's docstring."""
    if key_file:
        return read_key_file(key_file)
    if store_url.startswith(("postgres://", "postgresql://")):
        raise KeyError_("a PostgreSQL store needs --key-file (env BELOTE_KEY_FILE), the same "
                        "file on every replica (e.g. `openssl rand -hex 32 > server.key`)")
    return read_key_file(_own_key_file())


def derive(key: bytes, purpose: str) -> bytes:
    """A key of its own for one purpose ("tokens", "log-hash", "export-signing"...), so that
    no two uses ever share bytes."""
    return hmac.new(key, f"belote/{purpose}".encode(), hashlib.sha256).digest()
