"""``belote load``: many tables of scripted players against a server, and a bare gRPC server to
compare with (the same RPCs carrying the same messages, replayed from memory: no game, no
store)."""
