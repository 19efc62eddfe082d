"""``belote play``: a table a person plays at in the terminal (a Textual app).

It is a client like any other: it talks to a server through the Python client library
``belote_client`` (clients/python/), creates a table with three bots or joins a friend's, and
draws what the player's seat may see, refreshed from the table's watch stream.

- ``model``: the table as the player sees it (pure: views and events in, lines of text out);
- ``app``: the Textual app (screen, keys, the watch and act calls);
- ``cli``: ``add_commands(subparsers)``, the ``play`` subcommand of ``belote``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

# belote_client is installed with the project; in a source checkout installed without it, take
# it from clients/python/ beside this package. (find_spec: no import, `belote` starts fast.)
if importlib.util.find_spec("belote_client") is None:  # pragma: no cover
    _CLIENT = Path(__file__).resolve().parents[3] / "clients" / "python"
    if (_CLIENT / "belote_client").is_dir():
        sys.path.insert(0, str(_CLIENT))
