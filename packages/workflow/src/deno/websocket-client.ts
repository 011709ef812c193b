/**
 * A WebSocket client (RFC 6455) over `Deno.connect`, for the runner's one
 * connection. Deno's built-in client leaves Nagle's algorithm on and writes
 * a frame's header and payload as separate segments, so every frame from
 * about 1.3 KB to 16 KiB waited for the peer's delayed ACK (44 ms a frame
 * on loopback, against `Deno.serve` and workerd alike); this client sets
 * `TCP_NODELAY` and writes each frame, header and payload, in one write.
 *
 * Invariants:
 * - The handshake asks for exactly one subprotocol and fails unless the
 *   server selects it or none; it offers no extension and fails if one is
 *   selected; `Sec-WebSocket-Accept` must be the key's digest. A response
 *   other than 101 is `RemoteConnectionRefusedError` with its status and
 *   (bounded) body; any other failure to open is `RemoteConnectionLostError`.
 * - Every frame sent is masked with fresh random bytes and written whole;
 *   frames never interleave (one write queue, in call order).
 * - Every frame received is checked before it is used: unmasked, no
 *   reserved bits, known opcode, control frames final and at most 125
 *   bytes, continuations only inside a fragmented message, a message no
 *   larger than `maxMessageBytes` (checked from the length field, before
 *   anything is buffered), text valid UTF-8. A violation closes the
 *   connection (1002, 1007 or 1009) and reports it; a ping is answered with
 *   its pong.
 * - `onClose` is called exactly once, whatever ends the connection (a close
 *   frame, the peer's EOF, a read or write error, a violation, `close()`);
 *   no message is delivered after it.
 *
 * @module
 */
import {
  RemoteConnectionLostError,
  RemoteConnectionRefusedError,
} from "../remote/remote-refusal.ts";

/** The GUID RFC 6455 appends to the key for `Sec-WebSocket-Accept`. */
const ACCEPT_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
/** The most response-header bytes read before the handshake is refused. */
const MAX_RESPONSE_HEAD_BYTES = 16 * 1024;
/** The most bytes of a refusal's body kept. */
const MAX_REFUSAL_BODY_BYTES = 64 * 1024;
/** Request headers that belong to the connection itself, never to a caller. */
const OWN_HEADERS = new Set([
  "host",
  "upgrade",
  "connection",
  "content-length",
  "transfer-encoding",
  "sec-websocket-key",
  "sec-websocket-version",
  "sec-websocket-protocol",
  "sec-websocket-extensions",
]);
const READ_BUFFER_BYTES = 64 * 1024;

const OPCODE = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

/** How a client connects. */
export interface WebSocketClientOptions {
  /** The one subprotocol asked for. */
  protocol: string;
  /** Extra request headers (none of the connection's own, see `OWN_HEADERS`). */
  headers?: HeadersInit;
  /** The largest message accepted (a larger one closes the connection with 1009). */
  maxMessageBytes: number;
}

/** What a started client reports. */
export interface WebSocketHandlers {
  /** A complete message: binary as bytes, text as a string. */
  onMessage(data: Uint8Array | string): void;
  /** The connection ended; `why` says how (for a message, never a received value). */
  onClose(why: string): void;
}

/** One open client connection. */
export class WebSocketClient {
  readonly #conn: Deno.Conn;
  readonly #reader: ByteReader;
  #handlers: WebSocketHandlers | undefined;
  #writing: Promise<void> = Promise.resolve();
  #closed = false;
  #closeSent = false;
  readonly #maxMessageBytes: number;

  private constructor(conn: Deno.Conn, reader: ByteReader, maxMessageBytes: number) {
    this.#conn = conn;
    this.#reader = reader;
    this.#maxMessageBytes = maxMessageBytes;
  }

