/**
 * `@xmd/workflow/cloudflare`: the Durable Object provider. The storage engine
 * of `@xmd/workflow` runs unchanged inside a SQLite-backed Durable Object
 * through `DurableObjectSeam`, a `SqlSeam` over `ctx.storage.sql` and
 * `ctx.storage.transactionSync`. `WorkflowRun` is the Durable Object of one
 * remote run: it accepts the runner's and readers' WebSockets and hands
 * every frame to the remote protocol's run server over that seam.
 * `admissionWorker` is the deployed Worker (`src/cloudflare/worker.ts`):
 * it verifies a GitHub Actions OIDC token, rereads the issue the runner
 * names through GitHub, and routes the connection to that issue's one
 * `WorkflowRun`; `deno task build:worker` bundles it for `wrangler deploy`.
 *
 * @example The seam over a Durable Object's storage
 * ```ts
 * import { DurableObjectSeam, type DurableObjectSqlStorage } from "@xmd/workflow/cloudflare";
 *
 * export class WorkflowRun {
 *   readonly seam: DurableObjectSeam;
 *   constructor(ctx: { storage: DurableObjectSqlStorage }) {
 *     this.seam = new DurableObjectSeam(ctx.storage);
 *   }
 * }
 * ```
 *
 * @module
 */
export {
  DurableObjectSeam,
  type DurableObjectSql,
  type DurableObjectSqlBinding,
  type DurableObjectSqlResult,
  type DurableObjectSqlStorage,
} from "./src/cloudflare/durable-object-seam.ts";
export { ADMISSION_HEADERS, WorkflowRun } from "./src/cloudflare/workflow-run-object.ts";
export {
  admissionWorker,
  type RunNamespace,
  type WorkerEnv,
  type WorkerHandler,
} from "./src/cloudflare/worker.ts";
