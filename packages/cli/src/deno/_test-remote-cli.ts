/**
 * Test support for `xmd workflow --remote` through the real CLI against the
 * production admission Worker: `worker.ts` bundled and served by workerd
 * (miniflare) with its configuration as bindings, the test-only dump route
 * in front (`_test-admission-worker.ts`); the loopback fakes it is
 * configured with (`_test-github-fakes.ts`): the Actions OIDC issuer, whose
 * JWKS the Worker verifies tokens against and whose token endpoint the CLI
 * reaches through `ACTIONS_ID_TOKEN_REQUEST_URL`, and GitHub's GraphQL API,
 * which the Worker rereads each issue from; the CLI as a subprocess with
 * the environment of an Actions job; a YAML parser (a test-only import) for
 * the example job.
 *
 * Invariants:
 * - The Worker's audience is its own origin, what the CLI asks its token
 *   for by default: the port is chosen before workerd starts.
 * - A run id is never made up here: it is `issueRunId` of the issue's node
 *   id as GitHub answers it, the Worker's derivation.
 * - `secrets()` is every value no output may hold: each token the issuer
 *   handed out, each job's request token, the Worker's GitHub token, and the
 *   two services' endpoints.
 *
 * @module
 */
import assert from "node:assert/strict";
import { AdmissionWorkerd } from "../../../workflow/src/cloudflare/_test-admission-workerd.ts";
import {
  FakeGitHub,
  type FakeIssue,
  FakeOidcIssuer,
  type FakeRepository,
  type MintOptions,
} from "../../../workflow/src/deno/_test-github-fakes.ts";
import { TESTDATA } from "../../../workflow/src/deno/_test-workflow-cli.ts";
import { issueRunId } from "../../../workflow/src/remote/run-id.ts";
import { xmdCommandLine, xmdEnvironment, type XmdResult } from "./_run-xmd.ts";

export { issueReference } from "../../../workflow/src/deno/_test-github-fakes.ts";
export { TESTDATA };

/** The GitHub host the Worker is configured for (`XMD_GITHUB_HOST`). */
export const GITHUB_HOST = "github.com";

/** A loopback server that answers every request with `answer` and logs each request's URL. */
export class LoggingServer implements AsyncDisposable {
  /** Every request's URL. */
  readonly requests: string[] = [];
  readonly #server: Deno.HttpServer<Deno.NetAddr>;

  constructor(answer: (request: Request) => Response | Promise<Response>) {
    this.#server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
      this.requests.push(request.url);
      return answer(request);
    });
  }

  /** Its base URL. */
  get url(): string {
    return `http://127.0.0.1:${this.#server.addr.port}`;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#server.shutdown();
  }
}

/** A port on 127.0.0.1 nothing listens on right now. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** The fakes, the admission Worker configured for them, and a scratch folder, for one test. */
export class RemoteStage implements AsyncDisposable {
  /** The Actions OIDC issuer. */
  readonly oidc: FakeOidcIssuer;
  /** GitHub's GraphQL API. */
  readonly github: FakeGitHub;
  /** workerd serving the admission Worker. */
  readonly workerd: AdmissionWorkerd;
  /** `octo/app`, allowlisted: where jobs run and issues are opened unless told otherwise. */
  readonly repository: FakeRepository;
  /** `octo/other`, allowlisted too (a transfer's destination). */
  readonly other: FakeRepository;
  /** `octo/stranger`, not allowlisted. */
  readonly stranger: FakeRepository;
  /** A scratch folder (events, exports, runners). */
  readonly dir: string;
  /** The Worker's configuration (its bindings). */
  readonly config: Record<string, string>;

  private constructor(parts: StageParts) {
    this.oidc = parts.oidc;
    this.github = parts.github;
    this.workerd = parts.workerd;
    this.repository = parts.repository;
    this.other = parts.other;
    this.stranger = parts.stranger;
    this.dir = parts.dir;
    this.config = parts.config;
  }

  /** Starts the fakes, then workerd configured for them. */
  static async start(): Promise<RemoteStage> {
    const oidc = await FakeOidcIssuer.start();
    const github = await FakeGitHub.start();
    const repository = github.addRepository("octo/app");
    const other = github.addRepository("octo/other");
    const stranger = github.addRepository("octo/stranger");
    // The port is chosen before workerd binds it, since the audience names it: another process
    // can take it in between, so a start refused for a taken address is retried on another port.
    for (let attempt = 1;; attempt++) {
      try {
        return await RemoteStage.#startOn(freePort(), oidc, github, repository, other, stranger);
      } catch (error) {
        const taken = (error as { code?: unknown }).code === "ERR_ADDRESS_IN_USE";
        if (!taken || attempt === 3) {
          await github[Symbol.asyncDispose]();
          await oidc[Symbol.asyncDispose]();
          throw error;
        }
      }
    }
  }

