import assert from "node:assert/strict";
import { Miniflare } from "../cloudflare/_test-miniflare.ts";
import {
  RemoteConnectionLostError,
  RemoteConnectionRefusedError,
} from "../remote/remote-refusal.ts";
import { WebSocketClient, type WebSocketHandlers } from "./websocket-client.ts";

const PROTOCOL = "xmd.remote.v1";
const MAX = 8 * 1024 * 1024;
const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** An echo server on Deno.serve, selecting the protocol. */
function denoEcho(): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const { socket, response } = Deno.upgradeWebSocket(request, { protocol: PROTOCOL });
    socket.binaryType = "arraybuffer";
    socket.onmessage = (event) => socket.send(event.data);
    return response;
  });
}

/** An echo Worker in workerd (binary stays binary, text stays text). */
const ECHO_WORKER = `
export default {
  async fetch(request) {
    const [client, server] = Object.values(new WebSocketPair());
    server.binaryType = "arraybuffer";
    server.accept();
    server.addEventListener("message", (event) => server.send(event.data));
    return new Response(null, {
      status: 101,
      webSocket: client,
      headers: { "Sec-WebSocket-Protocol": "${PROTOCOL}" },
    });
  },
};`;

/** A client whose messages and close are collected. */
async function open(
  url: string,
  headers?: HeadersInit,
): Promise<
  { client: WebSocketClient; next(): Promise<Uint8Array | string>; closed: Promise<string> }
> {
  const client = await WebSocketClient.connect(url, {
    protocol: PROTOCOL,
    headers,
    maxMessageBytes: MAX,
  });
  const queue: (Uint8Array | string)[] = [];
  const waiting: ((data: Uint8Array | string) => void)[] = [];
  let closedWith: (why: string) => void = () => {};
  const closed = new Promise<string>((resolve) => closedWith = resolve);
  const handlers: WebSocketHandlers = {
    onMessage: (data) => {
      const wait = waiting.shift();
      if (wait) wait(data);
      else queue.push(data);
    },
    onClose: (why) => closedWith(why),
  };
  client.start(handlers);
  return {
    client,
    next: () =>
      queue.length > 0
        ? Promise.resolve(queue.shift()!)
        : new Promise((resolve) => waiting.push(resolve)),
    closed,
  };
}

function pattern(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}

const SIZES = [0, 1, 125, 126, 1_300, 1_500, 4_096, 16_384, 65_535, 65_536, 1_048_576, MAX];

async function echoes(url: string): Promise<void> {
  const { client, next, closed } = await open(url);
  for (const [index, size] of SIZES.entries()) {
    const sent = pattern(size, index);
    let written = false;
    assert.ok(client.send(sent, () => written = true));
    const back = await next();
    assert.ok(back instanceof Uint8Array, `${size} bytes came back binary`);
    assert.equal(back.length, size);
    assert.deepEqual(back, sent, `${size} bytes came back unchanged`);
    assert.ok(written, "the frame was reported written");
  }
  client.close();
  assert.equal(await closed, "the connection was closed by this side");
  assert.equal(client.send(new Uint8Array(1)), false, "nothing is sent after close");
}

Deno.test("RM-61 binary messages of 0 bytes to 8 MiB round-trip unchanged through a Deno.serve WebSocket and workerd", async () => {
  const server = denoEcho();
  try {
    await echoes(`ws://127.0.0.1:${server.addr.port}/`);
  } finally {
    await server.shutdown();
  }
  const mf = new Miniflare({ modules: true, script: ECHO_WORKER, compatibilityDate: "2026-07-01" });
  try {
    const url = await mf.ready;
    await echoes(`ws://${url.host}/?run=x`);
  } finally {
    await mf.dispose();
  }
});

/**
 * A raw TCP server that reads the client's upgrade request, answers it with
 * `respond(accept, request)` (`accept` is the right `Sec-WebSocket-Accept`),
 * then plays `script` against the client's bytes.
 */
