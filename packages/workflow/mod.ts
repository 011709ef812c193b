/**
 * `@xmd/workflow`: retained, resumable workflow runs. This module holds the
 * provider-neutral contracts and the storage engine written once over the
 * synchronous SQL seam; `@xmd/workflow/deno` is the local provider.
 *
 * @example The statuses a run can be in
 * ```ts
 * import assert from "node:assert/strict";
 * import { RUN_STATUSES } from "@xmd/workflow";
 * assert.ok(RUN_STATUSES.includes("suspended"));
 * ```
 *
 * @module
 */
export {
  type DocumentExecution,
  HOST_STOP_CODES,
  type HostStopCode,
  type PendingSuspension,
  RUN_STATUSES,
  type RunRecord,
  type RunStatus,
  type StopReason,
} from "./src/contracts/run-record.ts";
export * from "./src/contracts/workflow-errors.ts";
export type * from "./src/contracts/workflow-host.ts";
export type { HeldTransaction, SqlRow, SqlSeam, SqlValue } from "./src/sql/sql-seam.ts";
export { COMMIT_POINTS, type CommitPoint } from "./src/store/commit-points.ts";
export { initializeSchema, isEmptyDatabase, recognizeSchema } from "./src/store/schema.ts";
export {
  type NewRun,
  type RetainedSource,
  RunStore,
  type StoredEvent,
} from "./src/store/run-store.ts";
export {
  checkWorkflowSupport,
  NotAvailableInWorkflowError,
} from "./src/execution/workflow-support.ts";
