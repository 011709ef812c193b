/**
 * The remote host's `RunCommits`: each change an executor applies to its
 * working copy is made authoritative by the run's Durable Object before the
 * copy commits it, sending only what the Durable Object lacks.
 *
 * Invariants:
 * - The hashes the Durable Object holds are tracked (fetched at acquisition,
 *   or acknowledged by a commit); the new root is walked from the copy's
 *   object store, stopping at known hashes, so a commit carries the objects
 *   and chunks its effect created and nothing else.
 * - A change's new chunks ride in its `commit` frame when they are at most 7
 *   and at most 1 MiB together (a small effect is one frame and one
 *   transaction in the Durable Object); more go ahead in `put-chunks` (at
 *   most 7 a frame). Objects go with the `commit` frame, or are staged ahead
 *   with `put-objects` when they do not fit one message. An event or object over the row limit is refused before
 *   any frame is sent (`limit.row`).
 * - The chunk frames are pipelined: at most `CHUNK_FRAMES_IN_FLIGHT` await
 *   their replies at once, and the last of them are still in flight when the
 *   commit goes, so a small effect costs one round trip, not two. The
 *   Durable Object handles a socket's frames in order and refuses a commit
 *   naming a chunk it does not hold, so a refused `put-chunks` can never be
 *   followed by a landed commit; its refusal is the one raised.
 * - A hash becomes known only once the commit that reaches it is
 *   acknowledged, and the acknowledged frontier must be the one the change
 *   produces; anything else rejects, so the working copy rolls back.
 * - Hard-link groups travel with a commit only when they changed.
 * - A tree the working copy stored as a delta (publication does, for a
 *   small change of a large directory) against a tree the Durable Object
 *   holds travels as that delta; every other object as its full text.
 *
 * @module
 */
import { canonicalJson, sha256Hex } from "@xmd/core/protocol";
import * as z from "zod";
import type { Frontier, RunChange, RunCommits } from "../execution/run-commits.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { liveHardLinks } from "../workspace/hard-links.ts";
import { readStoredObject, type StoredObject } from "../workspace/object-store.ts";
import type { Sha256 } from "../workspace/root-format.ts";
import { FileObjectSchema, TreeObjectSchema } from "../workspace/verify-root.ts";
import {
  type ChunkHeader,
  MAX_CHUNK_BYTES,
  MAX_CHUNKS_PER_FRAME,
  MAX_MESSAGE_BYTES,
  type SentObject,
} from "./frames.ts";
import type { ChannelReply, RemoteChannel } from "./remote-channel.ts";
import { RemoteProtocolError } from "./remote-protocol-error.ts";
import { checkRow } from "./row-limit.ts";

/** Room left in a frame for its header beside the objects or chunks it carries. */
const FRAME_MARGIN = 256 * 1024;
const OBJECTS_PER_FRAME_BYTES = MAX_MESSAGE_BYTES - FRAME_MARGIN;
/** Chunk bytes a commit carries itself (more go ahead in `put-chunks`): one chunk's worth. */
export const INLINE_CHUNK_BYTES = MAX_CHUNK_BYTES;
/** `put-chunks` frames awaiting their replies at once (at most 4 × 8 MiB buffered). */
export const CHUNK_FRAMES_IN_FLIGHT = 4;

/** How a `RemoteRunCommits` reads its working copy and reports its frames. */
export interface RemoteRunCommitsOptions {
  /**
   * Called once each change's frame is written to the socket, before its
   * reply (the runner's `sent` failpoint).
   */
  onSent?: () => void;
  /**
   * SHA-256 as hex, that each object read from the working copy is checked
   * with (a runtime's native one; default the portable `sha256Hex`).
   */
  sha256?: Sha256;
}

/** Commits a working copy's changes through one executor connection. */
export class RemoteRunCommits implements RunCommits {
  readonly #channel: RemoteChannel;
  readonly #sql: SqlSeam;
  readonly #known: Set<string>;
  readonly #where: string;
  readonly #onSent: (() => void) | undefined;
  readonly #sha256: Sha256;
  #links: string;

