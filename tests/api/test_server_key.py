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


async def test_a_copy_of_the_database_gives_back_no_token_and_holds_no_key(server_factory, tmp_path):
    import secrets
    import shutil
    import sqlite3

    import grpc
    from belote.v1 import table_service_pb2 as pb
    from belote.v1 import table_service_pb2_grpc
    from players import rid
    from servers import ServerProcess

    own_key, other_key = tmp_path / "own.key", tmp_path / "other.key"
    own_key.write_text(secrets.token_hex(32))
    other_key.write_text(secrets.token_hex(32))
    proc = server_factory(extra_args=("--key-file", str(own_key)))
    create = pb.CreateTableRequest(is_private=True, password="backup-test", request_id=rid())
    async with grpc.aio.insecure_channel(proc.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = await stub.CreateTable(create)
        join = pb.JoinTableRequest(table_id=created.table_id, display_name="ann",
                                   password="backup-test", request_id=rid())
        joined = await stub.JoinTable(join)
    assert proc.terminate() == 0
    database = proc.workdir / "belote.db"
    with sqlite3.connect(database) as c:
        assert c.execute("SELECT name FROM settings").fetchall() == []
    # Whoever holds a copy, and runs a server on it without the server's key, replays the
    # very requests (ids, caller and all) and gets neither token back.
    thief = ServerProcess(tmp_path / "copy", extra_args=("--key-file", str(other_key)))
    thief.workdir.mkdir()
    shutil.copy(database, thief.workdir / "belote.db")
    thief.start()
    try:
        async with grpc.aio.insecure_channel(thief.address) as channel:
            stub = table_service_pb2_grpc.TableServiceStub(channel)
            again = await stub.CreateTable(create)
            assert (again.table_id, again.host_token) != (created.table_id, created.host_token)
            assert again.host_token != created.host_token
            try:
                seat = await stub.JoinTable(join)
                assert seat.seat_token != joined.seat_token
            except grpc.aio.AioRpcError as err:      # a new join, refused or not: no old token
                assert joined.seat_token not in err.details()
    finally:
        thief.kill()


async def test_after_a_key_rotation_tokens_work_and_only_retries_in_flight_change(server_factory,
                                                                                  tmp_path):
    import secrets

    import grpc
    from belote.v1 import table_service_pb2 as pb
    from belote.v1 import table_service_pb2_grpc
    from players import bearer, rid

    old_key, new_key = tmp_path / "old.key", tmp_path / "new.key"
    old_key.write_text(secrets.token_hex(32))
    new_key.write_text(secrets.token_hex(32))
    proc = server_factory(extra_args=("--key-file", str(old_key)))
    create = pb.CreateTableRequest(request_id=rid())
    async with grpc.aio.insecure_channel(proc.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = await stub.CreateTable(create)
        joined = await stub.JoinTable(pb.JoinTableRequest(table_id=created.table_id, seat=0,
                                                          display_name="ann", request_id=rid()))
    proc.kill()
    proc.extra_args = ("--key-file", str(new_key))
    proc.start()
    async with grpc.aio.insecure_channel(proc.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        # Tokens handed out before are checked against the log's hashes: they still work.
        mine = await stub.GetTable(pb.GetTableRequest(table_id=created.table_id),
                                   metadata=bearer(joined.seat_token))
        assert mine.your_seat == 0
        added = await stub.AddBot(pb.AddBotRequest(table_id=created.table_id, request_id=rid()),
                                  metadata=bearer(created.host_token))
        assert added.seat == 1
        # A retry across the rotation is a new request: another table.
        again = await stub.CreateTable(create)
        assert again.table_id != created.table_id
