"""``belote fuzz``: a black-box fuzz of every TableService RPC against a running server.

Requests are built from the proto's own descriptors, so a new RPC or field is fuzzed without a
change here. Each field gets a value harvested from earlier answers (table ids, tokens, request
ids, sequences), a plausible one, a hostile one (huge, empty, control characters, extreme
numbers) or nothing; the metadata carries a harvested token, garbage, or none. A few valid
tables are set up first so the fuzz reaches past "not found". Whatever the input, a server must
answer with a status a client can act on: UNKNOWN or INTERNAL is a bug, and so is a call that
outlives its deadline by far.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import FieldDescriptor

from belote.v1 import table_service_pb2

SERVICE = table_service_pb2.DESCRIPTOR.services_by_name["TableService"]
SERVER_FAULTS = (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL)
MAX_DEPTH = 4
HOSTILE_STRINGS = ("", " ", "\x00", "\u202e", "é" * 70, "x" * 5000, "../../etc/passwd",
                   "' OR 1=1 --", "%s%n", "\ud7ff", "-1", "0", "NaN", "Bearer ")
OPTION_NAMES = ("target", "first_dealer", "all_pass", "announcements", "litige", "trumps",
                "play", "undertrump", "belote", "capot", "turn_timer_s")


@dataclass
class Harvest:
    """What earlier answers gave away, to be sent back in later requests."""
    table_ids: list[str] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    request_ids: list[str] = field(default_factory=list)
    strings: list[str] = field(default_factory=list)
    seats: list[tuple[str, str]] = field(default_factory=list)      # (table id, its seat token)
    legal: dict[str, list] = field(default_factory=dict)            # table id -> legal actions

    def take(self, msg) -> None:
        for desc, value in msg.ListFields():
            values = value if desc.is_repeated else [value]
            for item in values:
                if desc.type == FieldDescriptor.TYPE_MESSAGE:
                    if not desc.message_type.GetOptions().map_entry:
                        self.take(item)
                elif desc.type == FieldDescriptor.TYPE_STRING:
                    self._keep(desc.name, item)

    def _keep(self, name: str, value: str) -> None:
        pool = (self.table_ids if name == "table_id" else self.tokens if name.endswith("token")
                else self.request_ids if name == "request_id" else self.strings)
        if value and value not in pool[-64:]:
            pool.append(value)
            del pool[:-256]  # a bounded memory of the most recent


@dataclass
class Report:
    calls: int = 0
    codes: Counter = field(default_factory=Counter)        # (rpc, code name) -> calls
    faults: list[str] = field(default_factory=list)        # one line per UNKNOWN / INTERNAL
    slow: list[str] = field(default_factory=list)          # calls far past their deadline

    def record(self, rpc: str, code: grpc.StatusCode, detail: str, request) -> None:
        self.calls += 1
        self.codes[(rpc, code.name)] += 1
        if code in SERVER_FAULTS and len(self.faults) < 50:
            self.faults.append(f"{rpc} {code.name} {detail!r} request={_short(request)}")


def _short(msg) -> str:
    text = " ".join(str(msg).split())
    return text if len(text) < 300 else text[:300] + "..."


class Fuzzer:
    def __init__(self, channel: grpc.aio.Channel, rng: random.Random, deadline_s: float):
        self.channel = channel
        self.rng = rng
        self.deadline_s = deadline_s
        self.harvest = Harvest()
        self.report = Report()
        self._calls = {}
        for method in SERVICE.methods:
            request = message_factory.GetMessageClass(method.input_type)
            response = message_factory.GetMessageClass(method.output_type)
            path = f"/{SERVICE.full_name}/{method.name}"
            make = channel.unary_stream if method.server_streaming else channel.unary_unary
            self._calls[method.name] = (request, make(
                path, request_serializer=request.SerializeToString,
                response_deserializer=response.FromString), method.server_streaming)

    # ------------------------------------------------------------------ values for one field
    def _string(self, desc: FieldDescriptor) -> str:
        rng, h = self.rng, self.harvest
        roll = rng.random()
        if desc.name == "request_id":
            if roll < 0.75:
                return str(uuid.UUID(int=rng.getrandbits(128), version=4))
            if roll < 0.9 and h.request_ids:
                return rng.choice(h.request_ids)
        if desc.name == "table_id" and roll < 0.8 and h.table_ids:
            return rng.choice(h.table_ids)
        if roll < 0.3 and h.strings:
            return rng.choice(h.strings)
        if roll < 0.6:
            return rng.choice(HOSTILE_STRINGS)
        return "".join(chr(rng.choice((rng.randrange(32, 127), rng.randrange(0, 0xD7FF))))
                       for _ in range(rng.randrange(0, 40)))

    def _scalar(self, desc: FieldDescriptor):
        rng = self.rng
        t = desc.type
        if t == FieldDescriptor.TYPE_STRING:
            return self._string(desc)
        if t == FieldDescriptor.TYPE_BYTES:
            return rng.randbytes(rng.choice((0, 1, 16, 32, 3000)))
        if t == FieldDescriptor.TYPE_BOOL:
            return rng.random() < 0.5
        if t == FieldDescriptor.TYPE_ENUM:
            values = [v.number for v in desc.enum_type.values]
            return rng.choice(values) if rng.random() < 0.9 else rng.randrange(-5, 1000)
        if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
            return rng.choice((0.0, -1.0, 1e300, float("inf"), float("nan"), rng.random() * 100))
        bits = 32 if t in (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32,
                           FieldDescriptor.TYPE_SFIXED32, FieldDescriptor.TYPE_UINT32,
                           FieldDescriptor.TYPE_FIXED32) else 64
        unsigned = t in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64,
                         FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64)
        low, high = (0, 2**bits - 1) if unsigned else (-(2**(bits - 1)), 2**(bits - 1) - 1)
        return rng.choice((0, 1, 2, 3, 4, -1 if not unsigned else 5, low, high,
                           rng.randrange(0, 600)))

    def fill(self, msg, depth: int = 0) -> None:
        rng = self.rng
        for desc in msg.DESCRIPTOR.fields:
            if rng.random() < 0.3 or depth > MAX_DEPTH:
                continue
            if desc.type == FieldDescriptor.TYPE_MESSAGE and desc.message_type.GetOptions().map_entry:
                target = getattr(msg, desc.name)
                for _ in range(rng.randrange(0, 4)):
                    key = rng.choice(OPTION_NAMES) if rng.random() < 0.8 else self._string(desc)
                    target[key] = rng.choice(("1", "501", "3", "yes", "", "-7", "99999999",
                                              self._string(desc)))
            elif desc.is_repeated:
                target = getattr(msg, desc.name)
                for _ in range(rng.randrange(0, 3)):
                    if desc.type == FieldDescriptor.TYPE_MESSAGE:
                        self.fill(target.add(), depth + 1)
                    else:
                        target.append(self._scalar(desc))
            elif desc.type == FieldDescriptor.TYPE_MESSAGE:
                self.fill(getattr(msg, desc.name), depth + 1)
            else:
                # A value protobuf itself refuses to hold is simply not sent.
                with contextlib.suppress(ValueError, TypeError):
                    setattr(msg, desc.name, self._scalar(desc))

    def metadata(self) -> tuple:
        rng, h = self.rng, self.harvest
        roll = rng.random()
        entries = []
        if roll < 0.6 and h.tokens:
            entries.append(("authorization", f"Bearer {rng.choice(h.tokens)}"))
        elif roll < 0.7:
            entries.append(("authorization", rng.choice(("Bearer", "Basic abc", "bearer  x",
                                                          "Bearer " + "z" * 3000))))
        if rng.random() < 0.1:
            entries.append(("x-player-token", rng.choice(("e.y.z", "not-a-jwt", "a" * 500))))
        return tuple(entries)

    # --------------------------------------------------------------------------- the calls
    def as_a_seat(self, request) -> tuple | None:
        """Half the time, a seated player's call: its table, its token and, for Act, one of the
        actions the server last said were legal there, so the fuzz reaches the game's rules."""
        h = self.harvest
        if not h.seats or self.rng.random() < 0.5 or "table_id" not in request.DESCRIPTOR.fields_by_name:
            return None
        table_id, token = self.rng.choice(h.seats)
        request.table_id = table_id
        if "action" in request.DESCRIPTOR.fields_by_name and h.legal.get(table_id) \
                and self.rng.random() < 0.8:
            request.action.CopyFrom(self.rng.choice(h.legal[table_id]))
            if self.rng.random() < 0.8:       # mostly a well-formed move, to get past the checks
                request.request_id = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
                for name in ("expected_version", "password"):
                    if name in request.DESCRIPTOR.fields_by_name:
                        request.ClearField(name)
        return (("authorization", f"Bearer {token}"),)

    async def call(self, name: str, request=None, metadata: tuple | None = None):
        request_cls, stub, streaming = self._calls[name]
        if request is None:
            request = request_cls()
            self.fill(request)
            metadata = self.as_a_seat(request) if metadata is None else metadata
        metadata = self.metadata() if metadata is None else metadata
        started = time.monotonic()
        answer = None
        try:
            if streaming:
                call = stub(request, metadata=metadata, timeout=self.deadline_s)
                for _ in range(self.rng.randrange(0, 20)):
                    item = await call.read()
                    if item is grpc.aio.EOF:
                        break
                    self.harvest.take(item)
                call.cancel()
                code, detail = grpc.StatusCode.OK, ""
            else:
                answer = await stub(request, metadata=metadata, timeout=self.deadline_s)
                self.harvest.take(answer)
                self._remember_seat(name, request, answer)
                code, detail = grpc.StatusCode.OK, ""
        except grpc.aio.AioRpcError as err:
            code, detail = err.code(), err.details() or ""
        took = time.monotonic() - started
        if took > self.deadline_s * 3 and len(self.report.slow) < 50:
            self.report.slow.append(f"{name} took {took:.1f} s")
        self.report.record(name, code, detail, request)
        return answer

    def _remember_seat(self, name: str, request, answer) -> None:
        h = self.harvest
        if name == "JoinTable" and answer.seat_token:
            h.seats.append((request.table_id, answer.seat_token))
            del h.seats[:-64]
        elif name == "GetLegalActions" and answer.actions:
            h.legal[request.table_id] = list(answer.actions)
            if len(h.legal) > 256:
                h.legal.pop(next(iter(h.legal)))

    async def set_up_tables(self, count: int) -> None:
        """A few real tables (one human seat, bots on the others) whose ids and tokens the fuzz
        then reuses, so requests reach the game's own checks."""
        for _ in range(count):
            created = await self.call("CreateTable", table_service_pb2.CreateTableRequest(
                preset="classic", request_id=str(uuid.uuid4())), ())
            if created is None:
                continue
            host = (("authorization", f"Bearer {created.host_token}"),)
            await self.call("JoinTable", table_service_pb2.JoinTableRequest(
                table_id=created.table_id, display_name="fuzz", request_id=str(uuid.uuid4())), ())
            for _ in range(3):
                await self.call("AddBot", table_service_pb2.AddBotRequest(
                    table_id=created.table_id, request_id=str(uuid.uuid4())), host)

    async def run(self, calls: int, concurrency: int) -> Report:
        names = [m.name for m in SERVICE.methods]
        remaining = calls

        async def worker() -> None:
            nonlocal remaining
            while remaining > 0:
                remaining -= 1
                await self.call(self.rng.choice(names))

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return self.report


