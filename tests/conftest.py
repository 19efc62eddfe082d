"""Every test and every server it starts: the user's state directory and the server's key in
a temporary folder of the session, never the real ~/.local/state."""

from __future__ import annotations

import os
import secrets
import tempfile

_STATE = tempfile.mkdtemp(prefix="belote-tests-state-")
_KEY_FILE = os.path.join(_STATE, "server.key")
with open(_KEY_FILE, "w") as _out:
    _out.write(secrets.token_hex(32) + "\n")

os.environ["XDG_STATE_HOME"] = _STATE          # inherited by `belote` subprocesses
os.environ.setdefault("BELOTE_KEY_FILE", _KEY_FILE)
