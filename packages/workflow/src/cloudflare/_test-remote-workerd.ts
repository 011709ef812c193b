/**
 * Test support: the remote test Worker (`_test-remote-worker.ts`) bundled
 * with `deno bundle` and served by real workerd through miniflare, each run
 * in its own SQLite-backed `TestWorkflowRun`. `base` is the URL a runner
 * names a run under (`?run=<id>`).
 *
 * @module
 */
import { Miniflare } from "./_test-miniflare.ts";

const WORKER = new URL("./_test-remote-worker.ts", import.meta.url);
const PACKAGE = new URL("../../", import.meta.url);

/** workerd serving the remote test Worker. */
export class RemoteWorkerd implements AsyncDisposable {
  /** The miniflare instance. */
  readonly mf: Miniflare;
  /** Its HTTP URL. */
  readonly url: URL;
  readonly #dir: string;

  private constructor(mf: Miniflare, url: URL, dir: string) {
    this.mf = mf;
    this.url = url;
    this.#dir = dir;
  }

  /** Bundles the Worker and starts workerd. */
  static async start(): Promise<RemoteWorkerd> {
    const dir = await Deno.makeTempDir({ prefix: "xmd-remote-workerd-" });
    const output = `${dir}/worker.js`;
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--platform=browser",
        "--format=esm",
        "-o",
        output,
        WORKER.pathname,
      ],
      cwd: PACKAGE.pathname,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (code !== 0) throw new Error(`deno bundle failed:\n${new TextDecoder().decode(stderr)}`);
    const mf = new Miniflare({
      modules: true,
      script: await Deno.readTextFile(output),
      compatibilityDate: "2026-07-01",
      durableObjects: { RUN: { className: "TestWorkflowRun", useSQLite: true } },
    });
    return new RemoteWorkerd(mf, await mf.ready, dir);
  }

  /** The WebSocket base URL a runner names runs under (`?run=<id>`). */
  get base(): string {
    const url = new URL(this.url);
    url.protocol = "ws:";
    return url.href;
  }

  /** Every row of run `id`'s Durable Object (the contract's dump). */
  async dump(id: string): Promise<string> {
    const url = new URL(this.url);
    url.searchParams.set("run", id);
    url.searchParams.set("dump", "");
    return await (await this.mf.dispatchFetch(url)).text();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.mf.dispose();
    await Deno.remove(this.#dir, { recursive: true });
  }
}
