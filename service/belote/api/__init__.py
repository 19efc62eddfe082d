"""The gRPC layer: auth from metadata, calls into the app, AppError -> status codes. No game logic."""
