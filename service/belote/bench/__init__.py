"""``make bench``: every figure the issues ask for, one line each: ``bench: <name> <value> <unit>``.

Each module has ``run() -> [(name, value, unit)]``; ``python -m belote.bench [module ...]`` runs
them all (or the ones named) one after the other, each in its own process so one's threads,
servers and caches do not disturb the next.
"""