  /**
   * Connects to `url` (ws: or wss:) and completes the handshake. A refusal
   * is `RemoteConnectionRefusedError`; an unreachable server or a broken handshake
   * `RemoteConnectionLostError`.
   */
  static async connect(
    url: string | URL,
    options: WebSocketClientOptions,
  ): Promise<WebSocketClient> {
    const target = parseUrl(url);
    const extra = new Headers(options.headers);
    for (const name of extra.keys()) {
      if (OWN_HEADERS.has(name)) {
        throw new TypeError(
          `Cannot set the request header "${name}": the WebSocket connection sets it`,
        );
      }
    }
    let conn: Deno.Conn;
    try {
      const tcp = await Deno.connect({ hostname: target.hostname, port: target.port });
      tcp.setNoDelay(true);
      conn = target.tls ? await Deno.startTls(tcp, { hostname: target.hostname }) : tcp;
    } catch (error) {
      throw cannotConnect(
        `nothing answers at ${target.hostname}:${target.port}`,
        { cause: error },
      );
    }
    try {
      const key = base64(crypto.getRandomValues(new Uint8Array(16)));
      const lines = [
        `GET ${target.path} HTTP/1.1`,
        `Host: ${target.host}`,
        "Upgrade: websocket",
        "Connection: Upgrade",
        `Sec-WebSocket-Key: ${key}`,
        "Sec-WebSocket-Version: 13",
        `Sec-WebSocket-Protocol: ${options.protocol}`,
      ];
      for (const [name, value] of extra) lines.push(`${name}: ${value}`);
      await writeAll(conn, new TextEncoder().encode(lines.join("\r\n") + "\r\n\r\n"));
      const reader = new ByteReader(conn);
      const head = await reader.readHead();
      await checkHandshake(head, reader, key, options.protocol);
      return new WebSocketClient(conn, reader, options.maxMessageBytes);
    } catch (error) {
      try {
        conn.close();
      } catch {
        // Already closed.
      }
      if (
        error instanceof RemoteConnectionRefusedError || error instanceof RemoteConnectionLostError
      ) {
        throw error;
      }
      throw cannotConnect("the WebSocket handshake failed", { cause: error });
    }
  }

  /** Starts delivering messages to `handlers` (once). */
  start(handlers: WebSocketHandlers): void {
    if (this.#handlers) throw new Error("WebSocketClient.start called twice");
    this.#handlers = handlers;
    this.#readLoop().catch((error) =>
      this.#end(`the connection failed (${error instanceof Error ? error.name : "error"})`)
    );
  }

  /** Whether the connection has ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Sends one binary message; false when the connection has ended (nothing
   * is sent). `onWritten` is called once the whole frame is written to the
   * socket.
   */
  send(data: Uint8Array, onWritten?: () => void): boolean {
    if (this.#closed || this.#closeSent) return false;
    this.#write(encodeFrame(OPCODE.binary, data), onWritten);
    return true;
  }

  /** Sends a close frame with `code` and ends the connection. */
  close(code = 1000): void {
    if (this.#closed) return;
    this.#sendClose(code);
    this.#end("the connection was closed by this side");
  }

  #sendClose(code: number): void {
    if (this.#closeSent) return;
    this.#closeSent = true;
    const payload = new Uint8Array(2);
    new DataView(payload.buffer).setUint16(0, code);
    this.#write(encodeFrame(OPCODE.close, payload));
  }

  #write(frame: Uint8Array, onWritten?: () => void): void {
    this.#writing = this.#writing.then(async () => {
      try {
        await writeAll(this.#conn, frame);
      } catch {
        this.#end("the connection failed while sending");
        return;
      }
      onWritten?.();
    });
  }

