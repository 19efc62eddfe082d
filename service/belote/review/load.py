"""Reading a log to review: an export file (JSON lines) or a table of a store.

Anything that cannot be read as a log raises :class:`Unreadable` with a message that names the
file and line; the CLI prints it and exits with status 2 (never a traceback).
"""

from __future__ import annotations

import json
import os
import sys

from google.protobuf import json_format

from belote.table.codec import logged_event, upgrade_logged_json
from belote.v1 import events_pb2 as epb


class Unreadable(Exception):
    """The input is not a log: missing file, bad JSON, truncated line, unknown field, no table."""


def to_json_line(msg: epb.LoggedEvent) -> str:
    """One export line: the protobuf JSON mapping of a LoggedEvent, compact, no newline."""
    return json_format.MessageToJson(msg, indent=None)


# An export's line is a few kilobytes (a DealStarted with its deck is the longest); a line past
# this is no event, and reading stops there instead of holding it.
MAX_LINE_BYTES = 1 << 20
# Far beyond a table's log (a game is some hundreds of events, a game to a very high target some
# thousands); each event held costs about 2 kB during the review, so this bounds it to ~1 GB.
MAX_EVENTS = 500_000


def iter_lines(lines, name: str = "input", max_events: int = MAX_EVENTS):
    """LoggedEvents from JSON lines, one at a time (blank lines are skipped); the export's head
    line is a LoggedEvent too (``head`` set). Raises Unreadable at the first line that is not one,
    or past ``max_events`` lines."""
    seen = 0
    last = 0
    for number, line in enumerate(lines, 1):
        last = number
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as err:
            cut = not line.endswith("\n")
            raise Unreadable(f"{name}, line {number}: {'truncated line' if cut else 'not JSON'} "
                             f"({err.msg}, column {err.colno})") from None
        except (ValueError, RecursionError) as err:
            raise Unreadable(f"{name}, line {number}: not JSON ({err})") from None
        if not isinstance(data, dict):
            raise Unreadable(f"{name}, line {number}: expected a JSON object (one LoggedEvent), "
                             f"found {type(data).__name__}")
        try:
            msg = _parse(data)
        except Exception as err:  # noqa: BLE001 - whatever the parser trips on, the line is bad
            raise Unreadable(f"{name}, line {number}: not a belote.v1.LoggedEvent: {err}") from None
        if not msg.HasField("event") and not msg.HasField("head"):
            raise Unreadable(f"{name}, line {number}: a LoggedEvent with neither an event nor the "
                             "export's head: not a line of an export")
        seen += 1
        if seen > max_events:
            raise Unreadable(f"{name}: more than {max_events:,} lines of events: no table's log is "
                             "this long (--max-events to review it anyway)")
        yield msg
    if not seen:
        raise Unreadable(f"{name}: no events" + (f" in {last} lines" if last else " (empty)"))


def _parse(data: dict) -> epb.LoggedEvent:
    """A LoggedEvent of a line's JSON; a line of an export made before belote.v1 was frozen
    (enum values without their prefix) is read with its names brought up to date."""
    try:
        return json_format.ParseDict(data, epb.LoggedEvent())
    except json_format.ParseError:
        return json_format.ParseDict(upgrade_logged_json(data), epb.LoggedEvent())


def parse_lines(lines, name: str = "input") -> list[epb.LoggedEvent]:
    """LoggedEvents from JSON lines (blank lines are skipped)."""
    return list(iter_lines(lines, name))


def _file_lines(f, name: str):
    """The lines of a binary file as text, each read with a bound on its length (a file of
    zeros, or of one endless line, is refused at its first MAX_LINE_BYTES bytes)."""
    number = 0
    while True:
        raw = f.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise Unreadable(f"{name}, line {number}: longer than {MAX_LINE_BYTES:,} bytes: not a "
                             "line of an export (its lines are a few kilobytes)")
        if number == 1:
            raw = raw.removeprefix(b"\xef\xbb\xbf")     # a byte order mark
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise Unreadable(f"{name}, line {number}: not UTF-8 text ({err.reason} at byte "
                             f"{err.start} of the line)") from None


def iter_file(path: str, max_events: int = MAX_EVENTS):
    """The LoggedEvents of an export file (``-``: stdin), read line by line: memory holds one
    line at a time, whatever the file."""
    name = "stdin" if path == "-" else path
    try:
        f = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as err:
        raise Unreadable(f"cannot read {name}: {err.strerror or err}") from None
    try:
        yield from iter_lines(_file_lines(f, name), name, max_events)
    except OSError as err:
        raise Unreadable(f"cannot read {name}: {err.strerror or err}") from None
    finally:
        if f is not sys.stdin.buffer:
            f.close()


def read_file(path: str) -> list[epb.LoggedEvent]:
    return list(iter_file(path))


async def read_store(url: str, table_id: str) -> list[epb.LoggedEvent]:
    """The export of ``table_id`` from the store at ``url`` (what ExportLog returns)."""
    out = []
    for stored in await read_stored(url, table_id):
        try:
            out.append(logged_event(stored))
        except Exception as err:  # noqa: BLE001 - a payload that does not decode
            raise Unreadable(f"event {stored.sequence} of table {table_id!r} cannot be decoded "
                             f"({err}); `belote replay {table_id}` reviews the store as it is") from None
    return out


async def read_stored(url: str, table_id: str) -> list:
    """The StoredEvents of ``table_id`` in the store at ``url``, as the store holds them."""
    from belote.store import StoreError, open_store

    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        if path and "?" not in path and path != ":memory:" and not os.path.exists(path):
            raise Unreadable(f"no store at {path} (from {url})")     # opening would create one
    try:
        store = open_store(url)
    except StoreError as err:
        raise Unreadable(f"cannot open the store: {err}") from None
    try:
        stored = await store.events.read(table_id)
    except StoreError as err:
        raise Unreadable(f"cannot read the store {url}: {err}") from None
    finally:
        await store.close()
    if not stored:
        raise Unreadable(f"no table {table_id!r} in the store {url}")
    return stored
