/**
 * Test support: the endpoint runners connect to in tests. It is a loopback
 * WebSocket proxy in front of a run backend: by default the real run server
 * (`src/remote/run-server.ts`, the code the Durable Object runs) over a
 * node:sqlite file per run behind its own loopback `Deno.serve`
 * (`LoopbackRunServer`), or any backend with the same routing (the
 * `WorkflowRun` Durable Object in workerd). The proxy forwards binary frames
 * unchanged, both ways, reaching the backend with the runner's own client
 * (`websocket-client.ts`); it lets a test see what each request carried and
 * drop a connection at a chosen request, before the backend receives it or
 * after it handled it with its reply withheld (a lost connection
 * mid-commit).
 *
 * Both speak only subprotocol `xmd.remote.v1`, route `?run=<id>` with a
 * fixed admission, receive binary frames as `ArrayBuffer`, and end
 * ownership when a socket closes, as the Durable Object does.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { decodeMessage, WEBSOCKET_PROTOCOL } from "../remote/frames.ts";
import { RunServer } from "../remote/run-server.ts";
import { dump } from "../store/run_store_contract.ts";
import { nativeSha256Hex } from "./native-sha256.ts";
import { WebSocketClient } from "./websocket-client.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";

/** Where runs live in a test: a WebSocket URL per run and a dump of its tables. */
export interface RunBackend extends AsyncDisposable {
  /** The WebSocket URL of run `id`. */
  url(id: string): string;
  /** Every row of run `id`'s database (the run store contract's `dump`). */
  dump(id: string): Promise<string>;
}

/** When a test drops the connection carrying a request: before the backend gets it, or after (no reply). */
export type Drop = "before" | "after";

/**
 * Where a test crashes the backend on a request: `received` (the proxy holds
 * it, the backend never gets it), `forwarded` (sent on, no reply awaited),
 * `replied` (the backend's reply withheld from the runner) or `delivered`
 * (the reply passed to the runner, nothing after it). Nothing the runner
 * sends after the request reaches the backend, a frame pipelined behind it
 * included.
 */
export type CrashPoint = "received" | "forwarded" | "replied" | "delivered";

/** A crash a test arms: at the first request `match` accepts, `crash()` runs at `at`. */
export interface Crash {
  /** Whether this request (its header, with the frontier last replied on this connection) is the one. */
  match(header: Record<string, unknown>, frontier: unknown): boolean;
  /** When, relative to the request. */
  at: CrashPoint;
  /** Crashes the backend, synchronously (SIGKILL): nothing later reaches it. */
  crash(): void;
}

/** The run server over node:sqlite files behind a loopback WebSocket. */
export class LoopbackRunServer implements RunBackend {
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #dir: string;
  readonly #runs = new Map<string, { seam: NodeSqliteSeam; server: RunServer }>();