  static async #startOn(
    port: number,
    oidc: FakeOidcIssuer,
    github: FakeGitHub,
    repository: FakeRepository,
    other: FakeRepository,
    stranger: FakeRepository,
  ): Promise<RemoteStage> {
    const config = {
      XMD_GITHUB_HOST: GITHUB_HOST,
      XMD_GITHUB_API_URL: github.url,
      XMD_OIDC_ISSUER: oidc.issuer,
      XMD_OIDC_JWKS_URL: oidc.jwksUrl,
      // The CLI's default audience: the remote URL's origin.
      XMD_OIDC_AUDIENCE: `http://127.0.0.1:${port}`,
      XMD_REPOSITORIES: "octo/app, octo/other",
      XMD_GITHUB_TOKEN: github.token,
    };
    const workerd = await AdmissionWorkerd.start({ port, bindings: config });
    const dir = await Deno.makeTempDir({ prefix: "xmd-remote-cli-" });
    return new RemoteStage({ oidc, github, workerd, repository, other, stranger, dir, config });
  }

  /** The Worker's base URL (http on loopback), without a trailing slash. */
  get remote(): string {
    return this.workerd.url.origin;
  }

  /** Opens an issue in `repository` (`octo/app` by default). */
  issue(repository: FakeRepository = this.repository): FakeIssue {
    return this.github.addIssue(repository);
  }

  /** The run id the Worker derives for `issue`. */
  runId(issue: FakeIssue): Promise<string> {
    return issueRunId(GITHUB_HOST, issue.id);
  }

  /** An Actions event file naming the issue of node id `nodeId`. */
  async event(nodeId: string): Promise<string> {
    const path = `${this.dir}/event-${crypto.randomUUID()}.json`;
    await Deno.writeTextFile(
      path,
      JSON.stringify({ action: "opened", issue: { node_id: nodeId } }),
    );
    return path;
  }

  /**
   * The environment of an Actions job with `id-token: write` in
   * `job.repository` (`octo/app` by default), its tokens made as
   * `job.mint` says, plus `env`.
   */
  jobEnv(
    env: Record<string, string> = {},
    job: { repository?: FakeRepository; mint?: MintOptions } = {},
  ): Record<string, string> {
    return { ...this.oidc.actionsEnv(job.repository ?? this.repository, job.mint), ...env };
  }

  /** Every row of the Durable Object of run `id`. */
  dump(id: string): Promise<string> {
    return this.workerd.dump(id);
  }

  /** Every value no output, log line or table may hold. */
  secrets(): string[] {
    const endpoints = [this.github.url, this.oidc.url].flatMap((url) => [url, new URL(url).host]);
    const tokens = this.oidc.issued.flatMap((token) => [token, ...token.split(".")]);
    return [...tokens, this.github.token, ...endpoints];
  }

  /** Fails if any of `texts` (or the Worker's log) holds a secret. */
  assertNoSecret(...texts: string[]): void {
    assert.ok(this.oidc.issued.length > 0, "no token was handed out: nothing was checked");
    for (const text of [...texts, this.workerd.logs]) {
      for (const secret of this.secrets()) {
        assert.ok(!text.includes(secret), `a token, credential or endpoint was printed:\n${text}`);
      }
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.workerd[Symbol.asyncDispose]();
    await this.oidc[Symbol.asyncDispose]();
    await this.github[Symbol.asyncDispose]();
    await Deno.remove(this.dir, { recursive: true });
  }
}

/** What a stage is made of. */
type StageParts = Pick<
  RemoteStage,
  "oidc" | "github" | "workerd" | "repository" | "other" | "stranger" | "dir" | "config"
>;

/** Starts `xmd workflow <args>` in `cwd` with `env` (no runs folder: nothing local may be written). */
export function spawnWorkflow(
  args: readonly string[],
  env: Record<string, string>,
  options: { cwd?: string; stdin?: string } = {},
): Deno.ChildProcess {
  const [command, ...rest] = xmdCommandLine(["workflow", ...args]);
  const child = new Deno.Command(command, {
    args: rest,
    cwd: options.cwd ?? TESTDATA,
    clearEnv: true,
    env: xmdEnvironment(env),
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    writer.write(new TextEncoder().encode(options.stdin)).then(() => writer.close());
  }
  return child;
}

/** What a subprocess did, with the signal that ended it. */
export interface Outcome extends XmdResult {
  signal: Deno.Signal | null;
}

/** Waits for `child`. */
export async function outcome(child: Deno.ChildProcess): Promise<Outcome> {
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    signal: output.signal,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** Runs `xmd workflow <args>` and waits for it. */
export async function workflow(
  args: readonly string[],
  env: Record<string, string>,
  options: { cwd?: string; stdin?: string } = {},
): Promise<Outcome> {
  return await outcome(spawnWorkflow(args, env, options));
}
export { parse as parseYaml } from "npm:yaml@^2.9.1";