  /** Ends the connection once: reports it, then closes the socket after queued writes. */
  #end(why: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#writing.finally(() => {
      try {
        this.#conn.close();
      } catch {
        // Already closed.
      }
    });
    this.#handlers?.onClose(why);
  }

  /** A frame that breaks the protocol: close with `code`, report `why`. */
  #violate(code: number, why: string): void {
    this.#sendClose(code);
    this.#end(`the peer broke the WebSocket protocol: ${why}`);
  }

  async #readLoop(): Promise<void> {
    let message: { opcode: number; parts: Uint8Array[]; length: number } | undefined;
    while (!this.#closed) {
      const frame = await this.#reader.readFrameHead();
      if (this.#closed) return;
      if (frame === null) {
        this.#end("the peer closed the connection");
        return;
      }
      const { fin, rsv, opcode, masked, length } = frame;
      if (rsv !== 0) return this.#violate(1002, "reserved bits set");
      if (masked) return this.#violate(1002, "a masked frame from the server");
      const control = opcode >= 8;
      if (control) {
        if (opcode !== OPCODE.close && opcode !== OPCODE.ping && opcode !== OPCODE.pong) {
          return this.#violate(1002, "an unknown opcode");
        }
        if (!fin || length > 125) return this.#violate(1002, "a fragmented or long control frame");
      } else if (opcode === OPCODE.continuation) {
        if (!message) return this.#violate(1002, "a continuation outside a message");
      } else if (opcode === OPCODE.text || opcode === OPCODE.binary) {
        if (message) return this.#violate(1002, "a new message inside a fragmented one");
      } else {
        return this.#violate(1002, "an unknown opcode");
      }
      const total = control ? length : (message?.length ?? 0) + length;
      if (!control && total > this.#maxMessageBytes) {
        return this.#violate(1009, `a message over ${this.#maxMessageBytes} bytes`);
      }
      const payload = await this.#reader.readExactly(length);
      if (this.#closed) return;
      if (payload === null) {
        this.#end("the peer closed the connection inside a frame");
        return;
      }
      if (opcode === OPCODE.ping) {
        this.#write(encodeFrame(OPCODE.pong, payload));
        continue;
      }
      if (opcode === OPCODE.pong) continue;
      if (opcode === OPCODE.close) {
        const code = payload.length >= 2
          ? new DataView(payload.buffer, payload.byteOffset).getUint16(0)
          : 1005;
        this.#sendClose(code === 1005 ? 1000 : code);
        this.#end(`the peer closed the WebSocket (${code})`);
        return;
      }
      message ??= { opcode, parts: [], length: 0 };
      message.parts.push(payload);
      message.length = total;
      if (!fin) continue;
      const bytes = concat(message.parts, message.length);
      const kind = message.opcode;
      message = undefined;
      if (kind === OPCODE.text) {
        let text: string;
        try {
          text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
        } catch {
          return this.#violate(1007, "a text message that is not UTF-8");
        }
        this.#handlers!.onMessage(text);
      } else {
        this.#handlers!.onMessage(bytes);
      }
    }
  }
}

/** A frame with `opcode`, final, masked with fresh random bytes, as one buffer. */
export function encodeFrame(opcode: number, payload: Uint8Array): Uint8Array {
  const length = payload.length;
  const extended = length < 126 ? 0 : length < 65_536 ? 2 : 8;
  const head = 2 + extended + 4;
  // Padding in front puts the payload on a 4-byte boundary, so it is masked a word at a time.
  const pad = (4 - (head % 4)) % 4;
  const buffer = new ArrayBuffer(pad + head + length);
  const frame = new Uint8Array(buffer, pad);
  const view = new DataView(buffer, pad);
  frame[0] = 0x80 | opcode;
  if (extended === 0) {
    frame[1] = 0x80 | length;
  } else if (extended === 2) {
    frame[1] = 0x80 | 126;
    view.setUint16(2, length);
  } else {
    frame[1] = 0x80 | 127;
    view.setBigUint64(2, BigInt(length));
  }
  const mask = crypto.getRandomValues(new Uint8Array(4));
  frame.set(mask, head - 4);
  frame.set(payload, head);
  const words = new Uint32Array(buffer, pad + head, length >>> 2);
  const mask32 = new Uint32Array(mask.buffer)[0];
  for (let i = 0; i < words.length; i++) words[i] ^= mask32;
  for (let i = words.length * 4; i < length; i++) frame[head + i] ^= mask[i & 3];
  return frame;
}

