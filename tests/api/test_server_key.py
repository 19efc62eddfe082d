"""The server's key comes from outside the store (app/server_key.py)."""

from __future__ import annotations

import os
import stat

import pytest
from belote.app.server_key import KeyError_, derive, load_server_key


def test_a_key_file_in_hex_gives_its_bytes(tmp_path):
    path = tmp_path / "k"
    path.write_text("ab" * 32 + "\n")
    assert load_server_key(str(path), "sqlite:///x.db") == bytes([0xAB]) * 32


def test_a_short_key_file_is_refused_with_what_it_needs(tmp_path):
    path = tmp_path / "k"
    path.write_text("abcd")
    with pytest.raises(KeyError_, match=r"holds 2 bytes; it needs 32 or more"):
        load_server_key(str(path), "sqlite:///x.db")


def test_a_postgresql_store_needs_a_key_file():
    with pytest.raises(KeyError_, match=r"PostgreSQL store needs --key-file"):
        load_server_key(None, "postgresql://postgres@127.0.0.1/belote")


def test_a_sqlite_server_makes_its_own_key_once_readable_only_by_its_user(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    first = load_server_key(None, "sqlite:///x.db")
    path = tmp_path / "belote" / "server.key"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert load_server_key(None, "sqlite:///y.db") == first and len(first) == 32


def test_each_purpose_derives_a_key_of_its_own():
    key = bytes(32)
    assert derive(key, "tokens") != derive(key, "log-hash")
    assert derive(key, "tokens") == derive(key, "tokens")