  /**
   * Commits over `channel` from the working copy `sql`, whose Durable Object
   * holds `known` (the hashes acquisition fetched) and the hard-link groups
   * `links` of its current root.
   */
  constructor(
    channel: RemoteChannel,
    sql: SqlSeam,
    known: Set<string>,
    links: readonly (readonly string[])[],
    where: string,
    options: RemoteRunCommitsOptions = {},
  ) {
    this.#channel = channel;
    this.#sql = sql;
    this.#known = known;
    this.#links = canonicalLinks(links);
    this.#where = where;
    this.#onSent = options.onSent;
    this.#sha256 = options.sha256 ?? sha256Hex;
  }

  async commit(change: RunChange): Promise<void> {
    if (change.kind === "settle") {
      const { status } = change;
      if (status === "running" || status === "cancelled") {
        throw new RemoteProtocolError(
          "settle.invalid",
          `Cannot settle an execution as ${status}; this is a bug in xmd`,
        );
      }
      const sent = this.#channel.call(
        {
          type: "settle",
          expected: change.expected,
          status,
          stopReason: change.stopReason,
        },
        undefined,
        this.#onSent,
      );
      const { reply } = await sent;
      this.#check(reply.frontier, change.expected);
      return;
    }
    checkRow(JSON.stringify(change.event), `the event after event ${change.expected.events}`);
    const { objects, chunks } = this.#lacking(change.root);
    for (const object of objects) {
      checkRow(object.text, `Workspace object ${object.hash.slice(0, 12)}`);
    }
    // A few small chunks ride in the commit itself: one frame, one transaction (and one durable
    // write) in the Durable Object. More go ahead in put-chunks frames.
    const inline = chunks.length <= MAX_CHUNKS_PER_FRAME ? this.#chunkBatch(chunks) : undefined;
    const carry = inline !== undefined && inline.payload.length <= INLINE_CHUNK_BYTES;
    const puts = carry ? [] : await this.#putChunks(chunks);
    let sent: Promise<ChannelReply<"commit">>;
    let links: string;
    try {
      const carried = await this.#stageAhead(
        objects,
        OBJECTS_PER_FRAME_BYTES - (carry ? inline.payload.length : 0),
      );
      const groups = liveHardLinks(this.#sql, change.root);
      links = canonicalLinks(groups);
      sent = this.#channel.call(
        {
          type: "commit",
          expected: change.expected,
          event: change.event,
          root: change.root,
          ...(carried.length > 0 ? { objects: carried } : {}),
          ...(links !== this.#links ? { links: groups } : {}),
          ...(carry && inline.headers.length > 0 ? { chunks: inline.headers } : {}),
        },
        carry && inline.headers.length > 0 ? inline.payload : undefined,
        this.#onSent,
      );
      // Observed below, unless a chunk's refusal is raised first.
      sent.catch(() => {});
    } finally {
      // A chunk refused (or lost) is what went wrong, whatever came after it.
      await Promise.all(puts);
    }
    const { reply } = await sent;
    this.#check(reply.frontier, {
      execution: change.expected.execution,
      events: change.expected.events + 1,
      root: change.root,
    });
    for (const object of objects) this.#known.add(object.hash);
    for (const chunk of chunks) this.#known.add(chunk);
    this.#links = links;
  }

  /** The objects and chunks reached from `root` that the Durable Object lacks. */
  #lacking(root: string): { objects: Sendable[]; chunks: string[] } {
    const objects: Sendable[] = [];
    const chunks = new Set<string>();
    const seen = new Set<string>();
    const stack = [root];
    while (stack.length > 0) {
      const hash = stack.pop()!;
      if (this.#known.has(hash) || seen.has(hash)) continue;
      seen.add(hash);
      // One read: the text (checked against its hash) and the row it is stored as.
      const stored = readStoredObject(this.#sql, hash, this.#where, this.#sha256);
      if (stored === undefined) {
        throw new RemoteProtocolError(
          "object.missing",
          `Cannot commit root ${root.slice(0, 12)}: the working copy lacks one of its objects`,
        );
      }
      objects.push(this.#sendable(hash, stored));
      const value = JSON.parse(stored.text);
      // A file object's canonical text starts with its chunks, so it is parsed as a file first
      // (a failed parse costs more than a successful one); each is parsed strictly either way.
      const file = stored.text.startsWith(FILE_PREFIX) ? FileObjectSchema.safeParse(value) : null;
      if (file?.success) {
        for (const chunk of file.data.chunks) if (!this.#known.has(chunk)) chunks.add(chunk);
        continue;
      }
      const tree = TreeObjectSchema.safeParse(value);
      if (tree.success) {
        for (const [, kind, , ref] of tree.data.entries) if (kind !== "symlink") stack.push(ref);
        continue;
      }
      for (const chunk of FileObjectSchema.parse(value).chunks) {
        if (!this.#known.has(chunk)) chunks.add(chunk);
      }
    }
    return { objects, chunks: [...chunks] };
  }

  /**
   * Object `hash` as it is sent: a tree the copy stored as a delta against a
   * tree the Durable Object holds goes as that delta, anything else as its
   * full text.
   */
  #sendable(hash: string, stored: StoredObject): Sendable {
    const { text, body, base } = stored;
    if (base !== null && this.#known.has(base)) {
      const delta = DeltaSchema.safeParse(parseJson(body));
      if (delta.success) return { hash, text, sent: { hash, base, ...delta.data } };
    }
    return { hash, text, sent: { hash, text } };
  }

  /**
   * Sends `hashes` in `put-chunks` frames, at most `CHUNK_FRAMES_IN_FLIGHT`
   * awaiting replies at once; resolves with the replies still awaited (each
   * already handled, so none rejects unobserved).
   */
  async #putChunks(hashes: readonly string[]): Promise<Promise<unknown>[]> {
    const inFlight: Promise<unknown>[] = [];
    for (let at = 0; at < hashes.length; at += MAX_CHUNKS_PER_FRAME) {
      const { headers, payload } = this.#chunkBatch(hashes.slice(at, at + MAX_CHUNKS_PER_FRAME));
      if (inFlight.length === CHUNK_FRAMES_IN_FLIGHT) await inFlight.shift();
      const put = this.#channel.call({ type: "put-chunks", chunks: headers }, payload);
      put.catch(() => {});
      inFlight.push(put);
    }
    return inFlight;
  }

  /** The working copy's chunks `hashes` as one frame's headers and payload. */
  #chunkBatch(hashes: readonly string[]): { headers: ChunkHeader[]; payload: Uint8Array } {
    const batch = hashes.map((hash) => {
      const data = this.#sql.exec("SELECT data FROM ws_chunk WHERE hash = ?", hash)[0]?.data;
      if (!(data instanceof Uint8Array)) {
        throw new RemoteProtocolError(
          "object.missing",
          "Cannot commit: the working copy lacks a chunk of its root",
        );
      }
      return { hash, data };
    });
    const payload = new Uint8Array(batch.reduce((sum, chunk) => sum + chunk.data.length, 0));
    let offset = 0;
    for (const chunk of batch) {
      payload.set(chunk.data, offset);
      offset += chunk.data.length;
    }
    return { headers: batch.map(({ hash, data }) => ({ hash, length: data.length })), payload };
  }

  /**
   * Stages with `put-objects` the objects that do not fit the commit frame
   * (several frames when they need it); returns the ones the commit carries.
   */
  async #stageAhead(objects: readonly Sendable[], room: number): Promise<SentObject[]> {
    let batch: SentObject[] = [];
    let size = 0;
    for (const object of objects) {
      const bytes = JSON.stringify(object.sent).length * 3 + 100;
      if (batch.length > 0 && size + bytes > room) {
        await this.#channel.call({ type: "put-objects", objects: batch });
        batch = [];
        size = 0;
      }
      batch.push(object.sent);
      size += bytes;
    }
    return batch;
  }

  #check(acknowledged: Frontier, expected: Frontier): void {
    if (
      acknowledged.execution !== expected.execution || acknowledged.events !== expected.events ||
      acknowledged.root !== expected.root
    ) {
      throw new RemoteProtocolError(
        "frontier.stale",
        "The run's Durable Object acknowledged another frontier than the change produces",
      );
    }
  }
}

/** An object to send: its full text (for the row limit) and how it travels. */
interface Sendable {
  hash: string;
  text: string;
  sent: SentObject;
}

/** How a file object's canonical text (root format 1) begins. */
const FILE_PREFIX = '{"chunks":[';
const DeltaSchema = z.object({
  remove: z.array(z.string()),
  set: z.array(
    z.tuple([z.string(), z.enum(["dir", "file", "symlink"]), z.number().int(), z.string()]),
  ),
}).strict();

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function canonicalLinks(links: readonly (readonly string[])[]): string {
  return canonicalJson(links.map((group) => [...group].sort()).sort());
}
