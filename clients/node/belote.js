// A small Node.js client of belote.v1.TableService (proto/belote/v1/table_service.proto).
//
// It keeps the two promises a client of this server relies on:
// - a call that fails with UNAVAILABLE or DEADLINE_EXCEEDED is sent again, the very same
//   request with the same request_id: the server answers a repeated request with its first
//   answer and writes nothing twice;
// - a watch stream that breaks (or that the server ends) is opened again from the last
//   sequence seen + 1: every event is yielded once, in order.
//
// Messages are plain objects with the proto's field names (keepCase), enums as their names
// ("BOT_LEVEL_NORMAL", "SUIT_HEARTS"), 64-bit integers as strings, unset fields at their defaults.
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_DIR = path.resolve(__dirname, '..', '..', 'proto');
const RETRY_CODES = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]);
// RESOURCE_EXHAUSTED on a watch: the reader fell behind and the server asks it to reconnect.
const WATCH_RETRY_CODES = new Set([...RETRY_CODES, grpc.status.RESOURCE_EXHAUSTED]);

/** The belote.v1 package, loaded from the .proto files (no generated code). */
function loadPackage(protoDir = PROTO_DIR) {
  const definition = protoLoader.loadSync(path.join(protoDir, 'belote/v1/table_service.proto'), {
    includeDirs: [protoDir],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).belote.v1;
}

/** A fresh, unguessable request id: one per request that changes a table. */
function newRequestId() {
  return crypto.randomUUID();
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A refused call: the gRPC code, its name and the server's message. */
class BeloteError extends Error {
  constructor(err, attempts = 1) {
    const codeName = Object.keys(grpc.status).find((k) => grpc.status[k] === err.code) || 'UNKNOWN';
    super(`${codeName}: ${err.details || err.message}`);
    this.code = err.code;
    this.codeName = codeName;
    this.details = err.details || err.message;
    this.attempts = attempts;
  }
}

class BeloteClient {
  /**
   * @param {string} target host:port (insecure channel)
   * @param {object} [policy] attempts, callTimeoutMs, backoffMs, maxBackoffMs, giveUpAfterMs
   */
  constructor(target, policy = {}) {
    this.policy = {
      attempts: 6, callTimeoutMs: 10000, backoffMs: 100, maxBackoffMs: 2000, giveUpAfterMs: 60000,
      ...policy,
    };
    /** How many calls were sent again, and how many times a watch stream was reopened. */
    this.retries = 0;
    this.reconnects = 0;
    const belote = loadPackage();
    this.stub = new belote.TableService(target, grpc.credentials.createInsecure());
  }

  close() {
    this.stub.close();
  }

  pause(failures) {
    return Math.min(this.policy.maxBackoffMs, this.policy.backoffMs * 2 ** Math.max(0, failures - 1));
  }

  static metadata(token) {
    const md = new grpc.Metadata();
    if (token) md.set('authorization', `Bearer ${token}`);
    return md;
  }

  /** One unary call, retried (same request object, so same request_id) on RETRY_CODES. */
  async call(rpc, request, token) {
    for (let failures = 1; ; failures++) {
      try {
        return await new Promise((resolve, reject) => {
          const deadline = new Date(Date.now() + this.policy.callTimeoutMs);
          this.stub[rpc](request, BeloteClient.metadata(token), { deadline }, (err, reply) =>
            (err ? reject(err) : resolve(reply)));
        });
      } catch (err) {
        if (!RETRY_CODES.has(err.code) || failures >= this.policy.attempts) {
          throw new BeloteError(err, failures);
        }
      }
      this.retries += 1;
      await sleep(this.pause(failures));
    }
  }

  createTable({ preset = 'classic', options = {}, name = '' } = {}) {
    return this.call('CreateTable', { preset, options, name, request_id: newRequestId() });
  }

  joinTable(tableId, displayName, seat) {
    const request = { table_id: tableId, display_name: displayName, request_id: newRequestId() };
    if (seat !== undefined) request.seat = seat;
    return this.call('JoinTable', request);
  }

  addBot(tableId, token, level = 'NORMAL') {
    // BotLevel values carry their prefix since belote.v1 was frozen: 'NORMAL' is BOT_LEVEL_NORMAL.
    const value = level.startsWith('BOT_LEVEL_') ? level : `BOT_LEVEL_${level}`;
    return this.call('AddBot', { table_id: tableId, level: value, request_id: newRequestId() }, token);
  }

  getTable(tableId, token) {
    return this.call('GetTable', { table_id: tableId }, token);
  }

  legalActions(tableId, token) {
    return this.call('GetLegalActions', { table_id: tableId }, token);
  }

  act(tableId, token, action, expectedVersion) {
    const request = { table_id: tableId, action, request_id: newRequestId() };
    if (expectedVersion !== undefined) request.expected_version = expectedVersion;
    return this.call('Act', request, token);
  }

  /**
   * The table's events from `fromSequence` on, resumed after any disconnection:
   * `for await (const event of client.watch(id, token)) { ... }` (break to stop).
   */
  async *watch(tableId, token, fromSequence = 1) {
    let next = Math.max(1, fromSequence);
    let failures = 0;
    let failingSince = null;
    for (;;) {
      const call = this.stub.WatchTable({ table_id: tableId, from_sequence: String(next) },
        BeloteClient.metadata(token));
      call.on('error', () => {}); // errors are read by the loop below; none may go unhandled
      let error = null;
      try {
        for await (const event of call) {
          const sequence = Number(event.sequence);
          if (sequence < next) continue; // seen before a reconnection: never twice
          next = sequence + 1;
          failures = 0;
          failingSince = null;
          yield event;
        }
      } catch (err) {
        if (!WATCH_RETRY_CODES.has(err.code)) throw new BeloteError(err);
        error = err;
      } finally {
        call.cancel();
      }
      // Broken or ended by the server: open it again from `next`, unless it fails too long.
      failures += 1;
      failingSince = failingSince ?? Date.now();
      if (Date.now() - failingSince > this.policy.giveUpAfterMs) {
        throw new BeloteError(error ?? { code: grpc.status.UNAVAILABLE,
          details: 'the server keeps ending the watch stream' }, failures);
      }
      await sleep(this.pause(failures));
      this.reconnects += 1;
    }
  }
}

module.exports = { BeloteClient, BeloteError, loadPackage, newRequestId, grpc };
