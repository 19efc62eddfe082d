"""Real logs for the review tests: one game per preset, played by the app in process.

Seats mix bots of every level and humans playing random legal actions; humans leave and come
back, lose their connection and find it again, or for good; around the table, players and a
spectator chat, a registered player pays a stake and votes for a rematch, a human's turn timer
runs out once, and every table closes (see EXTRA). Played once per session into a sqlite store
that the CLI tests read back.
"""

from __future__ import annotations

import asyncio
import pathlib

import pytest
from belote.review.sample import sample_logs
from review_helpers import EXTRA, GAMES, SERVER_KEY, Samples


@pytest.fixture(scope="session")
def samples(tmp_path_factory) -> Samples:
    directory = tmp_path_factory.mktemp("review-store")
    games = [(preset, seats, {"options": options, "seed": i, **EXTRA.get(preset, {})})
             for i, (preset, (seats, options)) in enumerate(GAMES.items())]
    exports = asyncio.run(sample_logs(games, directory=str(directory), server_key=SERVER_KEY))
    # The events, and apart the head line each export ends with.
    return Samples(f"sqlite:///{directory}/sample.db", {p: e[:-1] for p, e in zip(GAMES, exports)},
                   {p: e[-1] for p, e in zip(GAMES, exports)})


@pytest.fixture(autouse=True)
def known_keys(tmp_path, monkeypatch) -> pathlib.Path:
    """The reviewer's known-keys file of each test (not made: nothing pinned), never the real
    ~/.config/belote/known_keys; `belote` subprocesses inherit it."""
    path = tmp_path / "known_keys"
    monkeypatch.setenv("BELOTE_KNOWN_KEYS", str(path))
    return path
