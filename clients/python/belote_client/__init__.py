"""belote_client: an asyncio Python client of the Belote server (``belote.v1.TableService``).

    from belote_client import BeloteClient

    async with BeloteClient("127.0.0.1:50051") as client:
        table = await client.create_table("classic", {"target": "501"})
        me = await table.join("Ana")
        for _ in range(3):
            await table.add_bot()
        async for event in me.watch():          # resumed after any disconnection
            ...
            if event.HasField("your_turn"):     # the table waits for you: here is what you may do
                turn = event.your_turn
                await me.act(turn.actions[0], expected_version=turn.version)  # retried if need be

Calls raise :class:`BeloteError` (``code``, ``message``, ``reason``). Requests and replies are
the generated ``belote.v1`` messages (``belote.v1.table_service_pb2`` and friends), which this
package needs importable: they come with the ``belote`` package (``make install``).
"""

from .cards import (
    action_text,
    announcement_text,
    bid_action,
    bid_text,
    card_action,
    card_text,
    contract_text,
    parse_card,
    sort_hand,
)
from .client import BeloteClient, CreatedTable, RetryPolicy, Seat, TableWatch, new_request_id
from .errors import BeloteError
from .fold import TableState, fold_event, fold_events, initial_state

__all__ = [
    "BeloteClient", "BeloteError", "CreatedTable", "RetryPolicy", "Seat", "TableState", "TableWatch",
    "fold_event", "fold_events", "initial_state",
    "action_text", "announcement_text", "bid_action", "bid_text", "card_action", "card_text",
    "contract_text", "new_request_id", "parse_card", "sort_hand",
]
