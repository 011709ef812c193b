/**
 * `@xmd/workflow/deno/interpreter`: Worker Shell's interpreter process
 * started ahead of the start that will run its blocks
 * ({@linkcode prestartInterpreter}), from an entry that loads nothing else.
 * Loading `@xmd/workflow/deno/local` builds the store's, the journal's and
 * the Workspace's schemas first (tens of milliseconds); a command that
 * already knows it will start a document with shell blocks starts the
 * interpreter from here, so just-bash loads in its own process meanwhile
 * (WF-190). Give the result to `LocalWorkflowHost.start` as `prestarted`, or
 * dispose of it (killed, its end awaited).
 *
 * @example An interpreter started early, then disposed of unused
 * ```ts
 * import assert from "node:assert/strict";
 * import { prestartInterpreter } from "@xmd/workflow/deno/interpreter";
 *
 * {
 *   // Undefined only for a process that may not run Deno (no --allow-run).
 *   await using early = prestartInterpreter({ heapLimitMib: 256 });
 *   assert.ok(early !== undefined);
 * } // No start adopted it: leaving the scope killed it and waited for its end.
 * ```
 *
 * @module
 */
export {
  type PrestartedInterpreter,
  prestartInterpreter,
} from "./src/deno/worker-shell-prestart.ts";
export type { WorkerShellOptions } from "./src/deno/worker-shell.ts";
