"""A bare grpc.aio TableService: the same RPC shapes as the real one, without a game or a store.

Seats take turns in order, every Act appends a CardPlayed to an in-memory list and every watch
stream gets it: the ceiling a gRPC service in Python reaches on this machine, to compare with.
"""

from __future__ import annotations

import asyncio
import itertools

import grpc

from belote.v1 import cards_pb2
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc as tgrpc

CARD = cards_pb2.Card(suit=cards_pb2.HEARTS, rank=cards_pb2.ACE)


class BareTable:
    def __init__(self) -> None:
        self.events: list[epb.TableEvent] = []
        self.seated = 0
        self.to_act = 1
        self.changed = asyncio.Condition()

    async def append(self, **body) -> epb.TableEvent:
        event = epb.TableEvent(sequence=len(self.events) + 1, **body)
        event.time.GetCurrentTime()
        self.events.append(event)
        async with self.changed:
            self.changed.notify_all()
        return event


class BareService(tgrpc.TableServiceServicer):
    def __init__(self) -> None:
        self.tables: dict[str, BareTable] = {}
        self.ids = itertools.count(1)

    def _seat(self, context) -> int:
        token = dict(context.invocation_metadata()).get("authorization", "")
        return int(token.rsplit(":", 1)[-1])

    async def CreateTable(self, request, context):
        table_id = f"bare{next(self.ids)}"
        self.tables[table_id] = BareTable()
        return pb.CreateTableResponse(table_id=table_id, host_token="host")

    async def JoinTable(self, request, context):
        table = self.tables[request.table_id]
        table.seated += 1
        await table.append(seat_joined=epb.SeatJoined(seat=request.seat, display_name=request.display_name))
        if table.seated == 4:
            await table.append(deal_started=epb.DealStarted(deal_number=1, dealer=0))
        return pb.JoinTableResponse(seat=request.seat, seat_token=f"t:{request.seat}")

    async def GetLegalActions(self, request, context):
        table = self.tables[request.table_id]
        seat = self._seat(context)
        return pb.GetLegalActionsResponse(version=len(table.events), seat=seat,
                                          your_turn=table.to_act == seat,
                                          actions=[cards_pb2.Action(card=CARD)])

    async def Act(self, request, context):
        table = self.tables[request.table_id]
        seat = self._seat(context)
        table.to_act = (seat + 1) & 3
        event = await table.append(card_played=epb.CardPlayed(seat=seat, card=request.action.card))
        return pb.ActResponse(version=event.sequence, events=[event])

    async def WatchTable(self, request, context):
        table = self.tables[request.table_id]
        sent = max(request.from_sequence, 1) - 1
        while True:
            while sent < len(table.events):
                yield table.events[sent]
                sent += 1
            async with table.changed:
                await table.changed.wait_for(lambda n=sent: len(table.events) > n)


async def serve_bare(listen: str = "127.0.0.1:0") -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server()
    tgrpc.add_TableServiceServicer_to_server(BareService(), server)
    port = server.add_insecure_port(listen)
    await server.start()
    return server, port


async def _main(listen: str) -> None:
    server, port = await serve_bare(listen)
    print(f"listening on 127.0.0.1:{port}", flush=True)
    await server.wait_for_termination()


if __name__ == "__main__":
    import sys
    asyncio.run(_main(sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:0"))
