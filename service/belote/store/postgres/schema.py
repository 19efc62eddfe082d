"""The PostgreSQL schema: its migrations (tables, the chain-checking trigger, the append
function), and the runner that applies them as a store opens, one replica at a time."""

from __future__ import annotations

from collections.abc import Callable

import psycopg

from ..migrations import run_migrations

# pg_advisory_xact_lock key taken while migrating: "belote" in ASCII.
MIGRATION_LOCK = 0x62656C6F7465
_GENESIS_SQL = "'\\x" + "00" * 32 + "'::bytea"

# Migration n is MIGRATIONS[n - 1]. Append new ones; never edit a released one.

_M1_INITIAL = f"""
CREATE TABLE table_heads (
    table_id   text   PRIMARY KEY,
    version    bigint NOT NULL CHECK (version >= 0),
    last_hash  bytea  NOT NULL CHECK (length(last_hash) = 32)
);

CREATE TABLE events (
    table_id       text   NOT NULL,
    sequence       bigint NOT NULL CHECK (sequence >= 1),
    type           text   NOT NULL,
    schema_version bigint NOT NULL CHECK (schema_version BETWEEN 0 AND 4294967295),
    payload        bytea  NOT NULL,
    request_id     text   NOT NULL,
    recorded_at_us bigint NOT NULL,
    prev_hash      bytea  NOT NULL CHECK (length(prev_hash) = 32),
    hash           bytea  NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (table_id, sequence)
);

CREATE TABLE requests (
    table_id       text   NOT NULL,
    request_id     text   NOT NULL,
    first_sequence bigint NOT NULL,
    last_sequence  bigint NOT NULL,
    PRIMARY KEY (table_id, request_id)
);

CREATE TABLE table_index (
    table_id       text    PRIMARY KEY,
    status         text    NOT NULL,
    listed         boolean NOT NULL,
    summary        bytea   NOT NULL,
    created_at_us  bigint  NOT NULL,
    updated_at_us  bigint  NOT NULL
);
CREATE INDEX table_index_newest ON table_index (created_at_us DESC, table_id);
CREATE INDEX table_index_status ON table_index (status, created_at_us DESC, table_id);

CREATE TABLE settings (
    name  text  PRIMARY KEY,
    value bytea NOT NULL
);

-- belote.store.chain's layout: STR(s) = U32(byte length) || UTF-8 bytes; U32/U64/I64 big-endian.
CREATE FUNCTION belote_event_hash(prev bytea, tid text, seq bigint, typ text, sv bigint,
                                  rid text, at bigint, body bytea) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT sha256(
        prev
        || int4send(octet_length(convert_to(tid, 'UTF8'))) || convert_to(tid, 'UTF8')
        || int8send(seq)
        || int4send(octet_length(convert_to(typ, 'UTF8'))) || convert_to(typ, 'UTF8')
        || substring(int8send(sv) FROM 5 FOR 4)
        || int4send(octet_length(convert_to(rid, 'UTF8'))) || convert_to(rid, 'UTF8')
        || int8send(at)
        || int4send(length(body)) || body)
$$;

-- Whatever writes an event (this code or anything else), it must extend the table's chain by
-- exactly one: the next sequence, chained onto the last hash, with a correct hash.
CREATE FUNCTION belote_event_follows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    head_version bigint;
    head_hash    bytea;
BEGIN
    SELECT version, last_hash INTO head_version, head_hash
      FROM table_heads WHERE table_id = NEW.table_id FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO table_heads (table_id, version, last_hash)
             VALUES (NEW.table_id, 0, {_GENESIS_SQL}) ON CONFLICT (table_id) DO NOTHING;
        SELECT version, last_hash INTO head_version, head_hash
          FROM table_heads WHERE table_id = NEW.table_id FOR UPDATE;
    END IF;
    IF NEW.sequence <> head_version + 1 THEN
        RAISE EXCEPTION 'table %: event % does not follow the last event %',
              NEW.table_id, NEW.sequence, head_version
              USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.prev_hash <> head_hash THEN
        RAISE EXCEPTION 'table %: event % does not chain onto event %',
              NEW.table_id, NEW.sequence, head_version
              USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.hash IS DISTINCT FROM belote_event_hash(NEW.prev_hash, NEW.table_id, NEW.sequence,
            NEW.type, NEW.schema_version, NEW.request_id, NEW.recorded_at_us, NEW.payload) THEN
        RAISE EXCEPTION 'table %: event % has a wrong hash', NEW.table_id, NEW.sequence
              USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    UPDATE table_heads SET version = NEW.sequence, last_hash = NEW.hash
     WHERE table_id = NEW.table_id;
    RETURN NEW;
END $$;
CREATE TRIGGER events_follow BEFORE INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION belote_event_follows();

-- One append, atomically (the statement is its transaction). outcome:
--   appended:  written; out_version = its last sequence
--   duplicate: the request id was appended before: out_first..out_last are its events
--   conflict:  the table is at out_version, not p_expected
--   rehash:    p_prev is not the hash of event p_expected (out_hash is): hash again
CREATE FUNCTION belote_append(
    p_table text, p_expected bigint, p_request text, p_at bigint, p_prev bytea,
    p_types text[], p_schema_versions bigint[], p_payloads bytea[], p_hashes bytea[],
    p_status text, p_listed boolean, p_summary bytea)
RETURNS TABLE (outcome text, out_version bigint, out_hash bytea, out_first bigint,
               out_last bigint)
LANGUAGE plpgsql AS $$
DECLARE
    head_version bigint;
    head_hash    bytea;
    req          record;
    n            integer := cardinality(p_hashes);
    last_seq     bigint := p_expected + n;
BEGIN
    IF p_expected = 0 THEN  -- a new table: make the head row to lock
        INSERT INTO table_heads AS h (table_id, version, last_hash)
             VALUES (p_table, 0, {_GENESIS_SQL}) ON CONFLICT (table_id) DO NOTHING;
    END IF;
    SELECT h.version, h.last_hash INTO head_version, head_hash
      FROM table_heads h WHERE h.table_id = p_table FOR UPDATE;
    IF NOT FOUND THEN
        head_version := 0;
        head_hash := {_GENESIS_SQL};
    END IF;
    -- After the lock: a request the previous holder committed is seen (new snapshot).
    SELECT r.first_sequence, r.last_sequence INTO req
      FROM requests r WHERE r.table_id = p_table AND r.request_id = p_request;
    IF FOUND THEN
        RETURN QUERY SELECT 'duplicate'::text, head_version, head_hash,
                            req.first_sequence, req.last_sequence;
        RETURN;
    END IF;
    IF head_version <> p_expected THEN
        RETURN QUERY SELECT 'conflict'::text, head_version, head_hash, NULL::bigint, NULL::bigint;
        RETURN;
    END IF;
    IF head_hash <> p_prev THEN
        RETURN QUERY SELECT 'rehash'::text, head_version, head_hash, NULL::bigint, NULL::bigint;
        RETURN;
    END IF;
    INSERT INTO events (table_id, sequence, type, schema_version, payload, request_id,
                        recorded_at_us, prev_hash, hash)
         SELECT p_table, p_expected + i, p_types[i], p_schema_versions[i], p_payloads[i],
                p_request, p_at, CASE WHEN i = 1 THEN p_prev ELSE p_hashes[i - 1] END,
                p_hashes[i]
           FROM generate_series(1, n) AS i ORDER BY i;
    INSERT INTO requests (table_id, request_id, first_sequence, last_sequence)
         VALUES (p_table, p_request, p_expected + 1, last_seq);
    IF p_status IS NOT NULL THEN
        INSERT INTO table_index AS t (table_id, status, listed, summary, created_at_us,
                                      updated_at_us)
             VALUES (p_table, p_status, p_listed, p_summary, p_at, p_at)
        ON CONFLICT (table_id) DO UPDATE SET status = excluded.status,
             listed = excluded.listed, summary = excluded.summary,
             updated_at_us = excluded.updated_at_us;
    END IF;
    RETURN QUERY SELECT 'appended'::text, last_seq, p_hashes[n], p_expected + 1, last_seq;
END $$;

CREATE FUNCTION belote_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME
          USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION belote_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION belote_append_only();
CREATE TRIGGER requests_append_only BEFORE UPDATE OR DELETE ON requests
    FOR EACH ROW EXECUTE FUNCTION belote_append_only();
CREATE TRIGGER requests_no_truncate BEFORE TRUNCATE ON requests
    FOR EACH STATEMENT EXECUTE FUNCTION belote_append_only();
"""

