/**
 * Test support: the admission Worker bundled with `deno bundle` (as
 * `deno task build:worker` does) and served by real workerd through
 * miniflare, with its configuration as bindings (pointing at the loopback
 * fakes of `../deno/_test-github-fakes.ts`).
 *
 * - `entry: "test"` (the default) serves `_test-admission-worker.ts`: the
 *   production Worker plus the dump route, its runs in `TestWorkflowRun`;
 *   `entry: "production"` serves `worker.ts` itself, runs in `WorkflowRun`.
 * - `variants` adds Workers of the same bundle under other configurations
 *   (reached with `fetchVariant`), bound to the same runs' namespace, so a
 *   test shows that a bad configuration refuses without touching a run.
 * - Durable Objects persist in a temporary folder, so `restart()` gives
 *   fresh objects over the same SQLite databases.
 * - `logs` holds everything workerd printed (the Worker's console).
 * - Each entry is bundled once per process; `port` fixes where workerd
 *   listens (a test whose configuration names the Worker's own origin).
 *
 * @example
 * ```ts ignore
 * await using workerd = await AdmissionWorkerd.start({ bindings: config });
 * const { status, socket } = await workerd.connect({ authorization: `Bearer ${token}`, "x-xmd-issue": "octo/app#1" });
 * ```
 *
 * @module
 */
import { Miniflare } from "./_test-miniflare.ts";
import { WEBSOCKET_PROTOCOL } from "../remote/frames.ts";

const PACKAGE = new URL("../../", import.meta.url);
const ENTRIES = {
  test: { file: "src/cloudflare/_test-admission-worker.ts", className: "TestWorkflowRun" },
  production: { file: "src/cloudflare/worker.ts", className: "WorkflowRun" },
} as const;

type MiniflareOptions = ConstructorParameters<typeof Miniflare>[0];

/** The part of miniflare's WebSocket (the client end of an upgrade) a test uses. */
export interface ClientSocket {
  accept(): void;
  send(message: Uint8Array | string): void;
  close(code?: number): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(type: "close", listener: () => void): void;
}

/** How the admission Worker is started. */
export interface AdmissionWorkerdOptions {
  /** The configuration: vars and the secret, as strings. */
  bindings: Record<string, string>;
  /** Which module is served (default `test`). */
  entry?: keyof typeof ENTRIES;
  /** More Workers of the same bundle under other configurations, by name. */
  variants?: Record<string, Record<string, string>>;
  /** The port on 127.0.0.1 to listen on (default: any free one). */
  port?: number;
}

/** An upgrade's answer: a socket (101), or a refusal's status and JSON body. */
export interface Connected {
  /** The HTTP status. */
  status: number;
  /** The subprotocol the server selected (on 101). */
  protocol: string | null;
  /** The refusal's body as text (on anything but 101). */
  body: string;
  /** The client socket (on 101), accepted, replies in order. */
  socket: FrameSocket | undefined;
}

/** Bundles `entry` for workerd, as `deno task build:worker` does. */
export async function bundleWorker(entry: string, output: string): Promise<void> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform=browser", "--format=esm", "-o", output, entry],
    cwd: PACKAGE.pathname,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(`deno bundle failed:\n${new TextDecoder().decode(stderr)}`);
}

const bundles = new Map<keyof typeof ENTRIES, Promise<string>>();

/** `entry` bundled (once per process: each test's workerd serves the same code), made in `dir`. */
function bundled(entry: keyof typeof ENTRIES, dir: string): Promise<string> {
  let script = bundles.get(entry);
  if (script === undefined) {
    script = (async () => {
      await bundleWorker(ENTRIES[entry].file, `${dir}/worker.js`);
      return await Deno.readTextFile(`${dir}/worker.js`);
    })();
    bundles.set(entry, script);
  }
  return script;
}

/** The admission Worker in workerd. */
export class AdmissionWorkerd implements AsyncDisposable {
  /** The miniflare instance. */
  readonly mf: Miniflare;
  readonly #sink: { text: string };
  readonly #dir: string;
  readonly #options: MiniflareOptions;
  #url: URL;

  private constructor(
    mf: Miniflare,
    options: MiniflareOptions,
    url: URL,
    dir: string,
    sink: { text: string },
  ) {
    this.mf = mf;
    this.#sink = sink;
    this.#options = options;
    this.#url = url;
    this.#dir = dir;
  }