  private constructor(dir: string) {
    this.#dir = dir;
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => this.#accept(request),
    );
  }

  /** Starts one, keeping its run databases in a new temporary folder. */
  static async start(): Promise<LoopbackRunServer> {
    return new LoopbackRunServer(await Deno.makeTempDir({ prefix: "xmd-remote-server-" }));
  }

  url(id: string): string {
    return `ws://127.0.0.1:${this.#server.addr.port}/?run=${encodeURIComponent(id)}`;
  }

  dump(id: string): Promise<string> {
    return Promise.resolve(dump(this.#run(id).seam));
  }

  #run(id: string): { seam: NodeSqliteSeam; server: RunServer } {
    let run = this.#runs.get(id);
    if (!run) {
      const seam = new NodeSqliteSeam(new DatabaseSync(join(this.#dir, `${id}.db`)));
      const server = new RunServer(
        seam,
        { runId: id, githubHost: "github.com", issueNodeId: `I_${id}`, repositoryId: "R_test" },
        { sha256: nativeSha256Hex },
      );
      run = { seam, server };
      this.#runs.set(id, run);
    }
    return run;
  }

  #accept(request: Request): Response {
    const id = new URL(request.url).searchParams.get("run");
    const protocols = (request.headers.get("sec-websocket-protocol") ?? "").split(/\s*,\s*/);
    if (id === null || request.headers.get("upgrade") !== "websocket") {
      return new Response("not a run", { status: 404 });
    }
    if (!protocols.includes(WEBSOCKET_PROTOCOL)) return new Response("protocol", { status: 400 });
    const { socket, response } = Deno.upgradeWebSocket(request, { protocol: WEBSOCKET_PROTOCOL });
    socket.binaryType = "arraybuffer";
    const connection = this.#run(id).server.connect();
    socket.onmessage = (event) => socket.send(connection.receive(event.data));
    socket.onclose = () => connection.close();
    return response;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#server.shutdown();
    for (const run of this.#runs.values()) run.seam[Symbol.dispose]();
    await Deno.remove(this.#dir, { recursive: true });
  }
}

/** The largest message the proxy passes on (above the protocol's bound, so the backend refuses it). */
const UPSTREAM_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The loopback proxy runners connect to, in front of a backend. */
export class TestRemoteServer implements AsyncDisposable {
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #backend: RunBackend;
  readonly #sockets = new Set<WebSocket>();
  readonly #clients = new Set<WebSocketClient>();
  /** Set by a test: drop the connection at the nth request of `type` (1-based). */
  drop: { type: string; nth: number; when: Drop; seen?: number } | undefined;
  /** Set by a test: crash the backend at a request; cleared when it fires. */
  crash: Crash | undefined;
  /** Set when an armed crash fired: from then on nothing is forwarded either way. */
  crashed = false;
  /** The most committed events any reply from the backend carried in its frontier (a test resets it). */
  acknowledged = 0;
  /** How many `hello`s each role sent (for "no acquisition" claims). */
  readonly hellos = { executor: 0, reader: 0 };
  /** Every request received: its type, its size, how many objects (and deltas) and chunks it carried. */
  readonly received: {
    type: string;
    bytes: number;
    objects: number;
    deltas: number;
    chunks: number;
  }[] = [];
  /** Every message received, as sent (to prove what never left a runner). */
  readonly messages: Uint8Array[] = [];

  private constructor(backend: RunBackend) {
    this.#backend = backend;
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => this.#accept(request),
    );
  }

  /** Starts a proxy in front of `backend` (default: a new `LoopbackRunServer`, disposed with it). */
  static async start(backend?: RunBackend): Promise<TestRemoteServer> {
    return new TestRemoteServer(backend ?? await LoopbackRunServer.start());
  }

  /** The base URL; a run is at `?run=<id>`. */
  get base(): string {
    return `ws://127.0.0.1:${this.#server.addr.port}/`;
  }

  /** The URL of run `id`. */
  urlOf(id: string): string {
    return `${this.base}?run=${encodeURIComponent(id)}`;
  }

  /** Every row of run `id`'s database. */
  dump(id: string): Promise<string> {
    return this.#backend.dump(id);
  }

  /** Run `id`'s acquisition epoch, from its dump. */
  async epoch(id: string): Promise<number> {
    const line = (await this.dump(id)).split("\n").find((row) => row.startsWith("xmd_remote: "));
    return JSON.parse(line!.slice("xmd_remote: ".length)).epoch;
  }

  #accept(request: Request): Response {
    const id = new URL(request.url).searchParams.get("run");
    const protocols = (request.headers.get("sec-websocket-protocol") ?? "").split(/\s*,\s*/);
    if (id === null || request.headers.get("upgrade") !== "websocket") {
      return new Response("not a run", { status: 404 });
    }
    if (!protocols.includes(WEBSOCKET_PROTOCOL)) return new Response("protocol", { status: 400 });
    const { socket, response } = Deno.upgradeWebSocket(request, { protocol: WEBSOCKET_PROTOCOL });
    socket.binaryType = "arraybuffer";
    // The upstream is the runner's own client: Deno's built-in one holds back every frame of a few
    // KB for the peer's delayed ACK (RM-61), which made each forwarded commit cost ~44 ms.
    let upstream: WebSocketClient | undefined;
    this.#sockets.add(socket);
    const queued: [Uint8Array, (() => void) | undefined][] = [];
    let withheld: number | undefined;
    let frontier: unknown = null;
    let crashAt: { id: number; at: CrashPoint; crash(): void } | undefined;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.#sockets.delete(socket);
      if (upstream) this.#clients.delete(upstream);
      upstream?.close();
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) {
        socket.close();
      }
    };
    const forward = (data: Uint8Array, onWritten?: () => void) => {
      if (upstream) upstream.send(data, onWritten);
      else queued.push([data, onWritten]);
    };
    const fromUpstream = (data: Uint8Array | string) => {
      if (this.crashed || typeof data === "string") return;
      const reply = this.#header(data);
      if (reply && "frontier" in reply) {
        frontier = reply.frontier;
        const events = (reply.frontier as { events?: unknown } | null)?.events;
        if (typeof events === "number") this.acknowledged = Math.max(this.acknowledged, events);
      }
      if (withheld !== undefined && reply?.re === withheld) {
        end();
        return;
      }
      if (crashAt && reply?.re === crashAt.id) {
        if (crashAt.at === "delivered" && socket.readyState === WebSocket.OPEN) socket.send(data);
        this.crashed = true;
        crashAt.crash();
        end();
        return;
      }
      if (socket.readyState === WebSocket.OPEN) socket.send(data);
    };
    WebSocketClient.connect(this.#backend.url(id), {
      protocol: WEBSOCKET_PROTOCOL,
      maxMessageBytes: UPSTREAM_MAX_MESSAGE_BYTES,
    }).then((client) => {
      if (ended) {
        client.close();
        return;
      }
      upstream = client;
      this.#clients.add(client);
      client.start({ onMessage: fromUpstream, onClose: end });
      for (const [message, onWritten] of queued.splice(0)) client.send(message, onWritten);
    }, end);
    socket.onclose = end;
    socket.onmessage = (event) => {
      if (typeof event.data === "string") {
        // Runners send binary frames only; the proxy carries nothing else.
        end();
        return;
      }
      const data = event.data as ArrayBuffer;
      this.messages.push(new Uint8Array(data.slice(0)));
      const header = this.#header(data);
      if (header) this.#log(header, data);
      // Nothing sent after a request a crash is armed on reaches the backend (a pipelined frame
      // behind it included): the crash comes with that request's reply.
      if (this.crashed || crashAt !== undefined) return;
      const crash = this.crash;
      if (crash && header && crash.match(header, frontier)) {
        this.crash = undefined;
        this.crashed = crash.at === "received" || crash.at === "forwarded";
        if (crash.at === "received") {
          crash.crash();
          end();
          return;
        }
        if (crash.at === "forwarded") {
          // Killed once the frame has left this process, whether workerd read it or not.
          forward(new Uint8Array(data), () =>
            setTimeout(() => {
              crash.crash();
              end();
            }, 0));
          return;
        }
        crashAt = { id: Number(header.id), at: crash.at, crash: crash.crash };
      }
      const drop = this.drop;
      if (drop && header?.type === drop.type && (drop.seen = (drop.seen ?? 0) + 1) === drop.nth) {
        this.drop = undefined;
        if (drop.when === "before") {
          end();
          return;
        }
        withheld = Number(header.id);
      }
      forward(new Uint8Array(data));
    };
    return response;
  }

  #header(data: Uint8Array | ArrayBuffer | string): Record<string, unknown> | undefined {
    if (typeof data === "string") return undefined;
    try {
      const { header } = decodeMessage(data instanceof Uint8Array ? data : new Uint8Array(data));
      return typeof header === "object" && header !== null
        ? header as Record<string, unknown>
        : undefined;
    } catch {
      return undefined;
    }
  }

  #log(header: Record<string, unknown>, data: ArrayBuffer): void {
    const type = String(header.type);
    if (type === "hello" && (header.role === "executor" || header.role === "reader")) {
      this.hellos[header.role]++;
    }
    this.received.push({
      type,
      bytes: data.byteLength,
      objects: Array.isArray(header.objects) ? header.objects.length : 0,
      deltas: Array.isArray(header.objects)
        ? header.objects.filter((object) => typeof object?.base === "string").length
        : 0,
      chunks: Array.isArray(header.chunks) ? header.chunks.length : 0,
    });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    for (const socket of this.#sockets) socket.close();
    for (const client of this.#clients) client.close();
    await this.#server.shutdown();
    await this.#backend[Symbol.asyncDispose]();
  }
}
