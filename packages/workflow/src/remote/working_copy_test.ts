/**
 * `fetchRoot` over a channel that serves objects at once and leaves each
 * chunk reply to the test, so what is in flight before which reply is
 * observed exactly.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import { nativeSha256Hex } from "../deno/native-sha256.ts";
import { NodeSqliteSeam } from "../deno/node-sqlite-seam.ts";
import { openWorkingCopy } from "../deno/working-copy-database.ts";
import { initializeSchema } from "../store/schema.ts";
import { readObjectText } from "../workspace/object-store.ts";
import { publishRoot } from "../workspace/publish-root.ts";
import { Workspace } from "../workspace/workspace.ts";
import type { RequestType } from "./frames.ts";
import type { CallBody, ChannelReply, RemoteChannel } from "./remote-channel.ts";
import { CHUNK_REQUESTS_IN_FLIGHT, fetchRoot } from "./working-copy.ts";

const FILES = 35;

/** A run database whose Workspace holds `FILES` files of distinct content, published. */
function source(): { seam: NodeSqliteSeam; root: string } {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"), "the Durable Object");
  initializeSchema(seam);
  const workspace = new Workspace(seam, { sha256: nativeSha256Hex });
  const root = seam.transaction(() => {
    for (let i = 0; i < FILES; i++) {
      workspace.writeFile(`/f${i}.txt`, new TextEncoder().encode(`file ${i}\n`));
    }
    return publishRoot(seam, nativeSha256Hex);
  });
  return { seam, root };
}

function emptyCopy(): NodeSqliteSeam {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"), "the copy");
  initializeSchema(seam);
  return seam;
}

/** Serves `get-objects` from `from` at once; holds each `get-chunks` until `release(i, damage)`. */
function servingChannel(from: NodeSqliteSeam) {
  const held: { hashes: string[]; release(damage?: boolean): void }[] = [];
  const channel: RemoteChannel = {
    call<T extends RequestType>(body: CallBody<T>) {
      return new Promise<ChannelReply<T>>((resolve) => {
        const request = body as unknown as { type: string; hashes: string[] };
        if (request.type === "get-objects") {
          const objects = request.hashes.map((hash) => ({
            hash,
            text: readObjectText(from, hash, "the Durable Object")!,
          }));
          resolve({
            reply: { objects, missing: [], served: objects.length },
            payload: new Uint8Array(),
          } as unknown as ChannelReply<T>);
          return;
        }
        held.push({
          hashes: request.hashes,
          release: (damage = false) => {
            const data = request.hashes.map((hash) =>
              from.exec("SELECT data FROM ws_chunk WHERE hash = ?", hash)[0].data as Uint8Array
            );
            const payload = new Uint8Array(data.reduce((n, d) => n + d.length, 0));
            let at = 0;
            for (const d of data) {
              payload.set(d, at);
              at += d.length;
            }
            if (damage) payload[0] ^= 1;
            resolve({
              reply: {
                chunks: request.hashes.map((hash, i) => ({ hash, length: data[i].length })),
                missing: [],
              },
              payload,
            } as unknown as ChannelReply<T>);
          },
        });
      });
    },
  };
  return { channel, held };
}

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

Deno.test("RM-64 acquisition pipelines its chunk requests: at most 4 unanswered, replies verified in order, every chunk stored", async () => {
  const { seam: from, root } = source();
  const copy = emptyCopy();
  const { channel, held } = servingChannel(from);
  const fetched = fetchRoot(channel, copy, root, nativeSha256Hex);
  await tick();
  // 35 chunks: five requests of 7, four of them before any reply.
  assert.equal(held.length, CHUNK_REQUESTS_IN_FLIGHT);
  held[0].release();
  await tick();
  assert.equal(held.length, 5);
  for (const request of held.slice(1)) request.release();
  const known = await fetched;
  assert.ok(known.has(root));
  const count = (seam: NodeSqliteSeam) =>
    (seam.exec("SELECT count(*) AS n FROM ws_chunk")[0] as { n: number }).n;
  assert.equal(count(copy), count(from));
});

Deno.test("RM-64 a damaged chunk among pipelined replies is WorkflowDatabaseCorruptError; the replies behind it raise nothing", async () => {
  const { seam: from, root } = source();
  const copy = emptyCopy();
  const { channel, held } = servingChannel(from);
  const fetched = fetchRoot(channel, copy, root, nativeSha256Hex);
  await tick();
  held[0].release(true);
  for (const request of held.slice(1)) request.release();
  await assert.rejects(fetched, WorkflowDatabaseCorruptError);
  assert.equal((copy.exec("SELECT count(*) AS n FROM ws_chunk")[0] as { n: number }).n, 0);
});

Deno.test("RM-64 the runner's working copy is a run database written without waiting for the disk (synchronous = OFF)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    using seam = await openWorkingCopy(`${dir}/copy.sqlite`, "the copy");
    assert.equal((seam.exec("PRAGMA synchronous")[0] as { synchronous: number }).synchronous, 0);
    assert.equal(
      (seam.exec("PRAGMA journal_mode")[0] as { journal_mode: string }).journal_mode,
      "wal",
    );
    assert.equal((seam.exec("SELECT count(*) AS n FROM run")[0] as { n: number }).n, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
