/**
 * A refusal received from a run's Durable Object, as the runner raises it:
 * the error class its stable code stands for, so a remote refusal is
 * classified exactly as the local host's (the CLI maps classes to exit
 * codes), and a lost connection as its own error.
 *
 * Invariant: classification is by code, never by message; a code the runner
 * has no class for stays a `RemoteProtocolError` with that code. The message
 * is the Durable Object's, which names no stored value (RM-5).
 *
 * @module
 */
import { XmdError } from "@xmd/core/protocol";
import {
  AnswerRefusedError,
  ExecutorLostError,
  RunBusyError,
  RunConflictError,
  RunNotFoundError,
  type RunNotFoundReason,
  RunStateError,
  type RunStateReason,
  WorkflowDatabaseCorruptError,
  WorkflowDatabaseFormatError,
  WorkflowSchemaVersionError,
} from "../contracts/workflow-errors.ts";
import {
  type RefusalReason,
  type RemoteErrorCode,
  RemoteProtocolError,
} from "./remote-protocol-error.ts";

/** The exit code of a runner whose connection was lost: run it again (EX_TEMPFAIL). */
export const CONNECTION_LOST_EXIT_CODE = 75;

/**
 * The connection to the run's Durable Object closed (or could not be
 * opened). A commit in flight may or may not have landed: the runner rolled
 * its working copy back and repeats nothing; the next acquisition reads the
 * committed frontier and replay decides.
 */
export class RemoteConnectionLostError extends XmdError {
  /** The class name. */
  override name = "RemoteConnectionLostError";
  /** The stable code. */
  readonly code = "connection.lost";
  /** The exit code the CLI ends with ("connection lost, run again"). */
  readonly exitCode: number = CONNECTION_LOST_EXIT_CODE;
}

/**
 * The server in front of the run's Durable Object (the admission Worker)
 * answered the WebSocket upgrade with an HTTP status instead of opening the
 * connection; nothing was sent. Its body (at most 64 KiB, as text) is kept
 * for the caller to parse, never put in the message.
 */
export class RemoteConnectionRefusedError extends XmdError {
  /** The class name. */
  override name = "RemoteConnectionRefusedError";
  /** The stable code. */
  readonly code = "connection.refused";
  /** The HTTP status. */
  readonly status: number;
  /** The response body as text. */
  readonly body: string;

  /** A refusal with `status` and `body`. */
  constructor(status: number, body: string) {
    super(`The server refused the connection to the run's Durable Object with HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

/**
 * The remote host refused the connection before any frame: its admission
 * (the token, the issue, its own configuration) said no. The message is the
 * admitting Worker's, which names the failed check, never a value; nothing
 * was sent or changed.
 */
export class RemoteAdmissionError extends XmdError {
  /** The class name. */
  override name = "RemoteAdmissionError";
  /** The stable code. */
  readonly code = "remote.refused";
  /** The HTTP status of the refusal. */
  readonly status: number;

  /** A refusal with the Worker's `message` and its HTTP `status`. */
  constructor(message: string, status: number, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
  }
}

/**
 * A request the remote host does not serve (a remote run is found by its
 * issue, not listed); nothing was sent or changed.
 */
export class RemoteUnsupportedError extends XmdError {
  /** The class name. */
  override name = "RemoteUnsupportedError";
  /** The stable code. */
  readonly code = "remote.unsupported";
}

const BY_CODE: Partial<Record<RemoteErrorCode, new (message: string) => Error>> = {
  "run.busy": RunBusyError,
  "run.conflict": RunConflictError,
  "answer.refused": AnswerRefusedError,
  "executor.lost": ExecutorLostError,
  "frontier.stale": ExecutorLostError,
  "db.corrupt": WorkflowDatabaseCorruptError,
  "db.format": WorkflowDatabaseFormatError,
  "db.version": WorkflowSchemaVersionError,
};

/**
 * The error an `error` reply with `code`, `message` and `reason` stands for:
 * a store refusal with the reason it was raised for (the CLI's advice
 * depends on it), so it is the local host's refusal for the same state.
 */
export function refusalOf(code: RemoteErrorCode, message: string, reason?: RefusalReason): Error {
  if (code === "run.state") {
    return new RunStateError(message, isStateReason(reason) ? reason : "state");
  }
  if (code === "run.not_found") {
    return new RunNotFoundError(message, isNotFoundReason(reason) ? reason : "missing");
  }
  const type = BY_CODE[code];
  return type ? new type(message) : new RemoteProtocolError(code, message);
}

function isStateReason(reason: RefusalReason | undefined): reason is RunStateReason {
  return reason === "state" || reason === "answer-waiting" || reason === "secret-stop" ||
    reason === "no-such-event";
}

function isNotFoundReason(reason: RefusalReason | undefined): reason is RunNotFoundReason {
  return reason === "missing" || reason === "unfinished-start" || reason === "invalid-id";
}
