"""An export ends with its head signed by the server's key: GetExportKey serves the public key,
`belote serve` prints it, and `belote replay --key` checks an ExportLog's stream with it."""

from __future__ import annotations

import random
import subprocess

import grpc
import pytest
from belote.review.load import to_json_line
from belote.v1 import table_service_pb2_grpc
from belote.v1 import table_service_pb2 as pb
from players import REVIEWER_TOKEN, bearer, new_table
from servers import BELOTE

pytestmark = pytest.mark.timeout(90)


def replay(path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([*BELOTE, "replay", "--file", str(path), "--no-bot-check", *args],
                          capture_output=True, text=True, timeout=60)


async def test_an_export_log_stream_ends_with_a_head_the_served_key_verifies(server_factory, tmp_path):
    proc = server_factory()
    async with grpc.aio.insecure_channel(proc.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        key = await stub.GetExportKey(pb.GetExportKeyRequest())       # no token needed
        assert key.algorithm == "ed25519" and len(key.public_key) == 32
        assert key.key_text == "ed25519:" + key.public_key.hex()
        assert f"export key: {key.key_text}\n" in proc.output()        # `belote serve` prints it

        table = await new_table(stub, "classic", {"target": "200"}, humans=(0,))
        await table.play(random.Random("export-key"))
        lines = [line async for line in stub.ExportLog(
            pb.ExportLogRequest(table_id=table.table_id), metadata=bearer(REVIEWER_TOKEN))]
    *events, end = lines
    head = end.head
    assert not end.HasField("event") and not end.table_id               # the head line alone
    assert (head.version, head.table_id) == (1, table.table_id)
    assert (head.last_sequence, head.last_hash) == (events[-1].sequence, events[-1].hash)
    assert head.public_key == key.public_key and len(head.signature) == 64

    path = tmp_path / "t.jsonl"
    path.write_text("".join(to_json_line(m) + "\n" for m in lines))
    done = replay(path, "--key", key.key_text)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"the export ends with its head signed by {key.key_text}" in done.stdout
    # Another server's key: the same export is not that server's.
    other = "ed25519:" + bytes(32).hex()
    done = replay(path, "--key", other)
    assert done.returncode == 1
    assert "[head] the head is signed by another key than the server's (--key)" in done.stdout
    # A key file works as well; a --key that is no key is a usage error (2), not a verdict.
    (tmp_path / "server.pub").write_text(key.key_text + "\n")
    assert replay(path, "--key", str(tmp_path / "server.pub")).returncode == 0
    done = replay(path, "--key", "not-a-key")
    assert done.returncode == 2 and "--key: not a public key, nor a file" in done.stderr
