/**
 * Test support until the `WorkflowRun` Durable Object lands: the real run
 * server (`src/remote/run-server.ts`, the code the Durable Object runs) over
 * a node:sqlite file per run, behind a loopback `Deno.serve` WebSocket that
 * routes `?run=<id>` with a fixed admission, as the test Worker will. It
 * speaks only subprotocol `xmd.remote.v1`, receives binary frames as
 * `ArrayBuffer`, and closes ownership when a socket closes, as the Durable
 * Object does. Tests may make it drop a connection at a chosen request,
 * before or after handling it (a lost connection mid-commit).
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { decodeMessage } from "../remote/frames.ts";
import { RunServer } from "../remote/run-server.ts";
import { dump } from "../store/run_store_contract.ts";
import { nativeSha256Hex } from "./native-sha256.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";
import { SUBPROTOCOL } from "./remote-connection.ts";

/** When a test drops the connection carrying a request: before handling it, or after (no reply). */
export type Drop = "before" | "after";

/** A loopback run server for tests. */
export class TestRemoteServer implements AsyncDisposable {
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #dir: string;
  readonly #runs = new Map<string, { seam: NodeSqliteSeam; server: RunServer }>();
  /** Set by a test: drop the connection at the nth request of `type` (1-based). */
  drop: { type: string; nth: number; when: Drop; seen?: number } | undefined;
  /** How many connections were accepted, by role sent in hello (for "no acquisition" claims). */
  readonly hellos = { executor: 0, reader: 0 };
  /** Every request received: its type, its size, and how many objects and chunks it carried. */
  readonly received: { type: string; bytes: number; objects: number; chunks: number }[] = [];

  private constructor(dir: string) {
    this.#dir = dir;
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => this.#accept(request),
    );
  }

  /** Starts a server keeping its run databases in a new temporary folder. */
  static async start(): Promise<TestRemoteServer> {
    return new TestRemoteServer(await Deno.makeTempDir({ prefix: "xmd-remote-server-" }));
  }

  /** The base URL; a run is at `?run=<id>`. */
  get base(): string {
    return `ws://127.0.0.1:${this.#server.addr.port}/`;
  }

  /** The URL of run `id`. */
  urlOf(id: string): string {
    return `${this.base}?run=${encodeURIComponent(id)}`;
  }

  /** Every row of run `id`'s database (see `dump`). */
  dump(id: string): string {
    return dump(this.#run(id).seam);
  }

  /** Run `id`'s acquisition epoch. */
  epoch(id: string): number {
    return Number(this.#run(id).seam.exec("SELECT epoch FROM xmd_remote")[0].epoch);
  }

  #run(id: string): { seam: NodeSqliteSeam; server: RunServer } {
    let run = this.#runs.get(id);
    if (!run) {
      const seam = new NodeSqliteSeam(new DatabaseSync(join(this.#dir, `${id}.db`)));
      const server = new RunServer(
        seam,
        { runId: id, issueNodeId: "I_test", repositoryId: "R_test" },
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
    if (!protocols.includes(SUBPROTOCOL)) return new Response("protocol", { status: 400 });
    const { socket, response } = Deno.upgradeWebSocket(request, { protocol: SUBPROTOCOL });
    socket.binaryType = "arraybuffer";
    const connection = this.#run(id).server.connect();
    socket.onmessage = (event) => {
      const data = event.data as ArrayBuffer | string;
      const type = this.#typeOf(data);
      if (type === "hello") this.#countHello(data);
      if (type !== undefined) this.#log(type, data as ArrayBuffer);
      const drop = this.drop;
      if (drop && type === drop.type && (drop.seen = (drop.seen ?? 0) + 1) === drop.nth) {
        this.drop = undefined;
        if (drop.when === "after") connection.receive(data);
        connection.close();
        socket.close();
        return;
      }
      socket.send(connection.receive(data));
    };
    socket.onclose = () => connection.close();
    return response;
  }

  #typeOf(data: ArrayBuffer | string): string | undefined {
    if (typeof data === "string") return undefined;
    try {
      const { header } = decodeMessage(new Uint8Array(data));
      return (header as { type?: string }).type;
    } catch {
      return undefined;
    }
  }

  #log(type: string, data: ArrayBuffer): void {
    const { header } = decodeMessage(new Uint8Array(data));
    const { objects, chunks } = header as { objects?: unknown[]; chunks?: unknown[] };
    this.received.push({
      type,
      bytes: data.byteLength,
      objects: Array.isArray(objects) ? objects.length : 0,
      chunks: Array.isArray(chunks) ? chunks.length : 0,
    });
  }

  #countHello(data: ArrayBuffer | string): void {
    const { header } = decodeMessage(new Uint8Array(data as ArrayBuffer));
    const role = (header as { role?: string }).role;
    if (role === "executor" || role === "reader") this.hellos[role]++;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#server.shutdown();
    for (const run of this.#runs.values()) run.seam[Symbol.dispose]();
    await Deno.remove(this.#dir, { recursive: true });
  }
}
