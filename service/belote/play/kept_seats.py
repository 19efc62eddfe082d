"""The seats ``belote play`` holds, kept between runs so that a player who quits can come back.

A seat token is the only key to a seat (the server keeps its hash only): lose it and the seat is
gone to a takeover bot. So each seat taken is written at once to ``seats.json`` in the user's
state directory (``$XDG_STATE_HOME/belote/``, by default ``~/.local/state/belote/``), readable
by the user alone (0600, in a 0700 directory). ``belote play --resume`` takes the last one back,
``belote play --table ID`` the one of that table.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

#: The most recent seats kept; older ones are dropped (their games are long over).
MAX_KEPT = 20
FILE_NAME = "seats.json"


def state_dir(environ=os.environ) -> Path:
    """``$XDG_STATE_HOME/belote``, or ``~/.local/state/belote`` (the XDG spec ignores a
    relative XDG_STATE_HOME)."""
    base = environ.get("XDG_STATE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / "belote"


@dataclass(frozen=True)
class KeptSeat:
    table_id: str
    target: str          # HOST:PORT of the server the table is on
    seat: int
    token: str           # the seat token: a secret
    name: str            # the name the player sat down with
    kept_at: float = 0.0

    @classmethod
    def from_dict(cls, d: dict) -> KeptSeat | None:
        try:
            seat = cls(str(d["table_id"]), str(d["target"]), int(d["seat"]), str(d["token"]),
                       str(d.get("name", "")), float(d.get("kept_at", 0.0)))
        except (KeyError, TypeError, ValueError):
            return None
        return seat if seat.table_id and seat.token and 0 <= seat.seat < 4 else None


class KeptSeats:
    """The file of kept seats in ``directory``; every change under a lock (two terminals may
    play at once) and written whole by a rename (never half a file)."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.path = self.directory / FILE_NAME

    def all(self) -> list[KeptSeat]:
        """The seats kept, oldest first (a missing or unreadable file: none)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        records = data.get("seats", []) if isinstance(data, dict) else []
        seats = [KeptSeat.from_dict(r) for r in records if isinstance(r, dict)]
        return sorted((s for s in seats if s is not None), key=lambda s: s.kept_at)

    def last(self) -> KeptSeat | None:
        seats = self.all()
        return seats[-1] if seats else None

    def get(self, table_id: str) -> KeptSeat | None:
        return next((s for s in reversed(self.all()) if s.table_id == table_id), None)

    def keep(self, seat: KeptSeat) -> KeptSeat:
        """Keep ``seat`` as the latest (replacing any older one of its table)."""
        with self._locked():
            seats = self.all()
            # Later than any kept so far, even if the clock went back: the last is the latest.
            kept_at = max([time.time()] + [s.kept_at + 1e-3 for s in seats])
            seat = KeptSeat(seat.table_id, seat.target, seat.seat, seat.token, seat.name, kept_at)
            seats = [s for s in seats if s.table_id != seat.table_id] + [seat]
            self._write(seats[-MAX_KEPT:])
        return seat

    def forget(self, table_id: str) -> None:
        with self._locked():
            seats = self.all()
            if any(s.table_id == table_id for s in seats):
                self._write([s for s in seats if s.table_id != table_id])

    @contextlib.contextmanager
    def _locked(self):
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self.directory / (FILE_NAME + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _write(self, seats: list[KeptSeat]) -> None:
        text = json.dumps({"seats": [asdict(s) for s in seats]}, indent=1)
        tmp = self.path.with_name(f".{FILE_NAME}.{os.getpid()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(fd, 0o600)  # whatever the umask, or a file left by an older run
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text + "\n")
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
        os.replace(tmp, self.path)