  /** Bundles the Worker and starts workerd. */
  static async start(options: AdmissionWorkerdOptions): Promise<AdmissionWorkerd> {
    const dir = await Deno.makeTempDir({ prefix: "xmd-admission-workerd-" });
    const name = options.entry ?? "test";
    const entry = ENTRIES[name];
    const script = await bundled(name, dir);
    const worker = (name: string, bindings: Record<string, string>, own: boolean) => ({
      name,
      modules: true,
      script,
      compatibilityDate: "2026-07-01",
      compatibilityFlags: ["nodejs_compat"],
      bindings,
      durableObjects: {
        RUNS: own
          ? { className: entry.className, useSQLite: true }
          : { className: entry.className, scriptName: "admission", useSQLite: true },
      },
    });
    const sink = { text: "" };
    const decoder = new TextDecoder();
    const mfOptions = {
      workers: [
        worker("admission", options.bindings, true),
        ...Object.entries(options.variants ?? {}).map(([name, b]) => worker(name, b, false)),
      ],
      durableObjectsPersist: `${dir}/objects`,
      ...(options.port === undefined ? {} : { host: "127.0.0.1", port: options.port }),
      handleRuntimeStdio(stdout: NodeStream, stderr: NodeStream) {
        for (const stream of [stdout, stderr]) {
          stream.on("data", (chunk: Uint8Array) => {
            sink.text += decoder.decode(chunk);
          });
        }
      },
    } as MiniflareOptions;
    const mf = new Miniflare(mfOptions);
    try {
      return new AdmissionWorkerd(mf, mfOptions, await mf.ready, dir, sink);
    } catch (error) {
      // A workerd that did not start (its port taken meanwhile, say) leaves nothing behind.
      await mf.dispose().catch(() => {});
      await Deno.remove(dir, { recursive: true });
      throw error;
    }
  }

  /** Everything workerd printed so far. */
  get logs(): string {
    return this.#sink.text;
  }

  /** Its HTTP URL (`<url>/v1/connect` is the route). */
  get url(): URL {
    return this.#url;
  }

  /** Restarts workerd: fresh Durable Object instances over the same databases. */
  async restart(): Promise<void> {
    await this.mf.setOptions(this.#options);
    this.#url = await this.mf.ready;
  }

  /** `GET /v1/connect` with the upgrade, the subprotocol and `headers`, on `worker` (the main one by default). */
  async connect(headers: Record<string, string>, worker?: string): Promise<Connected> {
    const init = {
      headers: { upgrade: "websocket", "sec-websocket-protocol": WEBSOCKET_PROTOCOL, ...headers },
    };
    return await this.#answer(await this.fetch(new URL("/v1/connect", this.#url), init, worker));
  }

  /** A plain request to `worker` (the main one by default). */
  async fetch(url: URL | string, init: RequestInit = {}, worker?: string): Promise<Response> {
    if (worker === undefined) return await this.mf.dispatchFetch(url, init as never) as never;
    // miniflare's Fetcher types do not reach Deno's checker; it is a fetch over workerd.
    const fetcher = await this.mf.getWorker(worker) as unknown as {
      fetch(url: string, init: RequestInit): Promise<Response>;
    };
    return await fetcher.fetch(String(url), init);
  }

  async #answer(response: Response): Promise<Connected> {
    const socket = (response as unknown as { webSocket: ClientSocket | null }).webSocket;
    const protocol = response.headers.get("sec-websocket-protocol");
    if (response.status === 101 && socket) {
      return { status: 101, protocol, body: "", socket: new FrameSocket(socket) };
    }
    return { status: response.status, protocol, body: await response.text(), socket: undefined };
  }

  /** Every row of run `id`'s Durable Object (the run store contract's dump). */
  async dump(id: string): Promise<string> {
    const url = new URL("/_test/dump", this.#url);
    url.searchParams.set("run", id);
    return await (await this.mf.dispatchFetch(url)).text();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.mf.dispose();
    await Deno.remove(this.#dir, { recursive: true });
  }
}

/** The part of a Node readable stream the log capture uses. */
interface NodeStream {
  on(event: "data", listener: (chunk: Uint8Array) => void): void;
}

/** A client socket whose replies come back in order, one per message. */
export class FrameSocket {
  readonly #socket: ClientSocket;
  readonly #waiting: ((reply: Uint8Array) => void)[] = [];
  readonly #closed: Promise<void>;

  constructor(socket: ClientSocket) {
    this.#socket = socket;
    socket.addEventListener("message", (event) => {
      const resolve = this.#waiting.shift();
      if (!resolve) throw new Error("a reply nobody waited for");
      if (!(event.data instanceof ArrayBuffer)) throw new Error("a reply that is not binary");
      resolve(new Uint8Array(event.data));
    });
    this.#closed = new Promise((resolve) => socket.addEventListener("close", () => resolve()));
    socket.accept();
  }

  /** Sends one message; resolves with its reply. */
  send = (message: Uint8Array | string): Promise<Uint8Array> =>
    new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#socket.send(message);
    });

  /** Closes the socket and waits until it is closed. */
  async close(): Promise<void> {
    this.#socket.close(1000);
    await this.#closed;
  }
}
