"""Private tables' passwords: scrypt, slow on purpose, so checking one costs CPU a stranger
could spend by the thousand. Bounded three ways: each caller's wrong tries (per table, on every
replica), scrypt runs at once in this process (in threads, off the event loop; the others
wait their turn), and a password is hashed once for all who send it at the same time, and not
again here once found right.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
from collections import OrderedDict

from . import errors as err
from .limits import WrongPasswords

SCRYPT_AT_ONCE = 2          # more at once would only queue for the same cores
REMEMBERED = 4096           # passwords found right, per process


def scrypt(password: str, salt: bytes) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32)


class Passwords:
    def __init__(self, wrong: WrongPasswords, at_once: int = SCRYPT_AT_ONCE):
        self.wrong = wrong
        self._at_once = asyncio.Semaphore(at_once)
        # What this process remembers of the passwords found right: keyed digests, under a key
        # of its own that never leaves it (nothing to compare them with elsewhere).
        self._key = secrets.token_bytes(32)
        self._right: OrderedDict[bytes, None] = OrderedDict()
        self._hashing: dict[bytes, asyncio.Future[bool | None]] = {}     # in flight: one each

    async def hash(self, password: str, salt: bytes) -> bytes:
        async with self._at_once:
            return await asyncio.to_thread(scrypt, password, salt)

    async def check(self, table_id: str, caller: str, password: str, salt: bytes,
                    password_hash: bytes) -> None:
        """Nothing if ``password`` is the table's; PERMISSION_DENIED if it is not, and
        RESOURCE_EXHAUSTED for a caller with too many wrong tries on this table lately (the
        right password too: a guess must not be told apart from a refusal)."""
        key, seen = f"{table_id}:{caller}", hmac.new(self._key, salt + password.encode(),
                                                    "sha256").digest()
        while True:
            if await self.wrong.full(key):
                raise _too_many(self.wrong)
            if seen in self._right:
                self._right.move_to_end(seen)
                return
            hashing = self._hashing.get(seen)
            if hashing is None:
                break
            # The same password is being hashed for another request: its answer is ours (None:
            # that request had no answer, its caller over its limit or gone; try as ourselves).
            right = await asyncio.shield(hashing)
            if right is not None:
                if not right:
                    raise _wrong()
                return
        # No await from the look into _hashing to here: whoever comes next waits for this hash.
        hashing = self._hashing[seen] = asyncio.get_running_loop().create_future()
        right = None
        try:
            try_ = await self.wrong.take(key)      # counted before the hash: a flood hashes 5
            if try_ is None:
                raise _too_many(self.wrong)
            right = hmac.compare_digest(await self.hash(password, salt), password_hash)
        finally:
            del self._hashing[seen]
            hashing.set_result(right)
        if not right:
            raise _wrong()
        await self.wrong.give_back(key, try_)
        self._right[seen] = None
        if len(self._right) > REMEMBERED:
            self._right.popitem(last=False)


def _wrong() -> err.AppError:
    return err.AppError("WRONG_PASSWORD", "wrong password for this private table")


def _too_many(wrong: WrongPasswords) -> err.AppError:
    return err.AppError("TOO_MANY_WRONG_PASSWORDS",
                        f"too many wrong passwords from you for this table ({wrong.limit} within "
                        f"{wrong.window_s:.0f} seconds): wait a minute")
