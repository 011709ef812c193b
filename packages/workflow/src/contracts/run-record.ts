/**
 * A workflow run as every provider records it: the run record, its stop
 * reason, its document executions and its pending suspension. Every value
 * read back from storage is parsed with these schemas, never cast.
 *
 * @module
 */
import { lazySchema } from "@xmd/core/protocol";
import * as z from "zod/mini";

/** The statuses a run can be in. */
export const RUN_STATUSES = [
  "running",
  "suspended",
  "interrupted",
  "completed",
  "failed",
  "cancelled",
] as const;

/** A run's status. */
export type RunStatus = typeof RUN_STATUSES[number];

/** Why a run is not running: a host condition by code, or a journal event by id. Never free text. */
export type StopReason =
  | { kind: "host"; code: HostStopCode }
  | { kind: "journal"; eventId: number };

/** Host conditions that stop a run. */
export const HOST_STOP_CODES = [
  "interrupted", // Ctrl-C (SIGINT) or SIGTERM
  "crashed", // the executor died; found stale by the next one
  "cancelled", // `xmd workflow cancel`
  "divergence", // the retained definition no longer matches the journal
  "secret_detected", // the secret gate refused what an effect produced (run interrupted)
  "storage_failure", // an append or a transition failed
] as const;

/** A host stop code. */
export type HostStopCode = typeof HOST_STOP_CODES[number];

/** One start or resume of a run's document. */
export interface DocumentExecution {
  /** 1-based, in order. */
  seq: number;
  /** What began it. */
  kind: "start" | "resume";
  /** Milliseconds since the epoch. */
  startedAt: number;
  /** When it ended; null while running (or when its executor died). */
  endedAt: number | null;
  /** The status it ended with. */
  outcome: RunStatus | null;
}

/** A question a suspended run waits on. */
export interface PendingSuspension {
  /** The id to answer, derived from the durable position of its request. */
  suspensionId: string;
  /** The rendered question. */
  question: string;
  /** The JSON Schema the answer must satisfy. */
  schema: unknown;
  /** Whether an answer has been delivered and waits for `resume`. */
  answered: boolean;
}

/** The run record. */
export interface RunRecord {
  /** The run id. */
  id: string;
  /** The root document's label (its file name). */
  document: string;
  /** `Section/Sub`, if the run targets a section. */
  target: string | null;
  /** The definition's identity: SHA-256 over the retained sources and the target. */
  definitionHash: string;
  /** SHA-256 of the canonical JSON of the props (values are stored apart). */
  propsHash: string;
  /** The status. */
  status: RunStatus;
  /** Why it stopped, if it is not running or completed. */
  stopReason: StopReason | null;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Milliseconds since the epoch. */
  updatedAt: number;
  /** How many journal events are committed. */
  eventCount: number;
  /** The Workspace root current after the last committed event. */
  root: string;
}

/** Parses a stored status. */
export const RunStatusSchema: z.ZodMiniType<RunStatus> = lazySchema(() => z.enum(RUN_STATUSES));

/** Parses a stored stop reason. */
export const StopReasonSchema: z.ZodMiniType<StopReason> = lazySchema(() =>
  z.discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("host"), code: z.enum(HOST_STOP_CODES) }),
    z.strictObject({
      kind: z.literal("journal"),
      eventId: z.number().check(z.int(), z.positive()),
    }),
  ])
);
