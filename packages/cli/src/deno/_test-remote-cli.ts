/**
 * Test support for `xmd workflow --remote` through the real CLI: workerd
 * (miniflare) serving the remote test Worker's `/v1/connect`, a loopback
 * stand-in for the Actions OIDC token service (it logs what it was asked),
 * an Actions event naming an issue, and the CLI as a subprocess with the
 * environment a GitHub Actions job has; a YAML parser (a test-only import)
 * for the example job.
 *
 * @module
 */
import { RemoteWorkerd } from "../../../workflow/src/cloudflare/_test-remote-workerd.ts";
import { TESTDATA } from "../../../workflow/src/deno/_test-workflow-cli.ts";
import { xmdCommandLine, xmdEnvironment, type XmdResult } from "./_run-xmd.ts";

export { TESTDATA };

/** The request token of the fake Actions token service (what `ACTIONS_ID_TOKEN_REQUEST_TOKEN` holds). */
export const REQUEST_TOKEN = "request-token-0123456789";

/** A loopback server that answers every request with `answer` and logs each request's URL. */
export class LoggingServer implements AsyncDisposable {
  /** Every request: its URL and its authorization header. */
  readonly requests: { url: string; authorization: string | null }[] = [];
  readonly #server: Deno.HttpServer<Deno.NetAddr>;

  constructor(answer: (request: Request) => Response | Promise<Response>) {
    this.#server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
      this.requests.push({ url: request.url, authorization: request.headers.get("authorization") });
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

/** The OIDC tokens the fake service hands out: `oidc-<n>-<audience>`, or `expired-…` when told to. */
export class TokenService extends LoggingServer {
  /** The next tokens are refused by the test Worker as expired. */
  expired = false;
  #issued = 0;

  constructor() {
    super((request) => {
      const url = new URL(request.url);
      if (request.headers.get("authorization") !== `Bearer ${REQUEST_TOKEN}`) {
        return new Response("unauthorized", { status: 401 });
      }
      const audience = url.searchParams.get("audience") ?? "";
      const value = `${this.expired ? "expired" : "oidc"}-${++this.#issued}-${audience.length}`;
      return Response.json({ count: 1, value });
    });
  }

  /** The tokens handed out so far. */
  get issued(): number {
    return this.#issued;
  }
}

/** The run id the remote test Worker's `/v1/connect` derives from an issue as given. */
export async function testRunId(issue: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`test\0${issue}`)),
  );
  return "t" + Array.from(digest.slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** workerd, the token service and a folder holding an Actions event, for one test. */
export class RemoteStage implements AsyncDisposable {
  readonly workerd: RemoteWorkerd;
  readonly tokens: TokenService;
  /** A scratch folder (events, exports). */
  readonly dir: string;

  private constructor(workerd: RemoteWorkerd, tokens: TokenService, dir: string) {
    this.workerd = workerd;
    this.tokens = tokens;
    this.dir = dir;
  }

  static async start(): Promise<RemoteStage> {
    const workerd = await RemoteWorkerd.start();
    return new RemoteStage(
      workerd,
      new TokenService(),
      await Deno.makeTempDir({ prefix: "xmd-remote-cli-" }),
    );
  }

  /** The Worker's base URL (http on loopback). */
  get remote(): string {
    return this.workerd.url.href.replace(/\/$/, "");
  }

  /** An Actions event file naming issue `nodeId`. */
  async event(nodeId: string): Promise<string> {
    const path = `${this.dir}/event-${crypto.randomUUID()}.json`;
    await Deno.writeTextFile(
      path,
      JSON.stringify({ action: "opened", issue: { node_id: nodeId } }),
    );
    return path;
  }

  /** The environment of an Actions job with `id-token: write`, plus `env`. */
  jobEnv(env: Record<string, string> = {}): Record<string, string> {
    return {
      ACTIONS_ID_TOKEN_REQUEST_URL: `${this.tokens.url}/token?api-version=2.0`,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: REQUEST_TOKEN,
      ...env,
    };
  }

  /** Every row of the Durable Object of run `id`. */
  dump(id: string): Promise<string> {
    return this.workerd.dump(id);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.tokens[Symbol.asyncDispose]();
    await this.workerd[Symbol.asyncDispose]();
    await Deno.remove(this.dir, { recursive: true });
  }
}

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
