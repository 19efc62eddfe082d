"""The export keys a reviewer trusts, pinned in a file of their own, like ssh's known_hosts.

An export's head names the key that signed it, so a head alone proves nothing: whoever cut or
edited a log can sign it again with a key of their own. `belote replay` trusts a head only when
its key is the one given with ``--key`` or one pinned here, and a key gets here only by the
reviewer's own ``belote trust-key KEY``, KEY taken from the server (never from the export under
review: no trust on first use).

The file (``--known-keys``, env ``BELOTE_KNOWN_KEYS``, default
``$XDG_CONFIG_HOME/belote/known_keys``, i.e. ``~/.config/belote/known_keys``) holds one key a
line, ``ed25519:<64 hex digits>``, then optionally spaces and a comment to the end of the line;
blank lines and lines starting with ``#`` are skipped. A missing file pins nothing.

A key is shown to people by its fingerprint, in ssh's form: ``SHA256:`` then the base64 (no
padding) of the SHA-256 of the 32 raw key bytes.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
from pathlib import Path

from belote.app.export_signing import ALGORITHM, key_text

ENV = "BELOTE_KNOWN_KEYS"
_LINE = re.compile(rf"{ALGORITHM}:([0-9a-fA-F]{{64}})(?:\s+(.*))?")
_MAX_BYTES = 1 << 20        # far more than any reviewer pins; a bound on what a mistake reads


class KnownKeysError(Exception):
    """The file cannot be read or written, or a line is no key: the message says where."""


def default_path() -> Path:
    """This user's known-keys file (XDG base directory spec: a relative XDG_CONFIG_HOME is
    ignored, as the spec says)."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(Path.home(), ".config")
    return Path(base) / "belote" / "known_keys"


def path_of(given: str | None) -> Path:
    """The file to use: ``--known-keys`` (its default the env's), else the user's default."""
    return Path(given) if given else default_path()


def fingerprint(public: bytes) -> str:
    """A key in a short form to compare by eye, as ssh prints host keys."""
    return "SHA256:" + base64.b64encode(hashlib.sha256(public).digest()).decode("ascii").rstrip("=")


def read(path: Path) -> dict[bytes, str]:
    """The pinned keys (raw 32 bytes) with their comments; none when the file does not exist."""
    try:
        with open(path, "rb") as f:
            data = f.read(_MAX_BYTES + 1)
    except FileNotFoundError:
        return {}
    except OSError as err:
        raise KnownKeysError(f"cannot read {path}: {err.strerror or err}") from None
    if len(data) > _MAX_BYTES:
        raise KnownKeysError(f"{path}: larger than {_MAX_BYTES:,} bytes: not a known-keys file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise KnownKeysError(f"{path}: not UTF-8 text: not a known-keys file") from None
    keys: dict[bytes, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = _LINE.fullmatch(line)
        if match is None:
            # A line that pins nothing is refused, not skipped: the reviewer meant it to pin.
            raise KnownKeysError(f"{path}, line {number}: not a pinned key (want "
                                 f"{ALGORITHM}:<64 hex digits>, then an optional comment)")
        keys.setdefault(bytes.fromhex(match[1]), match[2] or "")
    return keys


def pin(path: Path, public: bytes, comment: str = "") -> bool:
    """Add ``public`` to the file (made, with its folder, if need be); False if it was there."""
    comment = comment.strip()
    if not comment.isprintable():
        # One line, so a comment cannot carry a key line of its own.
        raise ValueError("one line of printable text")
    if public in read(path):
        return False
    line = key_text(public) + (f" {comment}" if comment else "") + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a+b") as f:
            f.seek(0, os.SEEK_END)
            if f.tell():
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":      # a file edited by hand, without its last newline
                    line = "\n" + line
            f.write(line.encode("utf-8"))
    except OSError as err:
        raise KnownKeysError(f"cannot write {path}: {err.strerror or err}") from None
    return True
