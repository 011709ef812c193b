/**
 * Test support: the remote test Worker served by workerd through miniflare
 * in a child process of its own, its Durable Objects persisted to a
 * directory, so a test can SIGKILL workerd (the whole process group: the
 * Deno process running miniflare and its workerd child) and start it again
 * on the same directory, as a crashed host restarts on its disk.
 *
 * Invariants:
 * - The child is the leader of its own process group (`detached`), so
 *   `kill()` reaches workerd itself, not only the process that spawned it;
 *   nothing of the group outlives `kill()`.
 * - A restarted process serves the same runs from the same directory, on a
 *   new port: a caller names runs through `base` after each start.
 * - When the test process ends the child's stdin closes and it disposes
 *   miniflare, so no workerd is left behind by a test that failed.
 *
 * Run as `deno run -A _test-workerd-process.ts <bundle.js> <persist-dir>`:
 * it prints `ready <url>` once workerd listens.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { Miniflare } from "./_test-miniflare.ts";
import { bundleRemoteWorker, WORKERD_OPTIONS } from "./_test-remote-workerd.ts";

const SELF = fileURLToPath(import.meta.url);
const CONFIG = fileURLToPath(new URL("../../../../deno.json", import.meta.url));
const LOCK = fileURLToPath(new URL("../../../../dev.lock", import.meta.url));

/** workerd in a child process, persisting its Durable Objects to a directory. */
export class WorkerdProcess implements AsyncDisposable {
  /** The directory the Durable Objects persist to (kept across restarts). */
  readonly persist: string;
  readonly #script: string;
  #child: Deno.ChildProcess | undefined;
  #url: URL | undefined;

  private constructor(persist: string, script: string) {
    this.persist = persist;
    this.#script = script;
  }

  /** Bundles the Worker and starts workerd persisting to a new temporary directory. */
  static async start(): Promise<WorkerdProcess> {
    const persist = await Deno.makeTempDir({ prefix: "xmd-workerd-persist-" });
    const script = `${persist}.worker.js`;
    await Deno.writeTextFile(script, await bundleRemoteWorker());
    const process = new WorkerdProcess(persist, script);
    await process.restart();
    return process;
  }

  /** Starts workerd again on the same directory (after `kill()`). */
  async restart(): Promise<void> {
    if (this.#child) throw new Error("workerd is still running");
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        `--config=${CONFIG}`,
        `--lock=${LOCK}`,
        SELF,
        this.#script,
        this.persist,
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
      detached: true,
    }).spawn();
    this.#child = child;
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`workerd did not start: ${seen}`);
      seen += value;
    }
    reader.releaseLock();
    const line = seen.slice(0, seen.indexOf("\n"));
    if (!line.startsWith("ready ")) throw new Error(`workerd did not start: ${line}`);
    this.#url = new URL(line.slice("ready ".length));
  }

  /** SIGKILLs the process group (miniflare's process and workerd) and waits for it to die. */
  async kill(): Promise<void> {
    this.killNow();
    await this.reaped();
  }

  /**
   * Sends SIGKILL to the process group at once, synchronously: nothing this
   * process does after the call reaches workerd. `kill()` then waits for it.
   */
  killNow(): void {
    const child = this.#child;
    if (!child) return;
    this.#url = undefined;
    try {
      Deno.kill(-child.pid, "SIGKILL");
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }

  /** Whether workerd is up (started and not killed). */
  get running(): boolean {
    return this.#url !== undefined;
  }

  /** The WebSocket base URL a runner names runs under (`?run=<id>`) while workerd is up. */
  get base(): string {
    if (!this.#url) throw new Error("workerd is not running");
    const url = new URL(this.#url);
    url.protocol = "ws:";
    return url.href;
  }

  /** Every row of run `id`'s Durable Object (the contract's dump). */
  async dump(id: string): Promise<string> {
    if (!this.#url) throw new Error("workerd is not running");
    const url = new URL(this.#url);
    url.searchParams.set("run", id);
    url.searchParams.set("dump", "");
    return await (await fetch(url)).text();
  }

  /** Waits until the killed child is reaped, so a restart may follow. */
  async reaped(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    await child.status;
    await child.stdout.cancel().catch(() => {});
    this.#child = undefined;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.kill();
    await Deno.remove(this.persist, { recursive: true });
    await Deno.remove(this.#script);
  }
}

if (import.meta.main) {
  const [script, persist] = Deno.args;
  const mf = new Miniflare({
    ...WORKERD_OPTIONS,
    script: await Deno.readTextFile(script),
    host: "127.0.0.1",
    port: 0,
    durableObjectsPersist: persist,
  });
  const url = await mf.ready;
  await Deno.stdout.write(new TextEncoder().encode(`ready ${url.href}\n`));
  // Until the test process goes away (or SIGKILL, which is the point).
  for await (const _ of Deno.stdin.readable) { /* nothing is sent */ }
  await mf.dispose();
}