function rawServer(
  respond: (accept: string, request: string) => string,
  script: (conn: Deno.Conn, read: () => Promise<Uint8Array | null>) => Promise<void> = () =>
    Promise.resolve(),
): { url: string; done: Promise<string> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const done = (async () => {
    const conn = await listener.accept();
    listener.close();
    const readMore = async (): Promise<Uint8Array | null> => {
      const buffer = new Uint8Array(65_536);
      const n = await conn.read(buffer).catch(() => null);
      return n === null ? null : buffer.subarray(0, n);
    };
    let pending = new Uint8Array();
    let head = "";
    while (!head.includes("\r\n\r\n")) {
      const more = await readMore();
      if (more === null) throw new Error("no request");
      pending = new Uint8Array([...pending, ...more]);
      head = new TextDecoder().decode(pending);
    }
    const key = /sec-websocket-key: (\S+)/i.exec(head)![1];
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-1", new TextEncoder().encode(key + GUID)),
    );
    await conn.write(new TextEncoder().encode(respond(btoa(String.fromCharCode(...digest)), head)));
    try {
      await script(conn, readMore);
    } finally {
      try {
        conn.close();
      } catch {
        // Closed by the client.
      }
    }
    return head;
  })();
  return { url: `ws://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/path?run=a`, done };
}

/** A well-formed 101 answer, with `extra` header lines. */
function upgraded(accept: string, extra = ""): string {
  return `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n${extra}\r\n`;
}

/** A server frame (unmasked unless `masked`), its length field `length`. */
function frame(
  first: number,
  payload: Uint8Array,
  { masked = false, length = payload.length } = {},
): Uint8Array {
  const head = length < 126
    ? [first, length]
    : length < 65_536
    ? [first, 126, length >> 8, length & 0xff]
    : [first, 127, ...new Uint8Array(new BigUint64Array([BigInt(length)]).buffer).reverse()];
  if (masked) head[1] |= 0x80;
  return new Uint8Array([...head, ...(masked ? [0, 0, 0, 0] : []), ...payload]);
}

/** The client's frames (each checked masked) until `want` are complete or EOF: [opcode, payload]. */
async function clientFrames(
  read: () => Promise<Uint8Array | null>,
  want: number,
): Promise<[number, Uint8Array][]> {
  const frames: [number, Uint8Array][] = [];
  let bytes = new Uint8Array();
  for (;;) {
    while (bytes.length >= 2) {
      const short = bytes[1] & 0x7f;
      const extended = short === 126 ? 2 : short === 127 ? 8 : 0;
      if (bytes.length < 2 + extended + 4) break;
      const view = new DataView(bytes.buffer, bytes.byteOffset);
      const length = short === 126
        ? view.getUint16(2)
        : short === 127
        ? Number(view.getBigUint64(2))
        : short;
      const start = 2 + extended + 4;
      if (bytes.length < start + length) break;
      assert.ok(bytes[1] & 0x80, "every client frame is masked");
      const mask = bytes.subarray(2 + extended, start);
      frames.push([
        bytes[0] & 0x0f,
        bytes.slice(start, start + length).map((b, i) => b ^ mask[i & 3]),
      ]);
      bytes = bytes.slice(start + length);
    }
    if (frames.length >= want) return frames;
    const more = await read();
    if (more === null) return frames;
    bytes = new Uint8Array([...bytes, ...more]);
  }
}

const closeCode = (payload: Uint8Array) =>
  new DataView(payload.buffer, payload.byteOffset).getUint16(0);
const utf8 = new TextEncoder();
const OPEN_PROTOCOL = `Sec-WebSocket-Protocol: ${PROTOCOL}\r\n`;

