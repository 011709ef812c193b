/**
 * The production admission Worker (`worker.ts`) with one test-only route
 * in front: `GET /_test/dump?run=<id>` answers a dump of every table of
 * run `id`'s Durable Object (`TestWorkflowRun`, `WorkflowRun` plus the
 * dump), so a test can prove a refusal changed nothing. Every other
 * request goes to the production Worker unchanged. The dump route lives
 * only here, never in `worker.ts`.
 *
 * @module
 */
import { admissionWorker, type WorkerEnv } from "./worker.ts";

export { TestWorkflowRun } from "./_test-remote-worker.ts";

export default {
  fetch(request: Request, env: WorkerEnv): Promise<Response> {
    const url = new URL(request.url);
    const run = url.searchParams.get("run");
    if (url.pathname === "/_test/dump" && run && env.RUNS) {
      return env.RUNS.get(env.RUNS.idFromName(run)).fetch(new Request("https://dump/?dump"));
    }
    return admissionWorker.fetch(request, env);
  },
};
