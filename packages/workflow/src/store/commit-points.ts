/**
 * The commit points of the storage engine: every outermost transaction the
 * run store (and schema initialization) opens is named by one of these, so a
 * provider can observe exactly which durable step is committing (the local
 * provider's failpoints kill a process right before or after one).
 *
 * @module
 */

/** The names of the storage engine's transactions. */
export const COMMIT_POINTS = [
  "initialize", // an empty database receives schema version 2
  "upgrade", // a version-1 database becomes version 2 (its version rows only)
  "create", // a run, its retained definition and its first execution
  "append", // one journal event (including a `suspension_request`)
  "consume-answer", // a `suspension_answer` event and the deletion of its pending answer
  "settle", // an execution ends: suspended, completed, failed or interrupted (locally with its root Close)
  "store-answer", // `answer` stores one pending answer
  "recover-stale", // a stale `running` execution is closed as interrupted
  "begin-execution", // `resume` opens a new execution
  "cancel", // `cancel` ends a suspended or interrupted run
  "workspace-effect", // a live Workspace effect: its changes, the new root and its journal event
] as const;

/** The name of one of the storage engine's transactions. */
export type CommitPoint = typeof COMMIT_POINTS[number];
