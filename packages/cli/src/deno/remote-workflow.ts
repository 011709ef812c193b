/**
 * The remote host of `xmd workflow`: `--remote=<url>` (or
 * `XMD_WORKFLOW_REMOTE`) selects it for every command, and the run is the
 * one of a GitHub issue, `--issue=<owner/repo#number>` or `--issue=<node id>`
 * (by default the issue of the Actions event at `GITHUB_EVENT_PATH`), in
 * place of a run id. Each connection authenticates with a GitHub Actions OIDC
 * token for the remote's audience.
 *
 * Invariants:
 * - Everything the user gives is checked before anything is contacted: the
 *   URL (absolute, https, or http on loopback only), the issue, the token
 *   variables. A mistake is one `UsageError` that says what to set and never
 *   echoes the value.
 * - The run id is never computed here: the admitting Worker derives it from
 *   the issue it reread, and the runner learns it from the Durable Object's
 *   `hello`.
 * - The token is asked for once per connection (a run may outlive one) and
 *   travels only in the upgrade's `Authorization` header; no message, log
 *   line or output holds it.
 * - An upgrade the admitting Worker refuses is its refusal: its message,
 *   exit 1; one that fails for any other reason is a lost connection, 75.
 * - Without `--remote` and `XMD_WORKFLOW_REMOTE` nothing here runs: the
 *   local host is used exactly as before.
 *
 * @module
 */
import { type RunListing, RunNotFoundError, type WorkflowHost } from "@xmd/workflow";
import {
  RemoteConnectionLostError,
  RemoteConnectionRefusedError,
  RemoteWorkflowHost,
} from "@xmd/workflow/deno";
import { RemoteAdmissionError } from "@xmd/workflow/deno/internal";
import * as z from "zod";
import type { RemoteChoice } from "./remote-options.ts";
import { UsageError } from "./usage-error.ts";

/** A remote host bound to one issue's run. */
export interface RemoteRun {
  /** The host; `list` answers this issue's run only. */
  host: WorkflowHost;
  /** The run's id, as the Durable Object holding it answers. */
  id: string;
  /** How a printed command names the run: `--issue=<issue>`, and `--remote` when it was typed. */
  name: string;
}

/** An issue as `--issue` takes it: `owner/repo#number`, or a GraphQL node id. */
const ISSUE_REFERENCE = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}#[1-9][0-9]{0,9}$/;
const NODE_ID = /^[A-Za-z0-9_=+\/-]{4,128}$/;

const EventSchema = z.object({ issue: z.object({ node_id: z.string() }) });

/**
 * The issue a remote command addresses: `--issue`, or `issue.node_id` of the
 * Actions event at `GITHUB_EVENT_PATH`.
 */
async function issueOf(
  issue: string | undefined,
  env: Record<string, string | undefined>,
): Promise<string> {
  if (issue !== undefined) {
    if (!ISSUE_REFERENCE.test(issue) && !(NODE_ID.test(issue) && !issue.includes("/"))) {
      throw new UsageError(
        "Invalid --issue: write --issue=<owner/repo#number> (such as octo/app#12) or the issue's node id",
      );
    }
    return issue;
  }
  const path = env.GITHUB_EVENT_PATH;
  if (!path) {
    throw new UsageError(
      "No issue names the remote run: pass --issue=<owner/repo#number>, or run in a GitHub Actions job triggered by an issue event",
    );
  }
  let event: unknown;
  try {
    event = JSON.parse(await Deno.readTextFile(path));
  } catch {
    throw new UsageError(
      "Cannot read the Actions event at GITHUB_EVENT_PATH: pass --issue=<owner/repo#number>",
    );
  }
  const parsed = EventSchema.safeParse(event);
  if (!parsed.success || !NODE_ID.test(parsed.data.issue.node_id)) {
    throw new UsageError(
      "The Actions event at GITHUB_EVENT_PATH names no issue: pass --issue=<owner/repo#number>",
    );
  }
  return parsed.data.issue.node_id;
}

const TokenSchema = z.object({ value: z.string().min(1) });

/** A source of OIDC tokens, checked to be available before anything is contacted. */
function tokenSource(
  remote: URL,
  env: Record<string, string | undefined>,
): () => Promise<string> {
  const requestUrl = env.ACTIONS_ID_TOKEN_REQUEST_URL;
  const requestToken = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
  if (!requestUrl || !requestToken) {
    throw new UsageError(
      "No OIDC token for the remote host: ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN are not set. Run in a GitHub Actions job with `permissions: id-token: write`",
    );
  }
  let endpoint: URL;
  try {
    endpoint = new URL(requestUrl);
  } catch {
    throw new UsageError(
      "ACTIONS_ID_TOKEN_REQUEST_URL is not a URL: run in a GitHub Actions job with `permissions: id-token: write`",
    );
  }
  const audience = env.XMD_WORKFLOW_REMOTE_AUDIENCE || remote.origin;
  endpoint.searchParams.set("audience", audience);
  return async () => {
    let response: Response;
    try {
      response = await fetch(endpoint, { headers: { authorization: `Bearer ${requestToken}` } });
    } catch (error) {
      throw new RemoteConnectionLostError(
        "Cannot get an OIDC token: the Actions token service is unreachable",
        { cause: error },
      );
    }
    if (response.status >= 500) {
      await response.body?.cancel();
      throw new RemoteConnectionLostError(
        `Cannot get an OIDC token: the Actions token service answered HTTP ${response.status}`,
      );
    }
    const parsed = response.ok
      ? TokenSchema.safeParse(await response.json().catch(() => undefined))
      : undefined;
    if (!response.ok) await response.body?.cancel();
    if (!parsed?.success) {
      throw new UsageError(
        `Cannot get an OIDC token: the Actions token service answered ${
          response.ok ? "without a token" : `HTTP ${response.status}`
        }. Check that the job has \`permissions: id-token: write\``,
      );
    }
    return parsed.data.value;
  };
}

