/**
 * One WebSocket to a run's Durable Object (through the Worker that admits
 * it), as the runner holds it: it asks for subprotocol `xmd.remote.v1` (the
 * handshake fails on any other; a server may select none, as every frame
 * names its version), binary frames of `frames.ts`, replies matched to
 * requests by id. The socket is `websocket-client.ts` (no Nagle delay on a
 * frame), not Deno's built-in `WebSocket`.
 *
 * Invariants:
 * - Every received message is parsed strictly (`decodeReply`) before it is
 *   used; one that does not parse, answers no request in flight, or is of
 *   another type than its request closes the connection: after it, no
 *   reply can be trusted to answer what it claims to.
 * - When the socket closes (or never opens), every request in flight and
 *   every later one rejects with `RemoteConnectionLostError`; nothing is
 *   sent again. An upgrade the server answers with another status than 101
 *   is `RemoteConnectionRefusedError` (its status and body; nothing was
 *   opened).
 * - A `ping` goes every 30 s while the connection is open, so the edge
 *   keeps an idle socket open; the timer never keeps the process alive.
 *
 * @module
 */
import {
  decodeReply,
  encodeRequest,
  MAX_MESSAGE_BYTES,
  PROTOCOL_VERSION,
  type Request,
  type RequestType,
  WEBSOCKET_PROTOCOL,
} from "../remote/frames.ts";
import type { CallBody, ChannelReply, RemoteChannel } from "../remote/remote-channel.ts";
import { refusalOf, RemoteConnectionLostError } from "../remote/remote-refusal.ts";
import { WebSocketClient } from "./websocket-client.ts";

/** How often an open connection pings. */
export const PING_INTERVAL_MS = 30_000;

/** How a connection is opened. */
export interface RemoteConnectionOptions {
  /**
   * Extra request headers of the upgrade, such as the admission Worker's
   * `Authorization: Bearer …` and `X-Xmd-Issue` (the WebSocket headers are
   * the connection's own).
   */
  headers?: HeadersInit;
}

interface InFlight {
  type: RequestType;
  resolve(reply: ChannelReply<RequestType>): void;
  reject(error: Error): void;
}

/** An open connection to a run's Durable Object. */
export class RemoteConnection implements RemoteChannel, Disposable {
  readonly #socket: WebSocketClient;
  readonly #inFlight = new Map<number, InFlight>();
  readonly #ping: number;
  #nextId = 1;
  #lost: RemoteConnectionLostError | undefined;

  private constructor(socket: WebSocketClient) {
    this.#socket = socket;
    this.#ping = Number(setInterval(() => {
      this.call({ type: "ping" }).catch(() => {});
    }, PING_INTERVAL_MS));
    Deno.unrefTimer(this.#ping);
    socket.start({
      onMessage: (data) => this.#receive(data),
      onClose: () => this.#lose("the connection to the run's Durable Object closed"),
    });
  }

  /**
   * Opens a connection to `url` (ws: or wss:). An unreachable one is
   * `RemoteConnectionLostError`; an upgrade refused with an HTTP status,
   * `RemoteConnectionRefusedError`.
   */
  static async open(
    url: string | URL,
    options: RemoteConnectionOptions = {},
  ): Promise<RemoteConnection> {
    const socket = await WebSocketClient.connect(url, {
      protocol: WEBSOCKET_PROTOCOL,
      headers: options.headers,
      maxMessageBytes: MAX_MESSAGE_BYTES,
    });
    return new RemoteConnection(socket);
  }

  call<T extends RequestType>(
    body: CallBody<T>,
    payload?: Uint8Array,
    onWritten?: () => void,
  ): Promise<ChannelReply<T>> {
    if (this.#lost) return Promise.reject(this.#lost);
    const id = this.#nextId++;
    const message = encodeRequest({ v: PROTOCOL_VERSION, id, ...body } as Request, payload);
    return new Promise<ChannelReply<T>>((resolve, reject) => {
      this.#inFlight.set(id, {
        type: body.type,
        resolve: resolve as (reply: ChannelReply<RequestType>) => void,
        reject,
      });
      if (!this.#socket.send(message, onWritten)) {
        this.#lose("the connection to the run's Durable Object closed");
      }
    });
  }

  /** Whether the connection is still open (neither closed nor lost). */
  get open(): boolean {
    return this.#lost === undefined;
  }

  /** Closes the connection (ownership, if it held the run, ends with it). */
  close(): void {
    this.#lose("the connection was closed by this runner");
    this.#socket.close(1000);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #receive(data: Uint8Array | string): void {
    if (typeof data === "string") {
      this.#fail("it sent a text message");
      return;
    }
    let decoded: ReturnType<typeof decodeReply>;
    try {
      decoded = decodeReply(data);
    } catch {
      this.#fail("it sent a reply that does not parse");
      return;
    }
    const { reply, payload } = decoded;
    const pending = reply.re === null ? undefined : this.#inFlight.get(reply.re);
    if (!pending) {
      this.#fail("it sent a reply to no request in flight");
      return;
    }
    this.#inFlight.delete(reply.re!);
    if (reply.type === "error") {
      pending.reject(refusalOf(reply.code, reply.message, reply.reason));
    } else if (reply.type !== pending.type) {
      this.#fail("it answered a request with a reply of another type");
      pending.reject(this.#lost!);
    } else {
      const { v: _v, re: _re, type: _type, ...body } = reply;
      pending.resolve({ reply: body as ChannelReply<RequestType>["reply"], payload });
    }
  }

  /** A reply that cannot be trusted: the connection is closed, everything in flight lost. */
  #fail(why: string): void {
    this.#lose(`the run's Durable Object broke the protocol: ${why}`);
    this.#socket.close(1002);
  }

  #lose(why: string): void {
    clearInterval(this.#ping);
    this.#lost ??= new RemoteConnectionLostError(`Connection lost: ${why}`);
    for (const pending of this.#inFlight.values()) pending.reject(this.#lost);
    this.#inFlight.clear();
  }
}
