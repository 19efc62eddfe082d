// @belote/client: the typed client of the Belote server for front-ends (docs/frontend.md).
// This is the package outside a browser; a browser bundle gets ./browser.ts, the same with a
// connect() that needs no transport passed in.
export { BeloteClient, connect, type ConnectOptions, type CreateTableOptions, type JoinTableOptions,
  type QuickPlayOptions, type WatchOptions } from "./client.js";
export { BeloteError, Code, codeName } from "./errors.js";
export { foldEvent, foldEvents, initialState, SPECTATOR, type TableState } from "./fold.js";
export { readState, writeState } from "./saved.js";
export { DEFAULT_RETRY_POLICY, backoff, retryable, withRetries, type RetryPolicy } from "./retry.js";
export { defaultStorage, memoryStorage, webStorage, type KeptSeat, type TokenStorage } from "./storage.js";
export { watchRetryable, watchTable, type WatchTableOptions } from "./stream.js";
export { TableHandle, type ChangeListener, type ConnectionStatus } from "./table.js";
export { requestId, tableServiceClient, withTokens, type TableServiceClient, type Transport }
  from "./transport.js";
// The messages and enums of belote.v1, as protobuf-es generates them (also importable one file
// at a time: "@belote/client/gen/belote/v1/cards_pb").
export * from "./gen/belote/v1/cards_pb.js";
export * from "./gen/belote/v1/errors_pb.js";
export * from "./gen/belote/v1/events_pb.js";
export * from "./gen/belote/v1/ledgers_pb.js";
export * from "./gen/belote/v1/table_service_pb.js";
// To make a message (an Action) by hand: create(ActionSchema, { action: { case: "card", value } }).
export { create } from "@bufbuild/protobuf";
