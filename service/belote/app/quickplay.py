"""Quick play: a seat at the open public table of a preset with the most players waiting, or a
new table whose empty seats bots fill after a wait.

Every seat is taken through the app's own JoinTable, so the table's log decides who gets a seat:
two callers racing for the last one (on one replica or two) get one seat each or a refusal that
sends the loser to the next table, never a fifth player. The time bots fill a new table is
written in its TableCreated (bots_fill_time): the process that opened it seats them then, and
should it be gone, the due-bots sweep of another replica does (app/due_bots.py); both append
under the same request ids, so the seats are filled once.

Nobody can hog it: one caller (its registered player, else its host, as for the other limits)
holds at most a few seats through it at once, never two of one table (app/seat_quota.py), and a
caller is sat only at a table whose waiting players are present (app/presence.py): a seat that
never watches nor calls counts as away, and once its game starts a takeover bot comes for it
after the disconnect grace.
"""

from __future__ import annotations

import asyncio
import hashlib
import weakref
from collections import OrderedDict

import structlog

from belote.rules import InvalidOptions, rules_for
from belote.table import request_ids
from belote.table.decide import SeatBot
from belote.table.state import EMPTY, WAITING
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as tpb

from . import errors as err
from .deals import deciding
from .display_names import check_display_name
from .due_bots import bots_fill_at_us
from .access import sha256
from .limits import caller_key
from .requests import Caller, request_uuid
from .seat_quota import SEATS_PER_CALLER, SeatQuota

DEFAULT_WAIT_S = 20.0
QUICK_PLAY_NAME = "quick play"
CANDIDATES = 50            # open tables looked at, newest first
REMEMBERED_ANSWERS = 4096  # retries this process answers from memory
OPENING_TRIES = 3         # tables opened by one call whose other calls sat there first, at most
BOT_TRIES = 5              # seats lost to a racing join before the bots give up, this time
BOT_FILL = "quick-play-bot"  # the request id of a bot filling seat N: quick-play-botN-<version>

log = structlog.get_logger("belote.quickplay")


class QuickPlay:
    def __init__(self, app, wait_s: float = DEFAULT_WAIT_S, seats_per_caller: int = SEATS_PER_CALLER) -> None:
        self.app = app
        self.wait_s = wait_s
        self.seats = SeatQuota(app.store, app.clock, app.tables.load, seats_per_caller)
        # request key -> table joined: a retry joins the same table again (JoinTable's own
        # idempotency then returns the first answer) instead of seating the caller twice.
        self._answered: OrderedDict[str, str] = OrderedDict()

    async def quick_play(self, req: tpb.QuickPlayRequest, player_token: str | None = None, *,
                         peer: str | None = None,
                         caller: Caller | None = None) -> tpb.QuickPlayResponse:
        preset = req.preset or "classic"
        try:
            options = rules_for(preset, dict(req.options)).as_strings()
        except InvalidOptions as e:
            raise err.invalid("preset" if e.field == "preset" else f"options[{e.field}]", str(e)) from None
        check_display_name(req.display_name)   # before a table is opened; join_table stores its form
        digits = request_uuid(req.request_id)
        who = caller or Caller(None, player_token, peer or "")
        # The caller as its request ids are scoped (its player, not the token it shows today).
        key = hashlib.sha256(f"{self.app.requests.scope(None, who)}|{digits}".encode()).hexdigest()[:32]

        async def join(table_id: str) -> tpb.JoinTableResponse:
            return await self.app.join_table(
                tpb.JoinTableRequest(table_id=table_id, display_name=req.display_name,
                                     request_id=derived_id(digits, "seat")),
                None, player_token, caller=who if caller or peer is not None else None)

        known = self._answered.get(key)
        if known is not None:
            return await join(known)
        # A caller inside this process (the demo, a benchmark) has no quota.
        quota = None if caller is None and peer is None else caller_key(
            f"player:{self.app.identity.player_id(who.player_token)}" if who.player_token else who.peer)
        held = await self.seats.reserve(quota, key) if quota is not None else set()
        if isinstance(held, str):       # a retry of a quick play that got its seat, anywhere
            return await join(held)
        try:
            for attempt in range(OPENING_TRIES):
                for table_id in await self._open_tables(preset, options):
                    if table_id in held or not await self._waiting_present(table_id) or \
                            not await self._claim(quota, table_id, key):
                        continue
                    try:
                        return await self._seated(quota, key, table_id, await join(table_id))
                    except err.AppError as e:
                        await self._unclaim(quota, table_id, key)
                        # Filled or started meanwhile (ABORTED: a join won the race): the next.
                        if e.reason not in err.RACES and e.reason not in err.JOIN_MISSED:
                            raise
                created = await self.app.create_table(tpb.CreateTableRequest(
                    preset=preset, options=dict(req.options), name=QUICK_PLAY_NAME,
                    request_id=derived_id(digits, f"table{attempt or ''}")), player_token,
                    caller=who if caller or peer is not None else None,
                    bots_fill_at_us=self.app.clock() + int(self.wait_s * 1_000_000))
                self.app._spawn(self._fill_when_due(created.table_id))
                # Another quick play of this caller may have found the new table first.
                if await self._claim(quota, created.table_id, key):
                    return await self._seated(quota, key, created.table_id, await join(created.table_id))
            raise err.aborted("the open tables changed while you were seated: retry", "TABLE_CHANGED")
        except BaseException:
            if quota is not None:
                await self.seats.release(quota, key)
            raise

    async def _claim(self, quota: str | None, table_id: str, key: str) -> bool:
        return quota is None or await self.seats.claim(quota, table_id, key)

    async def _unclaim(self, quota: str | None, table_id: str, key: str) -> None:
        if quota is not None:
            await self.seats.unclaim(quota, table_id, key)

    async def _seated(self, quota: str | None, key: str, table_id: str,
                      joined: tpb.JoinTableResponse) -> tpb.JoinTableResponse:
        if quota is not None:
            await self.seats.seated(quota, key, table_id, joined.seat, sha256(joined.seat_token))
        return self._remember(key, table_id, joined)

    def _remember(self, key: str, table_id: str, joined: tpb.JoinTableResponse) -> tpb.JoinTableResponse:
        self._answered[key] = table_id
        self._answered.move_to_end(key)
        while len(self._answered) > REMEMBERED_ANSWERS:
            self._answered.popitem(last=False)
        return joined

    async def _open_tables(self, preset: str, options: dict[str, str]) -> list[str]:
        """Public waiting tables with these rules, no stake: the most players waiting first."""
        rows = await self.app.store.lobby.list_tables(status=WAITING, listed=True, limit=CANDIDATES)
        found = []
        for table_id, entry, _ in rows:
            summary = tpb.TableSummary.FromString(entry.summary)
            if summary.preset != preset or summary.stake or not summary.free_seats:
                continue
            state = await self.app._existing(table_id)
            if dict(state.created.options) == options:
                found.append((summary.free_seats, table_id))
        return [table_id for _, table_id in sorted(found)]

    async def _waiting_present(self, table_id: str) -> bool:
        """Whether every player waiting at the table is present (watching, or called lately):
        a caller is never sat behind players who are not there."""
        state = await self.app._existing(table_id)
        present = self.app.watching.seats_present.present
        return all([await present(table_id, seat) for seat in state.humans()])

    async def _fill_when_due(self, table_id: str) -> None:
        """Here, at the table's bots_fill_time (a retried opening finds the first one's time)."""
        due_us = bots_fill_at_us(await self.app.tables.load(table_id))
        if due_us is not None:
            await asyncio.sleep(max(0.0, (due_us - self.app.clock()) / 1e6))
            await fill_empty_seats(self.app, table_id)


