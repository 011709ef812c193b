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
  body: Record<string, unknown>;
  payload?: Uint8Array;
  written?: () => void;
  settle(reply: unknown): void;
  fail(error: Error): void;
}

/** A channel that records each call and leaves its reply to the test. */
function heldChannel(): { channel: RemoteChannel; calls: Call[]; tick(): Promise<void> } {
  const calls: Call[] = [];
  const channel: RemoteChannel = {
    call<T extends RequestType>(body: CallBody<T>, payload?: Uint8Array, written?: () => void) {
      return new Promise<ChannelReply<T>>((resolve, reject) => {
        calls.push({
          type: body.type,
          body: body as unknown as Record<string, unknown>,
          payload,
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
function workingCopy(
  files: number,
  content: (i: number) => Uint8Array = (i) => new TextEncoder().encode(`file ${i}\n`),
): { seam: NodeSqliteSeam; empty: string; root: string } {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"), "the copy");
  initializeSchema(seam);
  const workspace = new Workspace(seam, { sha256: nativeSha256Hex });
  const empty = seam.transaction(() => publishRoot(seam, nativeSha256Hex));
  const root = seam.transaction(() => {
    for (let i = 0; i < files; i++) {
      workspace.writeFile(`/f${i}.txt`, content(i));
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
  // 8 chunks: too many to ride in the commit, so two put-chunks frames go ahead.
  const { seam, empty, root } = workingCopy(8);
  const { channel, calls, tick } = heldChannel();
  const commits = new RemoteRunCommits(channel, seam, new Set([empty]), [], "the copy");
  const expected = { execution: 1, events: 0, root: empty };
  const done = commits.commit({ kind: "append", expected, event: EVENT, root });
  await tick();
  assert.deepEqual(calls.map((call) => call.type), ["put-chunks", "put-chunks", "commit"]);
  // The Durable Object answers in order: the chunk's refusal, then the commit naming it.
  calls[0].fail(new RemoteProtocolError("chunk.digest", "Cannot store chunk 1: it differs"));
  calls[1].settle({ stored: 1 });
  calls[2].fail(new RemoteProtocolError("object.missing", "a chunk that was not sent ahead"));
  await assert.rejects(done, (error: Error) => {
    assert.ok(error instanceof RemoteProtocolError);
    assert.equal(error.code, "chunk.digest");
    return true;
  });
  // Nothing was acknowledged, so the same change sends its chunks again.
  const again = commits.commit({ kind: "append", expected, event: EVENT, root });
  await tick();
  assert.deepEqual(calls.slice(3).map((call) => call.type), ["put-chunks", "put-chunks", "commit"]);
  calls[3].settle({ stored: 7 });
  calls[4].settle({ stored: 1 });
  calls[5].settle({ frontier: { execution: 1, events: 1, root }, eventId: 1 });
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
    { onSent: () => sent++ },
  );
  const expected = { execution: 1, events: 0, root: empty };
  const done = commits.commit({ kind: "append", expected, event: EVENT, root });
  await tick();
  assert.deepEqual(calls.map((call) => call.type), ["commit"]);
  assert.equal(sent, 0, "nothing counts as sent before the socket took the frame");
  calls[0].written!();
  assert.equal(sent, 1);
  calls[0].settle({ frontier: { execution: 1, events: 1, root }, eventId: 1 });
  await done;
});

Deno.test("RM-121 a change's few small chunks ride in its commit frame (one frame, one transaction); more than 7, or more than 1 MiB together, go ahead in put-chunks", async () => {
  const small = workingCopy(3);
  const { channel, calls, tick } = heldChannel();
  const commits = new RemoteRunCommits(channel, small.seam, new Set([small.empty]), [], "the copy");
  const done = commits.commit({
    kind: "append",
    expected: { execution: 1, events: 0, root: small.empty },
    event: EVENT,
    root: small.root,
  });
  await tick();
  assert.deepEqual(calls.map((call) => call.type), ["commit"]);
  const headers = calls[0].body.chunks as { hash: string; length: number }[];
  assert.equal(headers.length, 3);
  assert.equal(calls[0].payload?.length, headers.reduce((sum, chunk) => sum + chunk.length, 0));
  assert.deepEqual(
    new TextDecoder().decode(calls[0].payload).split("\n").filter(Boolean).sort(),
    ["file 0", "file 1", "file 2"],
  );
  calls[0].settle({ frontier: { execution: 1, events: 1, root: small.root }, eventId: 1 });
  await done;

  // Two files of 600 KiB: two chunks, but over 1 MiB together.
  const large = workingCopy(2, (i) => new Uint8Array(600 * 1024).fill(i + 1));
  const held = heldChannel();
  const later = new RemoteRunCommits(held.channel, large.seam, new Set([large.empty]), [], "x");
  const landed = later.commit({
    kind: "append",
    expected: { execution: 1, events: 0, root: large.empty },
    event: EVENT,
    root: large.root,
  });
  await held.tick();
  assert.deepEqual(held.calls.map((call) => call.type), ["put-chunks", "commit"]);
  assert.equal(held.calls[1].body.chunks, undefined);
  assert.equal(held.calls[1].payload, undefined);
  held.calls[0].settle({ stored: 2 });
  held.calls[1].settle({ frontier: { execution: 1, events: 1, root: large.root }, eventId: 1 });
  await landed;
});
