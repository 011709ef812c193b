/**
 * `RemoteRunCommits` over a channel whose replies the test releases one by
 * one, so what goes on the wire before which reply is observed exactly.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { JournalEvent } from "@xmd/core/protocol";
import { nativeSha256Hex } from "../deno/native-sha256.ts";
import { NodeSqliteSeam } from "../deno/node-sqlite-seam.ts";
import { initializeSchema } from "../store/schema.ts";
import { publishRoot } from "../workspace/publish-root.ts";
import { Workspace } from "../workspace/workspace.ts";
import type { CallBody, ChannelReply, RemoteChannel } from "./remote-channel.ts";
import { RemoteProtocolError } from "./remote-protocol-error.ts";
import { CHUNK_FRAMES_IN_FLIGHT, RemoteRunCommits } from "./remote-run-commits.ts";
import type { RequestType } from "./frames.ts";

interface Call {
  type: RequestType;
  written?: () => void;
  settle(reply: unknown): void;
  fail(error: Error): void;
}

/** A channel that records each call and leaves its reply to the test. */
function heldChannel(): { channel: RemoteChannel; calls: Call[]; tick(): Promise<void> } {
  const calls: Call[] = [];
  const channel: RemoteChannel = {
    call<T extends RequestType>(body: CallBody<T>, _payload?: Uint8Array, written?: () => void) {
      return new Promise<ChannelReply<T>>((resolve, reject) => {
        calls.push({
          type: body.type,
          written,
          settle: (reply) => resolve({ reply, payload: new Uint8Array() } as ChannelReply<T>),
          fail: reject,
        });
      });
    },
  };
  // Lets the commit's awaits run until it waits on a reply again.
  const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
  return { channel, calls, tick };
}

/** A working copy whose live Workspace holds `files` files of distinct content, published. */
function workingCopy(files: number): { seam: NodeSqliteSeam; empty: string; root: string } {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"), "the copy");
  initializeSchema(seam);
  const workspace = new Workspace(seam, { sha256: nativeSha256Hex });
  const empty = seam.transaction(() => publishRoot(seam, nativeSha256Hex));
  const root = seam.transaction(() => {
    for (let i = 0; i < files; i++) {
      workspace.writeFile(`/f${i}.txt`, new TextEncoder().encode(`file ${i}\n`));
    }
    return publishRoot(seam, nativeSha256Hex);
  });
  return { seam, empty, root };
}

const EVENT = { type: "yield", coroutineId: "root" } as unknown as JournalEvent;

Deno.test("RM-64 chunk frames are pipelined: at most 4 await replies, and the commit goes before the last of them are answered", async () => {
  // 35 chunks: five put-chunks frames of 7.
  const { seam, empty, root } = workingCopy(35);
  const { channel, calls, tick } = heldChannel();
  const commits = new RemoteRunCommits(channel, seam, new Set([empty]), [], "the copy");
  const expected = { execution: 1, events: 0, root: empty };
  const done = commits.commit({ kind: "append", expected, event: EVENT, root });
  await tick();
  assert.deepEqual(
    calls.map((call) => call.type),
    Array(CHUNK_FRAMES_IN_FLIGHT).fill("put-chunks"),
  );
  calls[0].settle({ stored: 7 });
  await tick();
  assert.deepEqual(calls.map((call) => call.type), [...Array(5).fill("put-chunks"), "commit"]);
  for (const call of calls.slice(1, 5)) call.settle({ stored: 7 });
  calls[5].settle({ frontier: { execution: 1, events: 1, root }, eventId: 1 });
  await done;
});

Deno.test("RM-64 a refused put-chunks is the error raised, though the commit behind it was refused too; nothing becomes known", async () => {
  const { seam, empty, root } = workingCopy(3);
  const { channel, calls, tick } = heldChannel();
  const commits = new RemoteRunCommits(channel, seam, new Set([empty]), [], "the copy");
  const expected = { execution: 1, events: 0, root: empty };
  const done = commits.commit({ kind: "append", expected, event: EVENT, root });
  await tick();
  assert.deepEqual(calls.map((call) => call.type), ["put-chunks", "commit"]);
  // The Durable Object answers in order: the chunk's refusal, then the commit naming it.
  calls[0].fail(new RemoteProtocolError("chunk.digest", "Cannot store chunk 1: it differs"));
  calls[1].fail(new RemoteProtocolError("object.missing", "a chunk that was not sent ahead"));
  await assert.rejects(done, (error: Error) => {
    assert.ok(error instanceof RemoteProtocolError);
    assert.equal(error.code, "chunk.digest");
    return true;
  });
  // Nothing was acknowledged, so the same change sends its chunks again.
  const again = commits.commit({ kind: "append", expected, event: EVENT, root });
  await tick();
  assert.deepEqual(calls.slice(2).map((call) => call.type), ["put-chunks", "commit"]);
  calls[2].settle({ stored: 3 });
  calls[3].settle({ frontier: { execution: 1, events: 1, root }, eventId: 1 });
  await again;
});

Deno.test("RM-64 the sent point of a commit is its frame written to the socket, not the call", async () => {
  const { seam, empty, root } = workingCopy(1);
  const { channel, calls, tick } = heldChannel();
  let sent = 0;
  const commits = new RemoteRunCommits(
    channel,
    seam,
    new Set([empty]),
    [],
    "the copy",
    () => sent++,
  );
  const expected = { execution: 1, events: 0, root: empty };
  const done = commits.commit({ kind: "append", expected, event: EVENT, root });
  await tick();
  assert.deepEqual(calls.map((call) => call.type), ["put-chunks", "commit"]);
  assert.equal(sent, 0, "nothing counts as sent before the socket took the frame");
  calls[1].written!();
  assert.equal(sent, 1);
  calls[0].settle({ stored: 1 });
  calls[1].settle({ frontier: { execution: 1, events: 1, root }, eventId: 1 });
  await done;
});
