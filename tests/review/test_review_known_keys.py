"""`belote replay` exits 0 only when the export's head verifies against a key the reviewer trusts:
the one given with --key, or one pinned in the known-keys file (`belote trust-key KEY`, like ssh's
known_hosts). A good head signed by any other key exits 3 (not 1: nothing in the log is proven
wrong; not 2: the input was read), with the key's fingerprint to compare with the server's.

Every test reads a known-keys file of its own (BELOTE_KNOWN_KEYS, set by conftest.py), never the
real home directory's.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json

from belote.app.export_signing import key_text, public_key, signed_head
from belote.review import cli
from belote.review.load import to_json_line
from review_helpers import SERVER_KEY, check, index_of

SERVER = key_text(public_key(SERVER_KEY))
CHEAT_KEY = bytes(range(100, 132))
CHEAT = key_text(public_key(CHEAT_KEY))


def run(*argv) -> int:
    p = argparse.ArgumentParser(prog="belote")
    cli.add_commands(p.add_subparsers(dest="command", required=True))
    args = p.parse_args(list(argv))
    return args.func(args)


def fingerprint_of(text: str) -> str:
    """ssh's form, computed here apart: SHA256 of the 32 raw key bytes, base64 without padding."""
    raw = bytes.fromhex(text.removeprefix("ed25519:"))
    return "SHA256:" + base64.b64encode(hashlib.sha256(raw).digest()).decode().rstrip("=")