_M2_LEASES = """
CREATE TABLE leases (
    scope     text   NOT NULL,
    holder    text   NOT NULL,
    until_us  bigint NOT NULL,
    PRIMARY KEY (scope, holder)
);
"""


# Requests say what they were (the RPC and a keyed fingerprint of the request), so the same id
# for another request is refused ('reused') instead of answered with another request's events;
# rows from before hold NULL. The key that derived every token leaves the store.
_M3_SCOPED_REQUESTS = f"""
ALTER TABLE requests ADD COLUMN rpc text, ADD COLUMN fingerprint bytea;
-- A client's request id (one with an rpc) names one request on one table only.
CREATE UNIQUE INDEX requests_of_clients ON requests (request_id) WHERE rpc <> '';

CREATE TABLE created_tables (
    request_id text PRIMARY KEY,
    table_id   text NOT NULL
);

DELETE FROM settings WHERE name = 'server_secret';

DROP FUNCTION belote_append(text, bigint, text, bigint, bytea, text[], bigint[], bytea[],
                            bytea[], text, boolean, bytea);
-- As in migration 1, with the request's rpc and fingerprint, and one more outcome:
--   reused: the request id was appended for another rpc or fingerprint, or (a client's, with
--           an rpc) on another table (out_rpc: its rpc)
CREATE FUNCTION belote_append(
    p_table text, p_expected bigint, p_request text, p_at bigint, p_prev bytea,
    p_types text[], p_schema_versions bigint[], p_payloads bytea[], p_hashes bytea[],
    p_status text, p_listed boolean, p_summary bytea, p_rpc text, p_fingerprint bytea)
RETURNS TABLE (outcome text, out_version bigint, out_hash bytea, out_first bigint,
               out_last bigint, out_rpc text)
LANGUAGE plpgsql AS $$
DECLARE
    head_version bigint;
    head_hash    bytea;
    req          record;
    n            integer := cardinality(p_hashes);
    last_seq     bigint := p_expected + n;
BEGIN
    IF p_expected = 0 THEN  -- a new table: make the head row to lock
        INSERT INTO table_heads AS h (table_id, version, last_hash)
             VALUES (p_table, 0, {_GENESIS_SQL}) ON CONFLICT (table_id) DO NOTHING;
    END IF;
    SELECT h.version, h.last_hash INTO head_version, head_hash
      FROM table_heads h WHERE h.table_id = p_table FOR UPDATE;
    IF NOT FOUND THEN
        head_version := 0;
        head_hash := {_GENESIS_SQL};
    END IF;
    -- After the lock: a request the previous holder committed is seen (new snapshot).
    SELECT r.first_sequence, r.last_sequence, r.rpc, r.fingerprint INTO req
      FROM requests r WHERE r.table_id = p_table AND r.request_id = p_request;
    IF FOUND THEN
        -- Another RPC or request under this id (rows from before fingerprints match any).
        IF req.fingerprint IS NOT NULL AND (req.rpc IS DISTINCT FROM p_rpc
                                            OR req.fingerprint <> p_fingerprint) THEN
            RETURN QUERY SELECT 'reused'::text, head_version, head_hash, NULL::bigint,
                                NULL::bigint, req.rpc;
            RETURN;
        END IF;
        RETURN QUERY SELECT 'duplicate'::text, head_version, head_hash,
                            req.first_sequence, req.last_sequence, NULL::text;
        RETURN;
    END IF;
    IF p_rpc <> '' THEN
        SELECT r.rpc INTO req FROM requests r WHERE r.request_id = p_request AND r.rpc <> '';
        IF FOUND THEN  -- a client's id, already used on another table
            RETURN QUERY SELECT 'reused'::text, head_version, head_hash, NULL::bigint,
                                NULL::bigint, req.rpc;
            RETURN;
        END IF;
    END IF;
    IF head_version <> p_expected THEN
        RETURN QUERY SELECT 'conflict'::text, head_version, head_hash, NULL::bigint, NULL::bigint,
                            NULL::text;
        RETURN;
    END IF;
    IF head_hash <> p_prev THEN
        RETURN QUERY SELECT 'rehash'::text, head_version, head_hash, NULL::bigint, NULL::bigint,
                            NULL::text;
        RETURN;
    END IF;
    INSERT INTO events (table_id, sequence, type, schema_version, payload, request_id,
                        recorded_at_us, prev_hash, hash)
         SELECT p_table, p_expected + i, p_types[i], p_schema_versions[i], p_payloads[i],
                p_request, p_at, CASE WHEN i = 1 THEN p_prev ELSE p_hashes[i - 1] END,
                p_hashes[i]
           FROM generate_series(1, n) AS i ORDER BY i;
    INSERT INTO requests (table_id, request_id, first_sequence, last_sequence, rpc, fingerprint)
         VALUES (p_table, p_request, p_expected + 1, last_seq, p_rpc, p_fingerprint);
    IF p_status IS NOT NULL THEN
        INSERT INTO table_index AS t (table_id, status, listed, summary, created_at_us,
                                      updated_at_us)
             VALUES (p_table, p_status, p_listed, p_summary, p_at, p_at)
        ON CONFLICT (table_id) DO UPDATE SET status = excluded.status,
             listed = excluded.listed, summary = excluded.summary,
             updated_at_us = excluded.updated_at_us;
    END IF;
    RETURN QUERY SELECT 'appended'::text, last_seq, p_hashes[n], p_expected + 1, last_seq,
                        NULL::text;
END $$;
"""

MIGRATIONS: tuple[str, ...] = (_M1_INITIAL, _M2_LEASES, _M3_SCOPED_REQUESTS)


def migrate(conninfo: str) -> None:
    """Bring the schema to len(MIGRATIONS), one process at a time (blocking)."""
    with psycopg.connect(conninfo, autocommit=True) as c, c.transaction():
        # Every migrator queues here, even for the very first CREATE TABLE.
        c.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        run_migrations(c, [_executes(sql) for sql in MIGRATIONS])


def _executes(sql: str) -> Callable[[psycopg.Connection], object]:
    return lambda c: c.execute(sql)