async def fuzz(target: str, calls: int, *, seed: int = 0, concurrency: int = 16,
               deadline_s: float = 2.0, tables: int = 4) -> Report:
    async with grpc.aio.insecure_channel(target) as channel:
        fuzzer = Fuzzer(channel, random.Random(seed), deadline_s)
        await fuzzer.set_up_tables(tables)
        return await fuzzer.run(calls, concurrency)


def print_report(report: Report, seconds: float) -> None:
    by_code = Counter()
    for (_rpc, code), n in report.codes.items():
        by_code[code] += n
    print(f"fuzz: {report.calls} calls in {seconds:.1f} s")
    for code, n in by_code.most_common():
        print(f"fuzz: {code} {n}")
    for line in report.faults:
        print(f"fault: {line}")
    for line in report.slow:
        print(f"slow: {line}")
    faults = sum(n for (_rpc, code), n in report.codes.items()
                 if code in {c.name for c in SERVER_FAULTS})
    print(f"bench: fuzz_server_faults {faults} calls")


def add_commands(commands, env) -> None:
    fuzz_cmd = commands.add_parser("fuzz", help="send random and hostile calls of every RPC to a "
                                                "server; exit 1 if any was UNKNOWN or INTERNAL")
    fuzz_cmd.add_argument("--target", default=env("BELOTE_TARGET", "127.0.0.1:50051"),
                          help="HOST:PORT of the server (env BELOTE_TARGET)")
    fuzz_cmd.add_argument("--calls", type=int, default=100_000, help="calls to send (100000)")
    fuzz_cmd.add_argument("--seed", type=int, default=0, help="the same seed sends the same calls")
    fuzz_cmd.add_argument("--concurrency", type=int, default=16, help="calls in flight (16)")
    fuzz_cmd.set_defaults(run=_cmd_fuzz)


def _cmd_fuzz(args) -> int:
    started = time.monotonic()
    report = asyncio.run(fuzz(args.target, args.calls, seed=args.seed,
                              concurrency=args.concurrency))
    print_report(report, time.monotonic() - started)
    return 1 if report.faults else 0
