// The server's refusals as one typed error. Every error the server sends carries, in its rich
// details, a google.rpc.ErrorInfo whose `reason` names it for good (docs/api.md, "Error reasons
// and their codes") and, for INVALID_ARGUMENT, a google.rpc.BadRequest naming the field: a
// front-end branches on `reason` and shows `message`.
import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequestSchema, ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";

export { Code };

/** A code as gRPC and docs/api.md name it: Code.InvalidArgument -> "INVALID_ARGUMENT". */
export function codeName(code: Code): string {
  return (Code[code] ?? "Unknown").replace(/(?<=[a-z])(?=[A-Z])/g, "_").toUpperCase();
}

/** A refused or failed call: the gRPC code, the server's reason, message and field. */
export class BeloteError extends Error {
  override readonly name = "BeloteError";
  /** The code by its gRPC name ("FAILED_PRECONDITION"). */
  readonly codeName: string;

  constructor(
    /** The status code. */
    readonly code: Code,
    /** ErrorInfo.reason ("MUST_FOLLOW_SUIT"); "" when the server sent none (a lost connection). */
    readonly reason: string,
    /** The server's message, for people ("you must follow spades"). */
    message: string,
    /** For INVALID_ARGUMENT: the request field at fault ("display_name"); else "". */
    readonly field = "",
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.codeName = codeName(code);
  }

  /** Any error thrown by a call (a ConnectError, a network failure...) as a BeloteError. */
  static from(err: unknown): BeloteError {
    if (err instanceof BeloteError) return err;
    const failed = ConnectError.from(err);
    const reason = failed.findDetails(ErrorInfoSchema)[0]?.reason ?? "";
    const field = failed.findDetails(BadRequestSchema)[0]?.fieldViolations[0]?.field ?? "";
    return new BeloteError(failed.code, reason, failed.rawMessage, field, { cause: err });
  }
}
