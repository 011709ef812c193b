/**
 * What a workflow host of this runtime loads only to run a document or to
 * check a run before changing it: the executor (and with it the engine and
 * the document parser), the run verifier, the secret gate, Worker Shell (and
 * its interpreter started ahead of a run's first block), the native
 * SHA-256 (`node:crypto`), and the writer of `export`'s folder (`node:path`,
 * whose first import loads the Node compatibility layer).
 *
 * Invariant: `local-workflow-host.ts` and `remote-workflow-host.ts` reach
 * this module only through `import()`, in the methods that run or change a
 * run, so loading either host (`@xmd/workflow/deno`) and inspecting runs
 * (`xmd workflow list`, `status`, `history`) loads none of it (MDX-82).
 * Everything inspection needs to recognize and parse a run is imported
 * statically.
 *
 * @module
 */
export { createSecretGate, disabledSecretGate } from "@xmd/core";
export { executeRun, loadRetainedProgram } from "../execution/execute-run.ts";
export { definitionHash, verifyRun } from "../execution/verify-run.ts";
export { checkExportTarget, exportDirectory } from "./export-directory.ts";
export { nativeSha256Hex } from "./native-sha256.ts";
export { WorkerShell } from "./worker-shell.ts";
export { interpreterStartProblem } from "./worker-shell-process.ts";
export { PrestartedInterpreter } from "./worker-shell-prestart.ts";