async def fill_empty_seats(app, table_id: str) -> int:
    """A NORMAL bot on every seat still empty of a quick-play table whose wait is over (humans
    who came meanwhile keep theirs: a join that races a bot makes the bot look again); how many
    were seated. Each bot is the server's own move on the table at a version, so the opening
    replica and the sweep of another one seating the same seat meet on one request id."""
    seated = 0
    for _ in range(4 + BOT_TRIES):
        state = await app.tables.load(table_id)
        due_us = bots_fill_at_us(state)
        if due_us is None or app.clock() < due_us:
            return seated
        seat = next(i for i, s in enumerate(state.seats) if s.occupant == EMPTY)
        try:
            await app.tables.execute(table_id, request_ids.deadline(f"{BOT_FILL}{seat}", state.version),
                                     deciding(SeatBot(seat, epb.BOT_LEVEL_NORMAL)), state.version)
            seated += 1
        except err.AppError as e:
            # ABORTED: a join (or the other replica's bot) came first; FAILED_PRECONDITION: the
            # seat was taken or the table left waiting. Either way: look again.
            if e.reason not in err.RACES and e.reason not in err.JOIN_MISSED:
                log.warning("quick play could not seat a bot", table_id=table_id, seat=seat,
                            reason=e.reason)
                return seated
    return seated


def derived_id(digits: str, step: str) -> str:
    """The request id of one step of a quick play (its table, its seat, a bot): one id per
    operation, as the store wants, each a function of the caller's, so a retry repeats them."""
    return hashlib.sha256(f"quick-play|{digits}|{step}".encode()).hexdigest()[:32]


_players: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def quick_play_of(app, wait_s: float | None = None, seats_per_caller: int | None = None) -> QuickPlay:
    """The app's QuickPlay (one per app, so its memory of answers is shared by every call);
    `wait_s` sets its wait before bots fill a new table, `seats_per_caller` how many seats one
    caller may hold through it at once."""
    player = _players.get(app)
    if player is None:
        player = _players[app] = QuickPlay(app)
    if wait_s is not None:
        player.wait_s = wait_s
    if seats_per_caller is not None:
        player.seats.limit = seats_per_caller
    return player
