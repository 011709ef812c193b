/**
 * A runner's side of one remote connection, as the pure parts of the runner
 * (acquisition, remote commits) see it: one request, one parsed reply.
 *
 * Invariants:
 * - `call` resolves only with the reply to that request, parsed strictly
 *   (`decodeReply`) and of the request's type; an `error` reply rejects
 *   with the local error its code stands for (`refusalOf`), a lost
 *   connection with `RemoteConnectionLostError`.
 * - Nothing is retried: a request whose connection was lost may or may not
 *   have been applied, and only a new acquisition can tell.
 *
 * @module
 */
import type { ReplyBody, RequestBody, RequestType } from "./frames.ts";

/** A reply's body and its payload (chunk bytes for `get-chunks`, else empty). */
export interface ChannelReply<T extends RequestType> {
  /** The reply header, without its envelope. */
  reply: ReplyBody<T>;
  /** The payload. */
  payload: Uint8Array;
}

/** A request without its envelope (`v`, `id`), of type `T`. */
export type CallBody<T extends RequestType> = RequestBody<T> & { type: T };

/** Sends requests over one connection and resolves with their replies. */
export interface RemoteChannel {
  /**
   * Sends `body` (with `payload` for `put-chunks`) and resolves with its
   * reply; `onWritten` is called once its frame is written to the socket
   * (never when the connection ended first).
   */
  call<T extends RequestType>(
    body: CallBody<T>,
    payload?: Uint8Array,
    onWritten?: () => void,
  ): Promise<ChannelReply<T>>;
}
