/**
 * The admission Worker, the deployed entry of the remote host: it parses
 * its configuration, admits the request (`admission.ts`) and hands the
 * upgrade to the issue's `WorkflowRun` (`idFromName(runId)`), whose answer
 * it returns unchanged. `wrangler.toml`'s `main` is this module bundled by
 * `deno task build:worker`.
 *
 * Invariants:
 * - The configuration is parsed on every request; while any key is missing
 *   or malformed every request is answered 503 `host.not_configured`, and
 *   the log names the keys, never a value.
 * - The Durable Object gets a fresh request holding only the upgrade, the
 *   subprotocol and the admission (`ADMISSION_HEADERS`); no client header,
 *   token or claim passes through.
 * - Every refusal is JSON `{"error":{"code","message"}}`; the log line of
 *   a refusal holds its status and code (and, for GitHub, the status it
 *   answered), never a token, claim, endpoint or credential.
 *
 * @module
 */
import { WEBSOCKET_PROTOCOL } from "../remote/frames.ts";
import { parseConfig } from "./admission-config.ts";
import { AdmissionRefusal } from "./admission-refusal.ts";
import { admit, CONNECT_PATH } from "./admission.ts";
import { ADMISSION_HEADERS } from "./workflow-run-object.ts";

export { WorkflowRun } from "./workflow-run-object.ts";

/** The part of a Durable Object namespace binding the Worker uses. */
export interface RunNamespace {
  /** The id of the object named `name`. */
  idFromName(name: string): unknown;
  /** The object of `id`. */
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

/** The Worker's bindings: `RUNS` and the configuration (`admission-config.ts`). */
export interface WorkerEnv {
  /** The `WorkflowRun` namespace. */
  RUNS?: RunNamespace;
  /** The configuration's vars and secret. */
  [key: string]: unknown;
}

/** A Worker's `fetch` handler. */
export interface WorkerHandler {
  /** Answers one request. */
  fetch(request: Request, env: WorkerEnv): Promise<Response>;
}

/** The admission Worker (`export default` of the deployed bundle). */
export const admissionWorker: WorkerHandler = {
  /** Admits one request and forwards it to its run's Durable Object, or refuses it. */
  async fetch(request: Request, env: WorkerEnv): Promise<Response> {
    const parsed = parseConfig(env);
    const missing = parsed.ok ? [] : parsed.keys;
    if (typeof env.RUNS?.idFromName !== "function") missing.push("RUNS");
    if (!parsed.ok || missing.length > 0) {
      console.error(`xmd admission: not configured: ${missing.join(", ")} missing or malformed`);
      return new AdmissionRefusal(503, "host.not_configured", "The remote host is not configured")
        .response();
    }
    const config = parsed.config;
    const runs = env.RUNS as RunNamespace;
    try {
      const admission = await admit(request, config);
      const forwarded = new Request(`https://workflow-run${CONNECT_PATH}`, {
        headers: {
          upgrade: "websocket",
          "sec-websocket-protocol": WEBSOCKET_PROTOCOL,
          [ADMISSION_HEADERS.runId]: admission.runId,
          [ADMISSION_HEADERS.githubHost]: admission.githubHost,
          [ADMISSION_HEADERS.issueNodeId]: admission.issueNodeId,
          [ADMISSION_HEADERS.repositoryId]: admission.repositoryId,
        },
      });
      return await runs.get(runs.idFromName(admission.runId)).fetch(forwarded);
    } catch (error) {
      if (error instanceof AdmissionRefusal) {
        const cause = typeof error.cause === "string" ? ` (${error.cause})` : "";
        console.warn(`xmd admission: refused ${error.status} ${error.reason}${cause}`);
        return error.response();
      }
      // Only the class: a message could hold a value.
      console.error(`xmd admission: failed (${error instanceof Error ? error.name : "thrown"})`);
      return new AdmissionRefusal(500, "internal", "The remote host failed").response();
    }
  },
};

export default admissionWorker;
