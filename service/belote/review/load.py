"""Reading a log to review: an export file (JSON lines) or a table of a store.

Anything that cannot be read as a log raises :class:`Unreadable` with a message that names the
file and line; the CLI prints it and exits with status 2 (never a traceback).
"""

from __future__ import annotations

import json
import os
import sys

from google.protobuf import json_format

from belote.v1 import events_pb2 as epb


class Unreadable(Exception):
    """The input is not a log: missing file, bad JSON, truncated line, unknown field, no table."""


def to_json_line(msg: epb.LoggedEvent) -> str:
    """One export line: the protobuf JSON mapping of a LoggedEvent, compact, no newline."""
    return json_format.MessageToJson(msg, indent=None)


def parse_lines(lines, name: str = "input") -> list[epb.LoggedEvent]:
    """LoggedEvents from JSON lines (blank lines are skipped)."""
    out = []
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
        msg = epb.LoggedEvent()
        try:
            json_format.ParseDict(data, msg)
        except Exception as err:  # noqa: BLE001 - whatever the parser trips on, the line is bad
            raise Unreadable(f"{name}, line {number}: not a belote.v1.LoggedEvent: {err}") from None
        out.append(msg)
    if not out:
        raise Unreadable(f"{name}: no events" + (f" in {last} lines" if last else " (empty)"))
    return out


def read_file(path: str) -> list[epb.LoggedEvent]:
    name = "stdin" if path == "-" else path
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8-sig") as f:
                text = f.read()
    except OSError as err:
        raise Unreadable(f"cannot read {name}: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise Unreadable(f"{name}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    pieces = text.split("\n")            # lines end with \n only (not splitlines' other breaks)
    return parse_lines([p + "\n" for p in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else []), name)


async def read_store(url: str, table_id: str) -> list[epb.LoggedEvent]:
    """The export of ``table_id`` from the store at ``url`` (what ExportLog returns)."""
    from belote.app.tables import logged_event

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
        stored = await store.read(table_id)
    except StoreError as err:
        raise Unreadable(f"cannot read the store {url}: {err}") from None
    finally:
        await store.close()
    if not stored:
        raise Unreadable(f"no table {table_id!r} in the store {url}")
    return stored
