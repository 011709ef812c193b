/**
 * `@xmd/workflow/deno`: the local provider. One SQLite database per run
 * (`node:sqlite`, WAL with `synchronous=FULL` while written, one file at
 * rest, read-only connections for reading) under a runs folder, an OS
 * executor lock per run, and the `WorkflowHost` over them.
 *
 * @module
 */
export { NodeSqliteSeam } from "./src/deno/node-sqlite-seam.ts";
export { nativeSha256Hex } from "./src/deno/native-sha256.ts";
export {
  APPLICATION_ID,
  type OpenRunDatabase,
  openRunDatabase,
  readConsistently,
  readRunDatabase,
} from "./src/deno/run-database.ts";
export { ExecutorLock } from "./src/deno/executor-lock.ts";
export {
  checkRunId,
  definitionHash,
  LocalWorkflowHost,
  type LocalWorkflowHostOptions,
} from "./src/deno/local-workflow-host.ts";
export { WorkerShell, WorkerShellError, type WorkerShellOptions } from "./src/deno/worker-shell.ts";
