/**
 * `@xmd/workflow`: retained, resumable workflow runs. This module holds the
 * provider-neutral contracts and the storage engine written once over the
 * synchronous SQL seam; `@xmd/workflow/deno` is the local provider.
 *
 * @example The statuses a run can be in
 * ```ts
 * import { RUN_STATUSES } from "@xmd/workflow";
 * console.log(RUN_STATUSES.includes("suspended")); // true
 * ```
 *
 * @module
 */
export * from "./src/contracts/run-record.ts";
export * from "./src/contracts/workflow-errors.ts";
export type * from "./src/contracts/workflow-host.ts";
export type { SqlRow, SqlSeam, SqlValue } from "./src/sql/sql-seam.ts";
export { COMMIT_POINTS, type CommitPoint } from "./src/store/commit-points.ts";
export {
  FORMAT,
  initializeSchema,
  isEmptyDatabase,
  recognizeSchema,
  SCHEMA_VERSION,
  TABLES,
} from "./src/store/schema.ts";
export { type NewRun, type RetainedSource, RunStore } from "./src/store/run-store.ts";
export {
  executeRun,
  type ExecuteRunOptions,
  type ExecutionResult,
  loadRetainedProgram,
} from "./src/execution/execute-run.ts";
export { discardsChanges, EffectTransactions } from "./src/execution/effect-transactions.ts";
export {
  checkWorkflowSupport,
  NotAvailableInWorkflowError,
  notYetAvailableShell,
} from "./src/execution/workflow-support.ts";
export {
  compareUtf8,
  ROOT_INO,
  Workspace,
  type WorkspaceOptions,
  type WorkspaceStat,
} from "./src/workspace/workspace.ts";
export { WorkspaceFileSystem } from "./src/execution/workspace-file-system.ts";
export { forgetHashes, publishRoot } from "./src/workspace/publish-root.ts";
export {
  fileObject,
  ROOT_FORMAT,
  type Sha256,
  type TreeEntry,
  treeObject,
} from "./src/workspace/root-format.ts";
export {
  FileObjectSchema,
  readChunk,
  readObject,
  TreeObjectSchema,
  verifyRoot,
} from "./src/workspace/verify-root.ts";
export { diffRoots, type RootDiff, type RootEntry, walkRoot } from "./src/workspace/walk-root.ts";
export { liveHardLinks } from "./src/workspace/hard-links.ts";
