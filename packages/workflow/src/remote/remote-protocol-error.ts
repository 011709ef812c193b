/**
 * The refusals of the remote protocol, by stable code. A code crosses the
 * wire in an `error` reply (`frames.ts`); its message states what is wrong,
 * naming fields and positions, never a value that was sent or stored.
 *
 * Invariant: every code here is an `ERROR_CODES` code (WF-53); a store
 * error travels as its own code, and `remoteErrorCode` classifies by code,
 * never by `error.name`. Every error it does not know is `internal`, so no
 * thrown value leaks into a reply. A store refusal's reason travels with
 * its code.
 *
 * @module
 */
import { XmdError, type XmdErrorCode } from "@xmd/core/protocol";
import type { RunNotFoundReason, RunStateReason } from "../contracts/workflow-errors.ts";

/** Every code an `error` reply can carry. */
export const REMOTE_ERROR_CODES = [
  "protocol.malformed", // framing, UTF-8, JSON or the header's shape is wrong
  "protocol.version", // the header's `v` is not 1
  "protocol.too_large", // the message is over the 8 MiB bound
  "protocol.text", // a text message: only binary messages are frames
  "protocol.order", // a request before `hello`, or a second `hello`
  "protocol.role", // the connection's role may not send this request
  "run.busy", // another executor holds the run
  "run.not_found", // there is no run yet
  "run.exists", // `create` for a run that exists
  "run.state", // the request does not fit the run's status
  "run.admission", // the run or definition does not belong to this Durable Object
  "run.conflict", // a definition or props that do not match their hashes
  "answer.refused", // an answer refused by the store
  "frontier.stale", // the expected frontier is not the committed one
  "executor.lost", // the executor no longer holds the run
  "object.digest", // an object does not hash to its name
  "object.malformed", // an object does not parse strictly, or is not canonical
  "object.missing", // a reference names nothing stored or sent, or the wrong kind
  "object.size", // a file's chunks do not add up to its size
  "object.unreachable", // a sent object the new root does not reach
  "chunk.digest", // a chunk does not hash to its name or has the wrong length
  "links.invalid", // hard-link groups that do not fit the root
  "settle.invalid", // a settlement whose status and stop reason disagree
  "limit.row", // one value over the row limit
  "limit.staged", // more staged objects than one acquisition may hold
  "limit.message", // a reply that cannot fit one message
  "db.corrupt", // the Durable Object's database is damaged
  "db.format", // the Durable Object holds something that is not a run database
  "db.version", // the Durable Object's schema is newer than this code
  "internal", // anything else: a bug, reported without detail
] as const satisfies readonly XmdErrorCode[];

/** A stable error code of the remote protocol. */
export type RemoteErrorCode = typeof REMOTE_ERROR_CODES[number];

/**
 * The reasons a `run.state` or `run.not_found` refusal travels with (the
 * store's `RunStateReason` and `RunNotFoundReason`), so the runner raises
 * the very refusal the local host raises and the CLI gives the same advice.
 */
export const REFUSAL_REASONS = [
  "state",
  "answer-waiting",
  "secret-stop",
  "no-such-event",
  "missing",
  "unfinished-start",
  "invalid-id",
] as const satisfies readonly (RunStateReason | RunNotFoundReason)[];

/** A reason a refusal travels with. */
export type RefusalReason = typeof REFUSAL_REASONS[number];

/**
 * A frame refused by the remote protocol, with its stable code. It is also
 * how a store error crosses the wire, so besides its own codes it carries
 * theirs (`run.busy`, `db.corrupt`, …).
 */
export class RemoteProtocolError extends XmdError {
  /** The class name. */
  override name = "RemoteProtocolError";
  /** The stable code the refusal travels as. */
  readonly code: RemoteErrorCode;
  /** The store's reason, for a `run.state` or `run.not_found` refusal that has one. */
  readonly reason: RefusalReason | undefined;

  /** A refusal with `code`, saying `message` (and, for a store refusal, its `reason`). */
  constructor(
    code: RemoteErrorCode,
    message: string,
    options?: ErrorOptions & { reason?: RefusalReason },
  ) {
    super(message, options);
    this.code = code;
    this.reason = options?.reason;
  }
}

const REMOTE: ReadonlySet<string> = new Set(REMOTE_ERROR_CODES);

/** Whether the protocol carries `code`. */
function carried(code: string): code is RemoteErrorCode {
  return REMOTE.has(code);
}

const REASONS: ReadonlySet<string> = new Set(REFUSAL_REASONS);

/** The reason a store refusal `error` travels with, if it has one. */
export function refusalReason(error: unknown): RefusalReason | undefined {
  const reason = error instanceof XmdError && "reason" in error ? error.reason : undefined;
  return typeof reason === "string" && REASONS.has(reason) ? reason as RefusalReason : undefined;
}

/** The code `error` travels as: its own when the protocol carries it, else `internal`. */
export function remoteErrorCode(error: unknown): RemoteErrorCode {
  return error instanceof XmdError && carried(error.code) ? error.code : "internal";
}
