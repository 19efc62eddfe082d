"""``belote load``: many tables of scripted players against a server, and a bare gRPC server to
compare with (the same RPC shapes, no game, no store)."""
