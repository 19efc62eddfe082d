"""An export ends with its head signed by the server: an edit the rules cannot see, made with the
hash chain recomputed, and a log cut at any event, exit 1 with a message naming what is wrong.

Each edit below passes every other check (the review of the events alone is clean, as it was
before export heads: `belote replay` exited 0 on such files); only the signed head catches it,
whether the cheat keeps the server's head, fixes its hash, or signs it again with a key of its
own (then --key, the server's key, tells).
"""

from __future__ import annotations

import argparse

import pytest
from belote.app.export_signing import key_text, public_key, signed_head
from belote.review import cli
from belote.review.load import to_json_line
from review_helpers import SERVER_KEY, check, clone, index_of, rechain, state_before

SERVER = key_text(public_key(SERVER_KEY))
CHEAT_KEY = bytes(range(100, 132))


def run(*argv) -> int:
    p = argparse.ArgumentParser(prog="belote")
    cli.add_commands(p.add_subparsers(dest="command", required=True))
    args = p.parse_args(list(argv))
    return args.func(args)


def replay(tmp_path, capsys, lines, *args) -> tuple[int, str]:
    path = tmp_path / "export.jsonl"
    path.write_text("".join(to_json_line(m) + "\n" for m in lines))
    code = run("replay", "--file", str(path), "--no-bot-check", *args)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def head_of(line):
    """A copy of an export's head line, to alter."""
    return clone([line])[0]


# Edits the rules cannot see ---------------------------------------------------------------------
def chat_text(log):
    i = index_of(log, "chat_posted")
    log[i].event.chat_posted.text = "you cheated"


def chat_author(log):
    i = index_of(log, "chat_posted", lambda m: m.event.chat_posted.seat == -1)   # a spectator's
    log[i].event.chat_posted.display_name = "someone else"


def event_time(log):
    i = index_of(log, "chat_posted")
    log[i].append_time.FromMicroseconds(log[i].append_time.ToMicroseconds() + 1000)
    log[i].event.append_time.CopyFrom(log[i].append_time)


def request_id(log):
    i = index_of(log, "card_played", lambda m: not m.event.card_played.HasField("bot"))
    log[i].request_id = "another-request"


def bot_seed(log):
    # A bot's forced card (its last): any seed gives it, so the bot check cannot tell.
    i = next(i for i in range(len(log)) if log[i].event_type == "card_played"
             and log[i].event.card_played.HasField("bot")
             and len(state_before(log, i).game.legal_actions()) == 1)
    log[i].event.card_played.bot.seed ^= 0x5EED


EDITS = [chat_text, chat_author, event_time, request_id, bot_seed]


@pytest.mark.parametrize("edit", EDITS, ids=lambda f: f.__name__)
def test_an_edit_with_the_chain_recomputed_is_caught_by_the_head(samples, tmp_path, capsys, edit):
    events, head = clone(samples.logs["classic"]), samples.heads["classic"]
    edit(events)
    rechain(events)
    assert check(events).violations == []          # what the events alone show: nothing
    n = len(events)
    # The server's head kept: it ends the log with another hash.
    code, out = replay(tmp_path, capsys, [*events, head], "--key", SERVER)
    assert code == 1
    assert f"seq {n + 1}: [head] the hash of seq {n} is not the one the server signed: the log " \
           "was changed and its hash chain recomputed" in out
    # Its hash fixed: the signature no longer holds.
    fixed = head_of(head)
    fixed.head.last_hash = events[-1].hash
    code, out = replay(tmp_path, capsys, [*events, fixed], "--key", SERVER)
    assert code == 1
    assert f"seq {n + 1}: [head] the head's signature is not good" in out
    # Signed again with a key of the cheat's: good as such, but not the server's.
    resigned = signed_head(CHEAT_KEY, events[0].table_id, events[-1], 1_800_000_000_000_000)
    code, out = replay(tmp_path, capsys, [*events, resigned], "--key", SERVER)
    assert code == 1
    assert f"seq {n + 1}: [head] the head is signed by another key than the server's (--key)" in out
    assert f"expected: {SERVER}" in out