Deno.test("RM-61 a fragmented message with a ping between its fragments is delivered whole and the ping answered with its pong; text stays text; a close is answered", async () => {
  let seen: [number, Uint8Array][] = [];
  const server = rawServer((accept) => upgraded(accept, OPEN_PROTOCOL), async (conn, read) => {
    await conn.write(frame(0x02, utf8.encode("ab")));
    await conn.write(frame(0x89, utf8.encode("hi")));
    await conn.write(frame(0x00, utf8.encode("cd")));
    await conn.write(frame(0x80, utf8.encode("ef")));
    await conn.write(frame(0x81, utf8.encode("text ✓")));
    await conn.write(frame(0x88, new Uint8Array([0x0f, 0xa0])));
    seen = await clientFrames(read, 2);
  });
  const { next, closed } = await open(server.url);
  assert.deepEqual(await next(), utf8.encode("abcdef"));
  assert.equal(await next(), "text ✓");
  assert.equal(await closed, "the peer closed the WebSocket (4000)");
  const request = await server.done;
  assert.match(request, /^GET \/path\?run=a HTTP\/1\.1\r\n/);
  assert.match(request, new RegExp(`\r\nsec-websocket-protocol: ${PROTOCOL}\r\n`, "i"));
  assert.deepEqual(seen.map(([opcode]) => opcode), [0x0a, 0x08]);
  assert.deepEqual(seen[0][1], utf8.encode("hi"), "the pong carries the ping's payload");
  assert.equal(closeCode(seen[1][1]), 4000, "the close is echoed");
});

Deno.test("RM-62 a frame that breaks the protocol closes the connection with its code, delivering nothing of it", async () => {
  const cases: { name: string; bytes: Uint8Array; code: number }[] = [
    { name: "masked", bytes: frame(0x82, utf8.encode("x"), { masked: true }), code: 1002 },
    { name: "reserved bit", bytes: frame(0xc2, utf8.encode("x")), code: 1002 },
    { name: "unknown opcode", bytes: frame(0x83, utf8.encode("x")), code: 1002 },
    { name: "unknown control", bytes: frame(0x8b, utf8.encode("x")), code: 1002 },
    { name: "fragmented ping", bytes: frame(0x09, utf8.encode("x")), code: 1002 },
    { name: "long ping", bytes: frame(0x89, new Uint8Array(126)), code: 1002 },
    { name: "stray continuation", bytes: frame(0x80, utf8.encode("x")), code: 1002 },
    {
      name: "new message inside one",
      bytes: new Uint8Array([...frame(0x02, utf8.encode("a")), ...frame(0x82, utf8.encode("b"))]),
      code: 1002,
    },
    {
      name: "over the bound (length field only)",
      bytes: frame(0x82, new Uint8Array(), { length: MAX + 1 }),
      code: 1009,
    },
    {
      name: "over the bound across fragments",
      bytes: new Uint8Array([
        ...frame(0x02, new Uint8Array(100)),
        ...frame(0x80, new Uint8Array(), { length: MAX - 99 }),
      ]),
      code: 1009,
    },
    { name: "text not UTF-8", bytes: frame(0x81, new Uint8Array([0xff, 0xfe])), code: 1007 },
  ];
  for (const { name, bytes, code } of cases) {
    let seen: [number, Uint8Array][] = [];
    const server = rawServer((accept) => upgraded(accept, OPEN_PROTOCOL), async (conn, read) => {
      await conn.write(bytes);
      seen = await clientFrames(read, 1);
    });
    const received: unknown[] = [];
    const client = await WebSocketClient.connect(server.url, {
      protocol: PROTOCOL,
      maxMessageBytes: MAX,
    });
    const closed = new Promise<string>((resolve) =>
      client.start({ onMessage: (data) => received.push(data), onClose: resolve })
    );
    assert.match(await closed, /^the peer broke the WebSocket protocol: /, name);
    await server.done;
    assert.deepEqual(received, [], `${name}: nothing delivered`);
    assert.equal(seen.length, 1, `${name}: one close frame sent`);
    assert.equal(seen[0][0], 0x08, name);
    assert.equal(closeCode(seen[0][1]), code, name);
    assert.equal(client.send(new Uint8Array(1)), false, `${name}: nothing is sent after`);
  }
});

