/**
 * `@xmd/workflow/deno/local`: the local provider's host alone,
 * {@linkcode LocalWorkflowHost}, as `@xmd/workflow/deno` exports it, for a
 * process that runs and inspects local runs only. `@xmd/workflow/deno` also
 * exports the remote host's runner, whose protocol (about a hundred zod
 * schemas of its frames) every importer loads and builds; this entry loads
 * none of it, so `xmd workflow list` and `status` do not pay for a remote
 * host they never reach (`--remote` imports it when it runs).
 *
 * @example Listing the runs of a folder
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalWorkflowHost } from "@xmd/workflow/deno/local";
 *
 * const folder = await Deno.makeTempDir();
 * const listing = await new LocalWorkflowHost(`${folder}/runs`).list();
 * assert.deepEqual(listing, { runs: [], unreadable: [] });
 * await Deno.remove(folder, { recursive: true });
 * ```
 *
 * @module
 */
export {
  type LocalStartOptions,
  LocalWorkflowHost,
  type LocalWorkflowHostOptions,
} from "./src/deno/local-workflow-host.ts";
export type { WorkerShellOptions } from "./src/deno/worker-shell.ts";
