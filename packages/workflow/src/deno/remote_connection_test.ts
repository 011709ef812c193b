import assert from "node:assert/strict";
import { encodeReply, WEBSOCKET_PROTOCOL } from "../remote/frames.ts";
import { RemoteConnectionLostError } from "../remote/remote-refusal.ts";
import { RunNotFoundError, RunStateError } from "../contracts/workflow-errors.ts";
import { RemoteConnection } from "./remote-connection.ts";
import { RemoteWorkflowHost } from "./remote-workflow-host.ts";

/** A loopback WebSocket server answering each message with `answer`. */
function hostile(
  answer: (socket: WebSocket, message: ArrayBuffer) => void,
): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const { socket, response } = Deno.upgradeWebSocket(
      request,
      { protocol: WEBSOCKET_PROTOCOL },
    );
    socket.binaryType = "arraybuffer";
    socket.onmessage = (event) => answer(socket, event.data as ArrayBuffer);
    return response;
  });
}

function urlOf(server: Deno.HttpServer<Deno.NetAddr>): string {
  return `ws://127.0.0.1:${server.addr.port}/`;
}

Deno.test("RM-40 a reply that does not parse, answers nothing in flight or has another type loses the connection; later requests fail at once", async () => {
  const replies: ((re: number) => Uint8Array | string)[] = [
    () => new Uint8Array([0, 0, 0, 9, 1, 2]),
    () => "a text message",
    (re) => encodeReply({ v: 1, re: re + 100, type: "ping" }),
    (re) => encodeReply({ v: 1, re, type: "cancel" }),
  ];
  for (const reply of replies) {
    const server = hostile((socket, message) => {
      const re = new DataView(message).getUint32(0) > 0
        ? JSON.parse(new TextDecoder().decode(new Uint8Array(message, 4))).id
        : 0;
      socket.send(reply(re));
    });
    try {
      const connection = await RemoteConnection.open(urlOf(server));
      await assert.rejects(connection.call({ type: "ping" }), RemoteConnectionLostError);
      await assert.rejects(connection.call({ type: "read-run" }), RemoteConnectionLostError);
      connection.close();
    } finally {
      await server.shutdown();
    }
  }
});

Deno.test("RM-40 an error reply rejects with the class its code stands for, and the connection stays usable", async () => {
  const server = hostile((socket, message) => {
    const { id, type } = JSON.parse(new TextDecoder().decode(new Uint8Array(message, 4)));
    socket.send(
      type === "cancel"
        ? encodeReply({ v: 1, re: id, type: "error", code: "run.state", message: "It is running" })
        : encodeReply({ v: 1, re: id, type: "ping" }),
    );
  });
  try {
    using connection = await RemoteConnection.open(urlOf(server));
    await assert.rejects(connection.call({ type: "cancel" }), (error: Error) => {
      assert.ok(error instanceof RunStateError);
      assert.equal(error.message, "It is running");
      return true;
    });
    assert.deepEqual((await connection.call({ type: "ping" })).reply, {});
  } finally {
    await server.shutdown();
  }
});

Deno.test("RM-43 a server that closes the socket with a request in flight rejects it as a lost connection", async () => {
  const server = hostile((socket) => socket.close());
  try {
    const connection = await RemoteConnection.open(urlOf(server));
    await assert.rejects(connection.call({ type: "read-run" }), (error: Error) => {
      assert.ok(error instanceof RemoteConnectionLostError);
      assert.equal(error.exitCode, 75);
      assert.equal(error.code, "connection.lost");
      return true;
    });
    connection.close();
  } finally {
    await server.shutdown();
  }
});

Deno.test("RM-60 the upgrade carries the extra request headers given, through the connection and the remote host", async () => {
  const seen: Headers[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    seen.push(new Headers(request.headers));
    const { socket, response } = Deno.upgradeWebSocket(request, { protocol: WEBSOCKET_PROTOCOL });
    socket.binaryType = "arraybuffer";
    socket.onmessage = (event) => {
      const { id, type } = JSON.parse(
        new TextDecoder().decode(new Uint8Array(event.data as ArrayBuffer, 4)),
      );
      socket.send(
        type === "hello"
          ? encodeReply({
            v: 1,
            re: id,
            type,
            run: "run1",
            role: "reader",
            epoch: null,
            frontier: null,
          })
          : type === "read-run"
          ? encodeReply({ v: 1, re: id, type, run: null })
          : encodeReply({ v: 1, re: id, type }),
      );
    };
    return response;
  });
  const headers = { Authorization: "Bearer a.b.c", "X-Xmd-Issue": "octo/repo#7" };
  try {
    using connection = await RemoteConnection.open(urlOf(server), { headers });
    assert.deepEqual((await connection.call({ type: "ping" })).reply, {});
    const host = new RemoteWorkflowHost({ url: () => urlOf(server), headers });
    await assert.rejects(host.inspect("run1"), RunNotFoundError);
    assert.equal(seen.length, 2);
    for (const request of seen) {
      assert.equal(request.get("authorization"), "Bearer a.b.c");
      assert.equal(request.get("x-xmd-issue"), "octo/repo#7");
      assert.equal(request.get("sec-websocket-protocol"), WEBSOCKET_PROTOCOL);
    }
  } finally {
    await server.shutdown();
  }
});
