"""Belote: a stateless, event-sourced gRPC server running 4-player Belote tables."""
