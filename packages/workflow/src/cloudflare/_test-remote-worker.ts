/**
 * A test Worker for the remote host: it routes `?run=<id>` to that run's
 * `WorkflowRun` with a fixed admission (issue and repository derived from
 * the id; part 2's Worker verifies and rereads them), and adds one test-only
 * hook: `?run=<id>&dump` answers a dump of every table of the run's object
 * (the contract's dump), so a test can prove a refusal changed nothing;
 * `&ns=<name>` names another object for the same run id, so tests sharing
 * one workerd each get fresh runs under the same ids; and `/v1/connect`, a
 * stand-in for the admitting Worker's route (below).
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

/**
 * The test stand-in for the admitting Worker's route (the CLI's tests until
 * the production Worker serves them): `GET /v1/connect` with
 * `Authorization: Bearer <token>` and `X-Xmd-Issue`, the run id derived from
 * the issue as given (no verification, no reread). A token starting with
 * `expired` is refused as the production Worker refuses one, with a JSON
 * `{error:{code,message}}`; neither header reaches the Durable Object.
 */
async function connect(request: Request, env: { RUN: DurableObjectNamespace }): Promise<Response> {
  const refuse = (status: number, code: string, message: string) =>
    Response.json({ error: { code, message } }, { status });
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
    return refuse(426, "upgrade.required", "Expected a WebSocket upgrade");
  }
  const token = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
  if (token === undefined) return refuse(401, "token.missing", "The request carries no token");
  if (token.startsWith("expired")) return refuse(401, "token.expired", "The token has expired");
  const issue = request.headers.get("x-xmd-issue");
  if (!issue) return refuse(400, "issue.missing", "The request names no issue");
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`test\0${issue}`)),
  );
  const run = "t" +
    Array.from(digest.slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("");
  const headers = new Headers();
  for (const name of ["upgrade", "connection", "sec-websocket-key", "sec-websocket-version"]) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  headers.set("sec-websocket-protocol", request.headers.get("sec-websocket-protocol") ?? "");
  headers.set(ADMISSION_HEADERS.runId, run);
  headers.set(ADMISSION_HEADERS.issueNodeId, `I_${run}`);
  headers.set(ADMISSION_HEADERS.repositoryId, "R_test");
  return await env.RUN.get(env.RUN.idFromName(run)).fetch(new Request(request.url, { headers }));
}

export default {
  fetch(request: Request, env: { RUN: DurableObjectNamespace }): Promise<Response> | Response {
    if (new URL(request.url).pathname === "/v1/connect") return connect(request, env);
    const params = new URL(request.url).searchParams;
    const run = params.get("run");
    const ns = params.get("ns");
    if (!run) return new Response("name a run with ?run=", { status: 400 });
    const headers = new Headers(request.headers);
    headers.set(ADMISSION_HEADERS.runId, run);
    headers.set(ADMISSION_HEADERS.issueNodeId, `I_${run}`);
    headers.set(ADMISSION_HEADERS.repositoryId, "R_test");
    const name = ns === null ? run : `${ns}/${run}`;
    return env.RUN.get(env.RUN.idFromName(name)).fetch(new Request(request, { headers }));
  },
};