def test_a_good_export_checked_with_the_servers_key_exits_0(samples, tmp_path, capsys):
    events = samples.logs["kamikaze"]
    code, out = replay(tmp_path, capsys, [*events, samples.heads["kamikaze"]], "--key", SERVER)
    assert code == 0, out
    assert "CLEAN: no violation" in out
    assert f"the export ends with its head signed by {SERVER}" in out
    assert f"up to seq {len(events)}" in out
    assert "give the server's (--key" not in out
    # Without --key the head is checked against the keys the reviewer pinned, and the report
    # says so (an unpinned key: tests/review/test_review_known_keys.py).
    assert run("trust-key", SERVER) == 0
    capsys.readouterr()
    code, out = replay(tmp_path, capsys, [*events, samples.heads["kamikaze"]])
    assert code == 0 and "is pinned in your known keys" in out


def cut_mid_game(log) -> int:
    return index_of(log, "card_played", start=100)          # before a card: a command boundary


def cut_after_game_ended(log) -> int:
    return index_of(log, "game_ended") + 1                   # the TableClosed after it dropped


@pytest.mark.parametrize("cut", [cut_mid_game, cut_after_game_ended], ids=lambda f: f.__name__)
def test_a_log_cut_at_a_command_boundary_exits_1(samples, tmp_path, capsys, cut):
    events, head = samples.logs["classic"], samples.heads["classic"]
    end = cut(events)
    assert end < len(events)
    kept = events[:end]
    assert check(kept).violations == []                    # as the events alone show: nothing
    # The head dropped with the rest, as a cheat would: the export has no end.
    code, out = replay(tmp_path, capsys, kept, "--key", SERVER)
    assert code == 1
    assert f"seq {end + 1}: [head] the export has no signed head at its end: it was cut short" in out
    # The server's head kept: it ends the log further on.
    code, out = replay(tmp_path, capsys, [*kept, head], "--key", SERVER)
    assert code == 1
    removed = len(events) - end
    assert f"seq {end + 1}: [head] the log was cut: the server's head ends it at seq " \
           f"{len(events)}, this export at seq {end} ({removed} event{'s' if removed > 1 else ''} " \
           "removed from its end)" in out


def test_a_missing_or_wrong_signature_exits_1(samples, tmp_path, capsys):
    events, head = samples.logs["belgian"], samples.heads["belgian"]
    n = len(events)
    unsigned = head_of(head)
    unsigned.head.ClearField("signature")
    code, out = replay(tmp_path, capsys, [*events, unsigned], "--key", SERVER)
    assert code == 1
    assert f"seq {n + 1}: [head] the head's signature is not good" in out and "found:    (none)" in out
    flipped = head_of(head)
    flipped.head.signature = bytes([head.head.signature[0] ^ 1]) + head.head.signature[1:]
    code, out = replay(tmp_path, capsys, [*events, flipped])        # even without --key
    assert code == 1 and f"seq {n + 1}: [head] the head's signature is not good" in out
    # A head moved to another time, or to another table, is no longer the signed one.
    moved = head_of(head)
    moved.head.export_time.seconds += 1
    code, out = replay(tmp_path, capsys, [*events, moved], "--key", SERVER)
    assert code == 1 and "[head] the head's signature is not good" in out
    other = head_of(head)
    other.head.table_id = "another-table"
    code, out = replay(tmp_path, capsys, [*events, other], "--key", SERVER)
    assert code == 1 and "[head] the head is another table's" in out


def test_events_after_the_head_exit_1(samples, tmp_path, capsys):
    events, head = samples.logs["modern"], samples.heads["modern"]
    n = len(events)
    code, out = replay(tmp_path, capsys, [*events[:-1], head, events[-1]], "--key", SERVER)
    assert code == 1
    assert f"seq {n}: [head] the export's head is not its last line: events follow it" in out
    assert f"seq {n + 1}: [head] the export has no signed head at its end" in out
    code, out = replay(tmp_path, capsys, [*events, head, head], "--key", SERVER)
    assert code == 1 and f"seq {n + 1}: [head] a head line before the export's last line" in out

