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

/** How workerd serves the bundled test Worker (in this process or in `_test-workerd-process.ts`). */
export const WORKERD_OPTIONS = {
  modules: true,
  compatibilityDate: "2026-07-01",
  // As in production: the Durable Object hashes with node:crypto.
  compatibilityFlags: ["nodejs_compat"],
  durableObjects: { RUN: { className: "TestWorkflowRun", useSQLite: true } },
} as const;

let bundled: Promise<string> | undefined;

/** The test Worker bundled with `deno bundle --platform=browser` (once per process). */
export function bundleRemoteWorker(): Promise<string> {
  bundled ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "xmd-remote-bundle-" });
    try {
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
      return await Deno.readTextFile(output);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  })();
  return bundled;
}

/** workerd serving the remote test Worker. */
export class RemoteWorkerd implements AsyncDisposable {
  /** The miniflare instance. */
  readonly mf: Miniflare;
  /** Its HTTP URL. */
  readonly url: URL;
  private constructor(mf: Miniflare, url: URL) {
    this.mf = mf;
    this.url = url;
  }

  /** Bundles the Worker and starts workerd. */
  static async start(): Promise<RemoteWorkerd> {
    const mf = new Miniflare({ ...WORKERD_OPTIONS, script: await bundleRemoteWorker() });
    return new RemoteWorkerd(mf, await mf.ready);
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
  }
}