Deno.test("RM-63 a handshake the server answers wrongly opens nothing: another subprotocol, an extension, a wrong accept, no upgrade", async () => {
  const answers: [string, (accept: string) => string, RegExp][] = [
    [
      "another subprotocol",
      (accept) => upgraded(accept, "Sec-WebSocket-Protocol: xmd.remote.v2\r\n"),
      /another subprotocol than xmd\.remote\.v1/,
    ],
    [
      "an extension",
      (accept) => upgraded(accept, "Sec-WebSocket-Extensions: permessage-deflate\r\n"),
      /an extension none was offered/,
    ],
    ["a wrong accept", () => upgraded("AAAA", OPEN_PROTOCOL), /Sec-WebSocket-Accept/],
    [
      "no upgrade",
      (accept) =>
        `HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
      /did not upgrade to WebSocket/,
    ],
    ["not HTTP", () => "SSH-2.0-x\r\n\r\n", /not HTTP\/1\.1/],
  ];
  for (const [name, respond, message] of answers) {
    const server = rawServer(respond);
    await assert.rejects(
      WebSocketClient.connect(server.url, { protocol: PROTOCOL, maxMessageBytes: MAX }),
      (error: Error) => {
        assert.ok(error instanceof RemoteConnectionLostError, name);
        assert.match(error.message, /^Cannot connect to the run's Durable Object: /, name);
        assert.match(error.message, message, name);
        return true;
      },
    );
    await server.done;
  }
  // A server that selects none is accepted: every frame names its version.
  const none = rawServer((accept) => upgraded(accept));
  (await WebSocketClient.connect(none.url, { protocol: PROTOCOL, maxMessageBytes: MAX })).close();
  await none.done;
  // Nothing listening.
  const gone = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (gone.addr as Deno.NetAddr).port;
  gone.close();
  await assert.rejects(
    WebSocketClient.connect(`ws://127.0.0.1:${port}/`, {
      protocol: PROTOCOL,
      maxMessageBytes: MAX,
    }),
    RemoteConnectionLostError,
  );
  await assert.rejects(
    WebSocketClient.connect("http://127.0.0.1/", { protocol: PROTOCOL, maxMessageBytes: MAX }),
    /its address is not a ws: or wss: URL/,
  );
});

Deno.test("RM-63 an upgrade answered with an HTTP status is RemoteConnectionRefusedError with the status and body (length-delimited or chunked)", async () => {
  const json = '{"error":{"code":"admission.token","message":"The token expired"}}';
  const responses = [
    `HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n${json}`,
    `HTTP/1.1 403 Forbidden\r\nTransfer-Encoding: chunked\r\n\r\n${
      json.length.toString(16)
    }\r\n${json}\r\n0\r\n\r\n`,
    `HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n${json}`,
  ];
  for (const [index, response] of responses.entries()) {
    const server = rawServer(() => response);
    await assert.rejects(
      WebSocketClient.connect(server.url, { protocol: PROTOCOL, maxMessageBytes: MAX }),
      (error: Error) => {
        assert.ok(error instanceof RemoteConnectionRefusedError);
        assert.equal(error.code, "connection.refused");
        assert.equal(error.status, [401, 403, 503][index]);
        assert.equal(error.body, json);
        assert.ok(!error.message.includes("expired"), "the body is not in the message");
        return true;
      },
    );
    await server.done;
  }
});

Deno.test("RM-60 extra headers go with the upgrade; the connection's own headers cannot be set", async () => {
  const server = rawServer((accept) => upgraded(accept, OPEN_PROTOCOL));
  const { client } = await open(server.url, { Authorization: "Bearer t", "X-Xmd-Issue": "o/r#1" });
  client.close();
  const request = await server.done;
  assert.match(request, /\r\nauthorization: Bearer t\r\n/i);
  assert.match(request, /\r\nx-xmd-issue: o\/r#1\r\n/i);
  for (const name of ["Sec-WebSocket-Protocol", "Host", "Upgrade"]) {
    await assert.rejects(
      WebSocketClient.connect("ws://127.0.0.1:1/", {
        protocol: PROTOCOL,
        headers: { [name]: "x" },
        maxMessageBytes: MAX,
      }),
      TypeError,
    );
  }
});