interface FrameHead {
  fin: boolean;
  rsv: number;
  opcode: number;
  masked: boolean;
  length: number;
}

/** Buffered reads from a connection: the response head, frame heads, exact payloads. */
class ByteReader {
  readonly #conn: Deno.Conn;
  #buffer = new Uint8Array(READ_BUFFER_BYTES);
  #start = 0;
  #end = 0;

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /** Reads more into the buffer; false at EOF. */
  async #fill(): Promise<boolean> {
    if (this.#start === this.#end) this.#start = this.#end = 0;
    if (this.#end === this.#buffer.length) {
      this.#buffer.copyWithin(0, this.#start, this.#end);
      this.#end -= this.#start;
      this.#start = 0;
    }
    const n = await this.#conn.read(this.#buffer.subarray(this.#end));
    if (n === null) return false;
    this.#end += n;
    return true;
  }

  /** The HTTP response head up to the blank line (exclusive), as text. */
  async readHead(): Promise<string> {
    for (;;) {
      const available = this.#buffer.subarray(this.#start, this.#end);
      const at = indexOfBlankLine(available);
      if (at >= 0) {
        this.#start += at + 4;
        return new TextDecoder().decode(available.subarray(0, at));
      }
      if (available.length >= MAX_RESPONSE_HEAD_BYTES) {
        throw cannotConnect("the handshake response head is too long");
      }
      if (!await this.#fill()) {
        throw cannotConnect("the server closed the connection during the handshake");
      }
    }
  }

  async #need(n: number): Promise<boolean> {
    while (this.#end - this.#start < n) {
      if (!await this.#fill()) return false;
    }
    return true;
  }

