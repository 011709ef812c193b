/**
 * `WorkflowRun`: the Durable Object that holds one remote run. It adapts
 * WebSockets to the run server (`src/remote/run-server.ts`), which does
 * everything else over `DurableObjectSeam`: this file holds no protocol,
 * no storage rule and no check.
 *
 * Invariants:
 * - Sockets are accepted with plain `accept()` (no hibernation), with
 *   `binaryType = "arraybuffer"` set before it, so every binary message
 *   arrives as bytes and is handled synchronously in arrival order; each
 *   reply is sent before the next message is taken.
 * - The admission (run id, issue node id, repository id) comes only from the
 *   headers the routing Worker sets on the upgrade request, never from a
 *   frame; an upgrade without one, or with another than the one this
 *   object's database is bound to (the first admission binds it: an issue
 *   since transferred to another repository names another one), is refused
 *   409 before any socket is accepted, and nothing is written.
 * - Every refusal is JSON `{"error":{"code","message"}}`, as the Worker's.
 * - An upgrade must offer the subprotocol `xmd.remote.v1`, which the
 *   object selects; any other is refused before a socket is accepted.
 * - A socket's close or error ends its connection, and with it ownership,
 *   at once.
 * - Objects and chunks are hashed with `node:crypto`, so the Worker needs
 *   the `nodejs_compat` compatibility flag.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { WEBSOCKET_PROTOCOL } from "../remote/frames.ts";
import { RunServer } from "../remote/run-server.ts";
import { RemoteProtocolError } from "../remote/remote-protocol-error.ts";
import { type Admission, checkAdmission } from "../remote/remote-table.ts";
import { AdmissionRefusal } from "./admission-refusal.ts";
import { DurableObjectSeam, type DurableObjectSqlStorage } from "./durable-object-seam.ts";

/** The headers the routing Worker sets on the upgrade request it forwards. */
export const ADMISSION_HEADERS = {
  runId: "x-xmd-run-id",
  githubHost: "x-xmd-github-host",
  issueNodeId: "x-xmd-issue-node-id",
  repositoryId: "x-xmd-repository-id",
} as const;

/** The part of a Cloudflare server-side WebSocket the object uses. */
interface ServerSocket {
  binaryType: string;
  accept(): void;
  send(message: Uint8Array): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(type: "close" | "error", listener: () => void): void;
}

/** Cloudflare's `WebSocketPair`, found on the global object inside workerd. */
type SocketPair = new () => { 0: unknown; 1: ServerSocket };

/** The Durable Object of one remote run. */
export class WorkflowRun {
  readonly #storage: DurableObjectSqlStorage;
  #server: { admission: Admission; server: RunServer } | undefined;

  /** Wraps the object's SQLite-backed storage; nothing is read until the first upgrade. */
  constructor(ctx: { storage: DurableObjectSqlStorage }) {
    this.#storage = ctx.storage;
  }

  /** Accepts one WebSocket for the run the routing Worker admitted. */
  fetch(request: Request): Response {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return new AdmissionRefusal(426, "upgrade.required", "Expected a WebSocket upgrade")
        .response();
    }
    const offered = (request.headers.get("sec-websocket-protocol") ?? "").split(/\s*,\s*/);
    if (!offered.includes(WEBSOCKET_PROTOCOL)) {
      return new AdmissionRefusal(
        400,
        "upgrade.protocol",
        `The upgrade does not offer ${WEBSOCKET_PROTOCOL}`,
      ).response();
    }
    const admission = admissionOf(request.headers);
    if (admission === undefined) {
      return new AdmissionRefusal(400, "admission.missing", "The upgrade carries no admission")
        .response();
    }
    const server = this.#serverFor(admission);
    if (server instanceof AdmissionRefusal) return server.response();
    const Pair = (globalThis as unknown as { WebSocketPair: SocketPair }).WebSocketPair;
    const pair = new Pair();
    const socket = pair[1];
    // Set before accept(): otherwise binary messages arrive as Blob, read asynchronously.
    socket.binaryType = "arraybuffer";
    socket.accept();
    const connection = server.connect();
    socket.addEventListener("message", (event) => {
      const data = event.data;
      const message = typeof data === "string" || data instanceof ArrayBuffer ? data : "";
      socket.send(connection.receive(message));
    });
    const end = () => {
      connection.close();
      try {
        socket.close(1000, "closed");
      } catch {
        // Already closed: there is nothing left to end.
      }
    };
    socket.addEventListener("close", end);
    socket.addEventListener("error", end);
    return new Response(null, {
      status: 101,
      headers: { "sec-websocket-protocol": WEBSOCKET_PROTOCOL },
      webSocket: pair[0],
    } as ResponseInit);
  }

  /**
   * The server for `admission`: opened on the first upgrade, then only for
   * the same admission. A database bound to another one is refused and not
   * kept open, so a later upgrade with its own admission still opens it.
   */
  #serverFor(admission: Admission): RunServer | AdmissionRefusal {
    if (this.#server === undefined) {
      const seam = new DurableObjectSeam(this.#storage);
      const server = new RunServer(seam, admission, { sha256: nativeSha256 });
      if (server.problem?.code === "run.admission") {
        return new AdmissionRefusal(409, "run.admission", server.problem.message);
      }
      this.#server = { admission, server };
    }
    try {
      checkAdmission(this.#server.admission, admission, "this run's Durable Object");
    } catch (error) {
      if (!(error instanceof RemoteProtocolError)) throw error;
      return new AdmissionRefusal(409, "run.admission", error.message);
    }
    return this.#server.server;
  }
}

/**
 * SHA-256 by workerd's native `node:crypto` (the Worker runs with
 * `nodejs_compat`): about 1.5 GB/s, against a few tens of MB/s for the
 * portable `sha256Hex`, which names every object and chunk the same.
 */
function nativeSha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function admissionOf(headers: Headers): Admission | undefined {
  const runId = headers.get(ADMISSION_HEADERS.runId);
  const githubHost = headers.get(ADMISSION_HEADERS.githubHost);
  const issueNodeId = headers.get(ADMISSION_HEADERS.issueNodeId);
  const repositoryId = headers.get(ADMISSION_HEADERS.repositoryId);
  if (!runId || !githubHost || !issueNodeId || !repositoryId) return undefined;
  return { runId, githubHost, issueNodeId, repositoryId };
}