/**
 * The run of the issue (`--issue`, else the Actions event's) on the remote
 * host `choice`: the issue and the token variables are checked first, then
 * one reader connection learns the run id.
 */
export async function remoteRun(
  choice: RemoteChoice,
  issueOption: string | undefined,
  env: Record<string, string | undefined>,
): Promise<RemoteRun> {
  const issue = await issueOf(issueOption, env);
  const token = tokenSource(choice.url, env);
  const base = choice.url.href.endsWith("/") ? choice.url : new URL(`${choice.url.href}/`);
  const connect = new URL("v1/connect", base);
  connect.protocol = connect.protocol === "https:" ? "wss:" : "ws:";
  const headers = async () => ({ authorization: `Bearer ${await token()}`, "x-xmd-issue": issue });
  const remote = new RemoteWorkflowHost({ url: () => connect, headers });
  const id = await remote.admittedRun().catch(explained);
  const name = `${choice.byFlag ? `--remote=${choice.url.href} ` : ""}--issue=${issue}`;
  return { host: issueHost(remote, id), id, name };
}

/** `remote` with `list` answering the issue's one run (or none), and refusals explained. */
function issueHost(remote: RemoteWorkflowHost, id: string): WorkflowHost {
  return {
    start: (request, io) => remote.start(request, io).catch(explained),
    resume: (run, io) => remote.resume(run, io).catch(explained),
    answer: (run, suspensionId, value, secretDetection) =>
      remote.answer(run, suspensionId, value, secretDetection).catch(explained),
    inspect: (run) => remote.inspect(run).catch(explained),
    history: (run) => remote.history(run).catch(explained),
    streamHistory: (run, sink) => remote.streamHistory(run, sink).catch(explained),
    list: async (): Promise<RunListing> => {
      try {
        return { runs: [await remote.inspect(id)], unreadable: [] };
      } catch (error) {
        if (error instanceof RunNotFoundError) return { runs: [], unreadable: [] };
        return explained(error);
      }
    },
    export: (run, at, directory, options) =>
      remote.export(run, at, directory, options).catch(explained),
    diff: (run, from, to) => remote.diff(run, from, to).catch(explained),
    cancel: (run) => remote.cancel(run).catch(explained),
    delete: (run) => remote.delete(run).catch(explained),
  };
}

const RefusalSchema = z.object({
  error: z.object({ code: z.string(), message: z.string().min(1) }),
});
/** How much of the Worker's message is shown. */
const MAX_MESSAGE = 500;
/**
 * The Worker's refusals that say it could not ask now (GitHub, or the OIDC
 * issuer's key set, unreachable or failing: RM-77): the same command may be
 * admitted in a moment, so they are a lost connection (exit 75), not a refusal.
 */
const TRANSIENT = new Set(["github.unavailable", "oidc.unavailable"]);

/**
 * Rethrows `error`, an upgrade the admitting Worker refused
 * (`RemoteConnectionRefusedError`) as what it means: with the Worker's
 * `{error:{code,message}}`, a `RemoteAdmissionError` with its message (one
 * line, bounded), or, when the Worker could not ask GitHub or the issuer now,
 * a lost connection with that message; a 5xx without that body (an edge's)
 * a lost connection, to be run again; any other status a refusal naming it.
 * Other errors pass.
 */
function explained(error: unknown): never {
  if (!(error instanceof RemoteConnectionRefusedError)) throw error;
  let refusal: { code: string; message: string } | undefined;
  try {
    refusal = RefusalSchema.parse(JSON.parse(error.body)).error;
  } catch {
    refusal = undefined;
  }
  if (refusal !== undefined) {
    // deno-lint-ignore no-control-regex
    const line = refusal.message.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
    const shown = line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}…` : line;
    if (TRANSIENT.has(refusal.code)) {
      throw new RemoteConnectionLostError(shown, { cause: error });
    }
    throw new RemoteAdmissionError(shown, error.status, { cause: error });
  }
  if (error.status >= 500) {
    throw new RemoteConnectionLostError(
      `Cannot connect to the remote host: it answered HTTP ${error.status}`,
      { cause: error },
    );
  }
  throw new RemoteAdmissionError(
    `The remote host refused the connection (HTTP ${error.status})`,
    error.status,
    { cause: error },
  );
}
