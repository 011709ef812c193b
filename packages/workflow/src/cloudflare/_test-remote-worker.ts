/**
 * A test Worker for the remote host: it routes `?run=<id>` to that run's
 * `WorkflowRun` with a fixed admission (issue and repository derived from
 * the id; part 2's Worker verifies and rereads them), and adds one test-only
 * hook: `?run=<id>&dump` answers a dump of every table of the run's object
 * (the contract's dump), so a test can prove a refusal changed nothing;
 * `&ns=<name>` names another object for the same run id, so tests sharing
 * one workerd each get fresh runs under the same ids. The admitting
 * Worker's route is the production one's (`_test-admission-worker.ts`).
 * Bundled and served by real workerd (miniflare) in `remote_object_test.ts`.
 *
 * @module
 */
import { dump } from "../store/run_store_contract.ts";
import { DurableObjectSeam, type DurableObjectSqlStorage } from "./durable-object-seam.ts";
import { ADMISSION_HEADERS, WorkflowRun } from "./workflow-run-object.ts";

interface DurableObjectNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

/** `WorkflowRun` with the dump hook. */
export class TestWorkflowRun extends WorkflowRun {
  readonly #storage: DurableObjectSqlStorage;

  constructor(ctx: { storage: DurableObjectSqlStorage }) {
    super(ctx);
    this.#storage = ctx.storage;
  }

  override fetch(request: Request): Response {
    if (new URL(request.url).searchParams.has("dump")) {
      return new Response(dump(new DurableObjectSeam(this.#storage)));
    }
    return super.fetch(request);
  }
}

export default {
  fetch(request: Request, env: { RUN: DurableObjectNamespace }): Promise<Response> | Response {
    const params = new URL(request.url).searchParams;
    const run = params.get("run");
    const ns = params.get("ns");
    if (!run) return new Response("name a run with ?run=", { status: 400 });
    const headers = new Headers(request.headers);
    headers.set(ADMISSION_HEADERS.runId, run);
    headers.set(ADMISSION_HEADERS.githubHost, "github.com");
    headers.set(ADMISSION_HEADERS.issueNodeId, `I_${run}`);
    headers.set(ADMISSION_HEADERS.repositoryId, "R_test");
    const name = ns === null ? run : `${ns}/${run}`;
    return env.RUN.get(env.RUN.idFromName(name)).fetch(new Request(request, { headers }));
  },
};