def export(tmp_path, lines, name="export.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(to_json_line(m) + "\n" for m in lines))
    return str(path)


def replay(capsys, path, *args) -> tuple[int, str, str]:
    code = run("replay", "--file", path, "--no-bot-check", *args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def trust(capsys, *args) -> tuple[int, str, str]:
    code = run("trust-key", *args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def genuine(samples, tmp_path) -> str:
    return export(tmp_path, [*samples.logs["kamikaze"], samples.heads["kamikaze"]], "genuine.jsonl")


def cut_and_signed_again(samples, tmp_path) -> tuple[str, int]:
    """The cheat's export: the log cut in half at a command boundary, its head signed again with
    the cheat's own key. Every check of the events passes, and the head matches them."""
    events = samples.logs["classic"]
    end = index_of(events, "card_played", start=len(events) // 2)
    kept = events[:end]
    assert check(kept).violations == []
    head = signed_head(CHEAT_KEY, kept[0].table_id, kept[-1], 1_800_000_000_000_000)
    return export(tmp_path, [*kept, head], "cut.jsonl"), end


def unknown_key_message(key: str, known_keys) -> str:
    return (f"belote replay: not verified: the export's head is good, but signed by a key you do "
            f"not trust\n"
            f"  key:         {key}\n"
            f"  fingerprint: {fingerprint_of(key)}\n"
            f"Compare it with the server's export key (`belote serve` prints `export key: "
            f"ed25519:...`; the GetExportKey RPC serves it). If that is another key, this export "
            f"is not the server's. To trust the server's key, pin it, then replay again:\n"
            f"  belote trust-key <the server's export key> --known-keys {known_keys}\n"
            f"(or give it with --key)\n")


def test_a_cut_log_signed_again_with_another_key_exits_3_without_key(samples, tmp_path, capsys,
                                                                     known_keys):
    path, end = cut_and_signed_again(samples, tmp_path)
    code, out, err = replay(capsys, path)
    assert code == 3, out + err
    assert err == unknown_key_message(CHEAT, known_keys)
    assert out.rstrip().endswith(f"UNKNOWN KEY: no violation, but the head's key "
                                 f"{fingerprint_of(CHEAT)} is neither --key nor pinned: not proven "
                                 "the server's export")
    assert (f"Note: the export ends with its head signed by {CHEAT}, a key you do not trust "
            f"(neither --key nor pinned): up to seq {end}, the log as whoever holds that key "
            "signed it, not proven the server's") in out
    # For tools, the same: no violation, exit 3, and the key.
    code = run("replay", "--file", path, "--no-bot-check", "--json")
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert code == 3 and data["exit_code"] == 3 and data["violations"] == []
    assert data["unknown_key"] == {"key": CHEAT, "fingerprint": fingerprint_of(CHEAT)}
    assert captured.err == unknown_key_message(CHEAT, known_keys)


def test_pinning_the_servers_key_then_a_genuine_export_exits_0(samples, tmp_path, capsys,
                                                               known_keys):
    path = genuine(samples, tmp_path)
    code, out, err = replay(capsys, path)               # genuine, but its key not yet trusted
    assert code == 3 and err == unknown_key_message(SERVER, known_keys)
    code, out, err = trust(capsys, SERVER, "--comment", "belote.example.org")
    assert (code, err) == (0, "")
    assert out == f"fingerprint {fingerprint_of(SERVER)} ({SERVER})\npinned in {known_keys}\n"
    assert known_keys.read_text() == f"{SERVER} belote.example.org\n"
    code, out, err = replay(capsys, path)
    assert (code, err) == (0, ""), out
    assert out.rstrip().endswith("CLEAN: no violation")
    assert f"Note: the export ends with its head signed by {SERVER}: the log as the server read it" in out
    assert f"Note: that key ({fingerprint_of(SERVER)}) is pinned in your known keys" in out
    # Pinning it again changes nothing.
    code, out, err = trust(capsys, SERVER)
    assert (code, err) == (0, "")
    assert out == f"fingerprint {fingerprint_of(SERVER)} ({SERVER})\nalready pinned in {known_keys}\n"
    assert known_keys.read_text() == f"{SERVER} belote.example.org\n"


def test_a_pinned_key_does_not_pass_a_log_signed_by_another(samples, tmp_path, capsys, known_keys):
    assert trust(capsys, SERVER)[0] == 0
    path, _ = cut_and_signed_again(samples, tmp_path)
    code, out, err = replay(capsys, path)
    assert code == 3 and err == unknown_key_message(CHEAT, known_keys)
    # A head whose signature is not good is a violation (1), pinned key or not.
    head = signed_head(SERVER_KEY, samples.table_id("kamikaze"), samples.logs["kamikaze"][-1],
                       1_800_000_000_000_000)
    head.head.export_time.seconds += 1
    code, out, err = replay(capsys, export(tmp_path, [*samples.logs["kamikaze"], head]))
    assert (code, err) == (1, "")
    assert f"seq {len(samples.logs['kamikaze']) + 1}: [head] the head's signature is not good" in out


def test_key_still_works_and_alone_decides(samples, tmp_path, capsys, known_keys):
    code, out, err = replay(capsys, genuine(samples, tmp_path), "--key", SERVER)
    assert (code, err) == (0, "") and out.rstrip().endswith("CLEAN: no violation")
    assert not known_keys.exists()                      # nothing pinned, nothing read or written
    path, _ = cut_and_signed_again(samples, tmp_path)
    code, out, err = replay(capsys, path, "--key", SERVER)
    assert (code, err) == (1, "")
    assert "[head] the head is signed by another key than the server's (--key)" in out
    # --key is the key the head must be signed by: a key pinned besides does not count.
    assert trust(capsys, CHEAT)[0] == 0
    assert replay(capsys, path, "--key", SERVER)[0] == 1
    assert replay(capsys, path)[0] == 0                 # as the pin says: that reviewer's choice


def test_the_fingerprint_is_the_keys_sha256(capsys, known_keys):
    # Known value: the sample server's key, hashed apart from the code under test.
    raw = public_key(SERVER_KEY)
    expected = "SHA256:" + base64.b64encode(hashlib.sha256(raw).digest()).decode().rstrip("=")
    assert len(expected) == len("SHA256:") + 43
    code, out, _ = trust(capsys, base64.b64encode(raw).decode())   # any form --key takes
    assert code == 0 and out.splitlines()[0] == f"fingerprint {expected} ({SERVER})"


def test_the_known_keys_file_is_read_from_the_environment(samples, tmp_path, capsys, monkeypatch):
    path = genuine(samples, tmp_path)
    pinned, empty = tmp_path / "pinned" / "known_keys", tmp_path / "empty"
    assert trust(capsys, SERVER, "--known-keys", str(pinned))[0] == 0     # made with its folder
    monkeypatch.setenv("BELOTE_KNOWN_KEYS", str(pinned))
    assert replay(capsys, path)[:1] == (0,)
    monkeypatch.setenv("BELOTE_KNOWN_KEYS", str(empty))
    code, _, err = replay(capsys, path)
    assert code == 3 and err == unknown_key_message(SERVER, empty)
    assert replay(capsys, path, "--known-keys", str(pinned))[0] == 0      # the flag over the env
    # Neither: the user's config directory (XDG_CONFIG_HOME, here a temporary one).
    monkeypatch.delenv("BELOTE_KNOWN_KEYS")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    default = tmp_path / "config" / "belote" / "known_keys"
    assert replay(capsys, path)[2] == unknown_key_message(SERVER, default)
    code, out, _ = trust(capsys, SERVER)
    assert code == 0 and out.endswith(f"pinned in {default}\n")
    assert replay(capsys, path)[0] == 0


def test_the_known_keys_format(samples, tmp_path, capsys, known_keys):
    path = genuine(samples, tmp_path)
    known_keys.write_text(f"# reviewer's keys\n\n{CHEAT}\n   {SERVER}   prod server, since 2026\n")
    assert replay(capsys, path)[0] == 0
    known_keys.write_text(f"{CHEAT}\n{SERVER[:-2]} cut short\n")
    code, out, err = replay(capsys, path)
    assert (code, out) == (2, "")
    assert err == (f"belote replay: {known_keys}, line 2: not a pinned key (want ed25519:<64 hex "
                   "digits>, then an optional comment)\n")
    # A comment is one line: it could not add a key of its own.
    code, out, err = trust(capsys, SERVER, "--comment", f"x\n{CHEAT}")
    assert (code, out) == (2, "")
    assert err == "belote trust-key: --comment: one line of printable text\n"
    code, out, err = trust(capsys, "not-a-key")
    assert code == 2 and err.startswith("belote trust-key: not a public key, nor a file")
    # The export itself is no key to pin: the key comes from the server, not from the file.
    code, out, err = trust(capsys, path)
    assert code == 2 and err.startswith(f"belote trust-key: {path}: holds no public key")


def test_an_export_without_a_head_keeps_its_message_and_exit_1(samples, tmp_path, capsys, known_keys):
    events = samples.logs["modern"]
    code, out, err = replay(capsys, export(tmp_path, events))
    assert (code, err) == (1, "")
    assert (f"seq {len(events) + 1}: [head] the export has no signed head at its end: it was cut "
            "short (at any event), or written by a server from before export heads") in out


def test_a_store_log_has_no_head_and_exits_0_when_clean(samples, capsys):
    # Read from the reviewer's own store, there is no export to verify (and nothing to pin).
    assert run("replay", samples.table_id("enhanced"), "--store", samples.store_url,
               "--no-bot-check") == 0
    assert capsys.readouterr().err == ""
