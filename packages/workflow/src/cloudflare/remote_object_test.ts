import assert from "node:assert/strict";
import type { Miniflare } from "./_test-miniflare.ts";
import { RemoteWorkerd } from "./_test-remote-workerd.ts";
import {
  buildRoot,
  call,
  commitRoot,
  fuzzCorpus,
  type Lane,
  newRun,
  refusedCode,
  type Send,
} from "../remote/_test-remote.ts";
import {
  decodeReply,
  encodeMessage,
  MAX_MESSAGE_BYTES,
  WEBSOCKET_PROTOCOL,
} from "../remote/frames.ts";

/** The part of miniflare's WebSocket (the client end of an upgrade it dispatched) a test uses. */
interface ClientSocket {
  accept(): void;
  send(message: Uint8Array | string): void;
  close(code?: number): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(type: "close", listener: () => void): void;
}

/**
 * A real WebSocket to the test Worker, opened through miniflare's own client
 * (Deno's WebSocket client leaves Nagle's algorithm on, so each frame over
 * about a kilobyte waited for a delayed ACK: 40 ms per frame); replies come
 * back in order, one per message.
 */
class Socket {
  readonly #socket: ClientSocket;
  readonly #waiting: ((reply: Uint8Array) => void)[] = [];
  readonly #closed: Promise<void>;

  private constructor(socket: ClientSocket) {
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

  static async open(mf: Miniflare, url: URL): Promise<Socket> {
    const response = await mf.dispatchFetch(url, {
      headers: { Upgrade: "websocket", "Sec-WebSocket-Protocol": WEBSOCKET_PROTOCOL },
    });
    const socket = (response as unknown as { webSocket: ClientSocket | null }).webSocket;
    if (response.status !== 101 || socket === null) {
      throw new Error(`the upgrade answered ${response.status}`);
    }
    return new Socket(socket);
  }

  send: Send = (message) =>
    new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#socket.send(message);
    });

  async close(): Promise<void> {
    this.#socket.close(1000);
    await this.#closed;
  }
}

Deno.test("RM-7, RM-14, RM-18, RM-21: the run server in a Durable Object over real WebSockets (workerd)", async (t) => {
  await using workerd = await RemoteWorkerd.start();
  const { mf, url: ready } = workerd;
  const socketUrl = (run: string) => {
    return new URL(`?run=${run}`, ready);
  };
  const dumpOf = (run: string) => workerd.dump(run);
  const opened = async (run: string) => {
    const owner = await Socket.open(mf, socketUrl(run));
    await call(owner.send, { type: "hello", role: "executor" });
    const { frontier } = await call(owner.send, { type: "create", run: newRun(run) });
    return { owner, frontier };
  };

  await t.step("RM-21: a plain request is no upgrade", async () => {
    const response = await mf.dispatchFetch(new URL("?run=plain", ready));
    await response.body?.cancel();
    assert.equal(response.status, 426);
    const other = await mf.dispatchFetch(new URL("?run=plain", ready), {
      headers: { Upgrade: "websocket", "Sec-WebSocket-Protocol": "xmd.remote.v2" },
    });
    await other.body?.cancel();
    assert.equal(other.status, 400);
  });

  await t.step(
    "RM-7: a second executor is busy until the first socket closes, then acquires at once",
    async () => {
      const { owner } = await opened("owned");
      const second = await Socket.open(mf, socketUrl("owned"));
      const before = await dumpOf("owned");
      assert.equal(
        await refusedCode(
          second.send,
          encodeMessage({ v: 1, id: 1, type: "hello", role: "executor" }),
        ),
        "run.busy",
      );
      assert.equal(await dumpOf("owned"), before);
      await owner.close();
      // The object learns of the close through its own event: ask again until it has.
      let epoch: number | null = null;
      for (let attempt = 0; attempt < 200 && epoch === null; attempt++) {
        const { reply } = decodeReply(
          await second.send(encodeMessage({ v: 1, id: 2, type: "hello", role: "executor" })),
        );
        if (reply.type === "hello") epoch = reply.epoch;
        else {
          assert.ok(reply.type === "error" && reply.code === "run.busy");
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
      assert.equal(epoch, 2);
      const run = (await call(second.send, { type: "read-run" })).run;
      assert.equal(run?.record.status, "interrupted");
      await second.close();
    },
  );

  await t.step(
    "RM-14: a commit with a file over 1 MiB lands and reads back byte for byte",
    async () => {
      const { owner, frontier } = await opened("files");
      const big = new Uint8Array(1024 * 1024 + 17).map((_, i) => (i * 7) % 256);
      const built = buildRoot({
        "big.bin": big,
        docs: { "a.md": "# A\n" },
        link: { symlink: "docs/a.md" },
      });
      const after = await commitRoot(owner.send, frontier, built);
      assert.deepEqual(after, { execution: 1, events: 1, root: built.root });
      const reader = await Socket.open(mf, socketUrl("files"));
      await call(reader.send, { type: "hello", role: "reader" });
      const chunks = await call(reader.send, {
        type: "get-chunks",
        hashes: built.chunks.map((c) => c.hash),
      });
      assert.deepEqual(chunks.payload.slice(0, big.length), big);
      const objects = await call(reader.send, {
        type: "get-objects",
        hashes: built.objects.map((o) => o.hash),
      });
      assert.deepEqual(objects.objects, built.objects);
      await reader.close();
      await owner.close();
    },
  );

  await t.step(
    "RM-18: 10,000 hostile frames over sockets change nothing; a valid commit still lands",
    async () => {
      const { owner, frontier } = await opened("fuzz");
      const reader = await Socket.open(mf, socketUrl("fuzz"));
      await call(reader.send, { type: "hello", role: "reader" });
      const fresh = await Socket.open(mf, socketUrl("fuzz"));
      const lanes: Record<Lane, Send> = {
        owner: owner.send,
        reader: reader.send,
        fresh: fresh.send,
      };
      const before = await dumpOf("fuzz");
      for (const item of fuzzCorpus(20261202, 10_000, frontier)) {
        const { reply } = decodeReply(await lanes[item.lane](item.message));
        if (reply.type === "error") {
          assert.notEqual(reply.code, "internal", `${item.kind}: ${reply.message}`);
        } else {
          assert.ok(!item.mustRefuse, `${item.kind} was accepted as ${reply.type}`);
        }
      }
      // A message over the bound but under the runtime's 32 MiB is refused, the socket kept.
      assert.equal(
        await refusedCode(owner.send, new Uint8Array(MAX_MESSAGE_BYTES + 1)),
        "protocol.too_large",
      );
      assert.equal(await dumpOf("fuzz"), before);
      const landed = await commitRoot(
        owner.send,
        frontier,
        buildRoot({ "after.txt": "survived\n" }),
      );
      assert.equal(landed.events, 1);
      for (const socket of [owner, reader, fresh]) await socket.close();
    },
  );
});
