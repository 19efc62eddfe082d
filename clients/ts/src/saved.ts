// A folded state kept between two visits (a page's reload): written as text, read back, and the
// stream resumed from `state.version + 1` instead of from the table's first event. Each message
// is kept in its binary form (base64), so the state read back is the state written, field for
// field; a text of another form, or of another table or viewer, gives undefined: fold afresh.
import { fromBinary, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { ChatPostedSchema, DealScoredSchema, YourTurnSchema } from "./gen/belote/v1/events_pb.js";
import { TableSchema } from "./gen/belote/v1/table_service_pb.js";
import type { TableState } from "./fold.js";

const FORM = 1;   // the layout below; another one is not read back

interface Kept {
  form: number; table: string; viewer: number; version: string; deals: string[]; chat: string[];
  rematchVotes: number[]; yourTurn?: string; disconnected: number[]; botsFillTime?: string;
  turnSinceUs: string;
}

function write<D extends DescMessage>(schema: D, message: MessageShape<D>): string {
  return base64Encode(toBinary(schema, message));
}

function read<D extends DescMessage>(schema: D, text: string): MessageShape<D> {
  return fromBinary(schema, base64Decode(text));
}

/** The state as text (JSON), for `readState`. */
export function writeState(state: TableState): string {
  const kept: Kept = {
    form: FORM, table: write(TableSchema, state.table), viewer: state.viewer,
    version: state.version.toString(), deals: state.deals.map((d) => write(DealScoredSchema, d)),
    chat: state.chat.map((c) => write(ChatPostedSchema, c)), rematchVotes: [...state.rematchVotes],
    yourTurn: state.yourTurn && write(YourTurnSchema, state.yourTurn),
    disconnected: [...state.disconnected],
    botsFillTime: state.botsFillTime && write(TimestampSchema, state.botsFillTime),
    turnSinceUs: state.turnSinceUs.toString(),
  };
  return JSON.stringify(kept);
}

/** The state `writeState` wrote for this table and viewer, or undefined (none, another form,
 * another table or viewer, or text that does not read). */
export function readState(text: string | null | undefined, tableId: string,
  viewer: number): TableState | undefined {
  if (!text) return undefined;
  try {
    const kept = JSON.parse(text) as Kept;
    if (kept.form !== FORM || kept.viewer !== viewer) return undefined;
    const table = read(TableSchema, kept.table);
    if (table.tableId !== tableId) return undefined;
    return {
      table, viewer, version: BigInt(kept.version),
      deals: kept.deals.map((d) => read(DealScoredSchema, d)),
      chat: kept.chat.map((c) => read(ChatPostedSchema, c)), rematchVotes: kept.rematchVotes,
      yourTurn: kept.yourTurn === undefined ? undefined : read(YourTurnSchema, kept.yourTurn),
      disconnected: kept.disconnected,
      botsFillTime: kept.botsFillTime === undefined ? undefined : read(TimestampSchema, kept.botsFillTime),
      turnSinceUs: BigInt(kept.turnSinceUs),
    };
  } catch {
    return undefined;
  }
}