  /** The next frame's head, or null at EOF before one. */
  async readFrameHead(): Promise<FrameHead | null> {
    if (!await this.#need(2)) return null;
    const b0 = this.#buffer[this.#start];
    const b1 = this.#buffer[this.#start + 1];
    const short = b1 & 0x7f;
    const extended = short === 126 ? 2 : short === 127 ? 8 : 0;
    const masked = (b1 & 0x80) !== 0;
    if (!await this.#need(2 + extended + (masked ? 4 : 0))) return null;
    const view = new DataView(this.#buffer.buffer, this.#start);
    let length = short;
    if (extended === 2) length = view.getUint16(2);
    if (extended === 8) {
      const big = view.getBigUint64(2);
      // Anything past 2^53 is far over every bound; saturate so the bound check refuses it.
      length = big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(big);
    }
    this.#start += 2 + extended + (masked ? 4 : 0);
    return { fin: (b0 & 0x80) !== 0, rsv: b0 & 0x70, opcode: b0 & 0x0f, masked, length };
  }

  /** Exactly `n` bytes (a new array), or null at EOF before them. */
  async readExactly(n: number): Promise<Uint8Array | null> {
    const out = new Uint8Array(n);
    const buffered = Math.min(n, this.#end - this.#start);
    out.set(this.#buffer.subarray(this.#start, this.#start + buffered));
    this.#start += buffered;
    let filled = buffered;
    while (filled < n) {
      // Large payloads are read straight into place.
      const read = await this.#conn.read(out.subarray(filled));
      if (read === null) return null;
      filled += read;
    }
    return out;
  }

  /** Up to `max` bytes of a refusal's body, as its headers describe it. */
  async readBody(headers: Headers, max: number): Promise<Uint8Array> {
    const length = headers.get("content-length");
    if (length !== null && /^\d+$/.test(length)) {
      return await this.readExactly(Math.min(Number(length), max)) ?? new Uint8Array();
    }
    if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) {
      const parts: Uint8Array[] = [];
      let total = 0;
      while (total < max) {
        const line = await this.#readLine();
        const size = line === null ? NaN : parseInt(line, 16);
        if (!Number.isFinite(size) || size === 0) break;
        const part = await this.readExactly(Math.min(size, max - total));
        if (part === null) break;
        parts.push(part);
        total += part.length;
        if (part.length < size || await this.#readLine() === null) break;
      }
      return concat(parts, total);
    }
    const parts: Uint8Array[] = [];
    let total = this.#end - this.#start;
    parts.push(this.#buffer.slice(this.#start, this.#end));
    this.#start = this.#end;
    while (total < max && await this.#fill()) {
      parts.push(this.#buffer.slice(this.#start, this.#end));
      total += this.#end - this.#start;
      this.#start = this.#end;
    }
    return concat(parts, total).subarray(0, max);
  }

  async #readLine(): Promise<string | null> {
    for (;;) {
      const available = this.#buffer.subarray(this.#start, this.#end);
      const at = available.indexOf(0x0a);
      if (at >= 0) {
        this.#start += at + 1;
        return new TextDecoder().decode(available.subarray(0, at)).trim();
      }
      if (available.length >= MAX_RESPONSE_HEAD_BYTES || !await this.#fill()) return null;
    }
  }
}

/** Checks the 101 response head (or raises the refusal it is). */
async function checkHandshake(
  head: string,
  reader: ByteReader,
  key: string,
  protocol: string,
): Promise<void> {
  const [statusLine, ...fields] = head.split("\r\n");
  const status = /^HTTP\/1\.1 (\d{3})(?: |$)/.exec(statusLine);
  if (!status) throw cannotConnect("the handshake response is not HTTP/1.1");
  const headers = new Headers();
  for (const field of fields) {
    const colon = field.indexOf(":");
    if (colon <= 0) {
      throw cannotConnect("the handshake response is malformed");
    }
    try {
      headers.append(field.slice(0, colon).trim(), field.slice(colon + 1).trim());
    } catch {
      throw cannotConnect("the handshake response is malformed");
    }
  }
  const code = Number(status[1]);
  if (code !== 101) {
    const body = await reader.readBody(headers, MAX_REFUSAL_BODY_BYTES).catch(() =>
      new Uint8Array()
    );
    throw new RemoteConnectionRefusedError(code, new TextDecoder().decode(body));
  }
  if (headers.get("upgrade")?.toLowerCase() !== "websocket") {
    throw cannotConnect("the server did not upgrade to WebSocket");
  }
  if (!(headers.get("connection") ?? "").toLowerCase().split(/\s*,\s*/).includes("upgrade")) {
    throw cannotConnect("the server did not upgrade the connection");
  }
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-1", new TextEncoder().encode(key + ACCEPT_GUID)),
  );
  if (headers.get("sec-websocket-accept") !== base64(digest)) {
    throw cannotConnect("the server's Sec-WebSocket-Accept does not match the key");
  }
  const selected = headers.get("sec-websocket-protocol");
  if (selected !== null && selected !== protocol) {
    throw cannotConnect(
      `the server selected another subprotocol than ${protocol}`,
    );
  }
  if (headers.has("sec-websocket-extensions")) {
    throw cannotConnect("the server selected an extension none was offered");
  }
}

function parseUrl(url: string | URL): {
  tls: boolean;
  hostname: string;
  port: number;
  host: string;
  path: string;
} {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw cannotConnect("its address is not a URL", { cause: error });
  }
  if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") {
    throw cannotConnect("its address is not a ws: or wss: URL");
  }
  const tls = parsed.protocol === "wss:";
  // IPv6 literals come bracketed in `hostname`; Deno.connect takes them bare.
  const hostname = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  return {
    tls,
    hostname,
    port: parsed.port === "" ? (tls ? 443 : 80) : Number(parsed.port),
    host: parsed.host,
    path: `${parsed.pathname}${parsed.search}`,
  };
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

function indexOfBlankLine(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1 && parts[0].length === length) return parts[0];
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function base64(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

/** The connection could not be opened: `reason` says why. */
function cannotConnect(reason: string, options?: ErrorOptions): RemoteConnectionLostError {
  return new RemoteConnectionLostError(
    `Cannot connect to the run's Durable Object: ${reason}`,
    options,
  );
}
