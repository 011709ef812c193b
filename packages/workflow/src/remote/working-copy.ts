/**
 * Acquisition: a remote run's committed state copied from its Durable
 * Object into a local run database (the runner's working copy), so that
 * `executeRun`, `EffectTransactions` and Worker Shell run on it unchanged.
 *
 * Invariants:
 * - The copy holds exactly what the Durable Object committed: the run row,
 *   sources, executions, journal (same event ids and roots) and pending
 *   answers, and of the Workspace only the current root: its objects and
 *   chunks, then the live tables materialized from it (`materializeRoot`),
 *   so `liveRootOf` is the root, the copy's frontier is the Durable
 *   Object's, and the next publication is incremental.
 * - Everything received is verified on arrival, before it is stored: each
 *   object hashes to its name and parses strictly as root format 1 (its
 *   canonical text is checked again by `materializeRoot`); each chunk hashes
 *   to its name and is at most a chunk long; a file's chunks add up to its
 *   size. What the Durable Object lacks of its own root is
 *   `WorkflowDatabaseCorruptError`.
 * - What was fetched is returned as the hashes the Durable Object holds, so
 *   a commit sends only what it lacks.
 * - Chunks are asked for in pipelined `get-chunks` requests (at most
 *   `CHUNK_REQUESTS_IN_FLIGHT` unanswered), their replies verified in
 *   order: a Workspace of many small files costs a quarter of the round
 *   trips, with a bounded amount in flight.
 *
 * @module
 */
import { type JournalEvent, sha256Hex } from "@xmd/core/protocol";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { materializeRoot } from "../workspace/materialize-root.ts";
import { storeObject } from "../workspace/object-store.ts";
import { publicationCommitted } from "../workspace/publish-root.ts";
import type { Sha256 } from "../workspace/root-format.ts";
import { FileObjectSchema, TreeObjectSchema } from "../workspace/verify-root.ts";
import {
  MAX_CHUNK_BYTES,
  MAX_CHUNKS_PER_FRAME,
  MAX_EVENTS_PER_PAGE,
  MAX_OBJECT_HASHES,
  type RunSnapshot,
} from "./frames.ts";
import type { ChannelReply, RemoteChannel } from "./remote-channel.ts";

/** `get-chunks` requests awaiting their replies at once (at most 4 × 8 MiB of replies). */
export const CHUNK_REQUESTS_IN_FLIGHT = 4;

/** A committed event as the Durable Object serves it. */
export interface RemoteEvent {
  /** Its id (1-based). */
  id: number;
  /** The execution that appended it. */
  execution: number;
  /** Its commit time (the Durable Object's clock). */
  at: number;
  /** The Workspace root current after it. */
  root: string;
  /** The event. */
  event: JournalEvent;
}

/** A remote run's record and journal. */
export interface RemoteRun {
  /** What `read-run` answered. */
  snapshot: RunSnapshot;
  /** Every committed event, in order. */
  events: RemoteEvent[];
}

/** Reads the run (null when there is none) and its whole journal, page by page. */
export async function readRemoteRun(channel: RemoteChannel): Promise<RemoteRun | null> {
  const { reply } = await channel.call({ type: "read-run" });
  const snapshot = reply.run;
  if (snapshot === null) return null;
  const events: RemoteEvent[] = [];
  while (events.length < snapshot.frontier.events) {
    const from = events.length + 1;
    const page = await channel.call({ type: "read-events", from, limit: MAX_EVENTS_PER_PAGE });
    if (page.reply.events.length === 0) break;
    for (const [i, entry] of page.reply.events.entries()) {
      if (entry.id !== from + i) throw damaged("its journal is not numbered in order");
      events.push(entry);
    }
  }
  if (events.length !== snapshot.frontier.events) {
    throw damaged("its journal does not hold as many events as its frontier counts");
  }
  return { snapshot, events };
}

/**
 * Fetches every object and chunk of `root` that `sql` lacks, each verified
 * on arrival, into `sql`'s object store. Returns every hash reached (objects
 * and chunks): the Durable Object holds them all.
 */
export async function fetchRoot(
  channel: RemoteChannel,
  sql: SqlSeam,
  root: string,
  sha256: Sha256 = sha256Hex,
): Promise<Set<string>> {
  const reached = new Set<string>([root]);
  const chunks: string[] = [];
  let pending = [root];
  while (pending.length > 0) {
    const next: string[] = [];
    let at = 0;
    while (at < pending.length) {
      const asked = pending.slice(at, at + MAX_OBJECT_HASHES);
      const { reply } = await channel.call({ type: "get-objects", hashes: asked });
      if (reply.missing.length > 0) throw damaged("an object its root reaches is missing");
      if (reply.served < 1 || reply.served > asked.length) {
        throw damaged("it answered objects it was not asked for");
      }
      const received = new Map(reply.objects.map((object) => [object.hash, object.text]));
      sql.transaction(() => {
        for (const hash of asked.slice(0, reply.served)) {
          const text = received.get(hash);
          if (text === undefined || sha256(text) !== hash) {
            throw damaged(`object ${hash.slice(0, 12)} does not match its hash`);
          }
          for (const child of referencesOf(text, hash, chunks)) {
            if (!reached.has(child)) {
              reached.add(child);
              next.push(child);
            }
          }
          storeObject(sql, hash, text);
        }
      });
      at += reply.served;
    }
    pending = next;
  }
  const wanted = [...new Set(chunks)].filter((hash) =>
    sql.exec("SELECT 1 AS found FROM ws_chunk WHERE hash = ?", hash).length === 0
  );
  // Chunk requests are pipelined, at most CHUNK_REQUESTS_IN_FLIGHT unanswered, replies taken in order.
  const requests: { asked: string[]; reply: Promise<ChannelReply<"get-chunks">> }[] = [];
  const receive = async (request: (typeof requests)[number]) => {
    const { asked } = request;
    const { reply, payload } = await request.reply;
    if (reply.missing.length > 0) throw damaged("a chunk its root reaches is missing");
    let offset = 0;
    sql.transaction(() => {
      for (const [i, chunk] of reply.chunks.entries()) {
        const data = payload.slice(offset, offset + chunk.length);
        offset += chunk.length;
        if (
          chunk.hash !== asked[i] || data.length > MAX_CHUNK_BYTES || sha256(data) !== chunk.hash
        ) {
          throw damaged(`chunk ${asked[i]?.slice(0, 12) ?? ""} does not match its hash`);
        }
        sql.exec("INSERT OR IGNORE INTO ws_chunk (hash, data) VALUES (?, ?)", chunk.hash, data);
      }
    });
    if (reply.chunks.length !== asked.length) throw damaged("it answered other chunks");
  };
  for (let at = 0; at < wanted.length; at += MAX_CHUNKS_PER_FRAME) {
    const asked = wanted.slice(at, at + MAX_CHUNKS_PER_FRAME);
    const reply = channel.call({ type: "get-chunks", hashes: asked });
    // Observed in turn below; one that fails after an earlier failure is not the error raised.
    reply.catch(() => {});
    requests.push({ asked, reply });
    if (requests.length === CHUNK_REQUESTS_IN_FLIGHT) await receive(requests.shift()!);
  }
  while (requests.length > 0) await receive(requests.shift()!);
  for (const chunk of chunks) reached.add(chunk);
  return reached;
}

/**
 * Writes `run` into `sql` (an initialized, empty run database) and
 * materializes its root, whose objects `fetchRoot` stored: afterwards the
 * copy's record, journal and live Workspace are the Durable Object's.
 */
export function writeWorkingCopy(
  sql: SqlSeam,
  run: RemoteRun,
  where: string,
  sha256: Sha256 = sha256Hex,
): void {
  sql.transaction(() => {
    writeRunRows(sql, run);
    materializeRoot(sql, run.snapshot.record.root, run.snapshot.links, where, sha256);
  });
  publicationCommitted(sql);
}

/**
 * Writes `run`'s record, sources, executions, journal and answers into `sql`
 * (an initialized, empty run database), without its Workspace: enough for a
 * replay that attaches no provider.
 */
export function writeRunRows(sql: SqlSeam, run: RemoteRun): void {
  const { snapshot, events } = run;
  const { record } = snapshot;
  sql.transaction(() => {
    sql.exec(
      "INSERT INTO run (singleton, id, document, target, definition_hash, props_hash, " +
        "status, stop_reason, execution, root, created_at, updated_at) " +
        "VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      record.id,
      record.document,
      record.target,
      record.definitionHash,
      record.propsHash,
      record.status,
      record.stopReason === null ? null : JSON.stringify(record.stopReason),
      snapshot.frontier.execution,
      record.root,
      record.createdAt,
      record.updatedAt,
    );
    sql.exec("INSERT INTO props (singleton, value) VALUES (1, ?)", JSON.stringify(snapshot.props));
    for (const source of snapshot.sources) {
      sql.exec(
        "INSERT INTO source (label, sha256, text, root) VALUES (?, ?, ?, ?)",
        source.label,
        sha256Hex(source.text),
        source.text,
        source.root ? 1 : 0,
      );
    }
    for (const execution of snapshot.executions) {
      sql.exec(
        "INSERT INTO execution (seq, kind, started_at, ended_at, outcome) VALUES (?, ?, ?, ?, ?)",
        execution.seq,
        execution.kind,
        execution.startedAt,
        execution.endedAt,
        execution.outcome,
      );
    }
    for (const entry of events) {
      sql.exec(
        "INSERT INTO event (seq, execution, body, root, created_at) VALUES (?, ?, ?, ?, ?)",
        entry.id,
        entry.execution,
        JSON.stringify(entry.event),
        entry.root,
        entry.at,
      );
    }
    for (const answer of snapshot.answers) {
      sql.exec(
        "INSERT INTO answer (suspension_id, value, created_at) VALUES (?, ?, ?)",
        answer.suspensionId,
        JSON.stringify(answer.value),
        record.updatedAt,
      );
    }
  });
}

/** The objects a received object refers to; a file's chunks go to `chunks`. */
function referencesOf(text: string, hash: string, chunks: string[]): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw damaged(`object ${hash.slice(0, 12)} is malformed`);
  }
  const tree = TreeObjectSchema.safeParse(value);
  if (tree.success) {
    return tree.data.entries.filter(([, kind]) => kind !== "symlink").map(([, , , ref]) => ref);
  }
  const file = FileObjectSchema.safeParse(value);
  if (!file.success) throw damaged(`object ${hash.slice(0, 12)} is malformed`);
  chunks.push(...file.data.chunks);
  return [];
}

function damaged(what: string): WorkflowDatabaseCorruptError {
  return new WorkflowDatabaseCorruptError(
    `Cannot acquire the remote run: what its Durable Object sent is damaged: ${what}`,
  );
}
