/**
 * Storage of Workspace objects in `ws_object`. An object is named by the
 * SHA-256 of its full canonical text (root format 1), however it is stored:
 * a file object, and any tree object without a suitable base, as its full
 * text (`base` NULL, `depth` 0); a tree object rebuilt from a previous tree
 * may be stored as a delta against it (`base` that tree's hash, `depth` one
 * more than the base's), its body the canonical JSON
 * `{"remove":[<name>…],"set":[[<name>,<kind>,<mode>,<ref>]…]}`. A changed
 * directory then stores a few hundred bytes instead of its whole listing.
 *
 * Invariants:
 * - Chains are at most `MAX_DEPTH` deltas long, so reading an object costs
 *   at most that many row reads more than its full text.
 * - Every read rebuilds the full text and checks it hashes to its name;
 *   a missing base, a malformed row or delta, a depth that does not descend
 *   by one (so no cycle) or a wrong hash is `WorkflowDatabaseCorruptError`.
 *   Nothing is repaired.
 * - A row is never changed once stored. A connection that counts its
 *   rollbacks (`SqlSeam.rollbacks`) remembers the depth of each row it
 *   inserted or read, until its next rollback (which may have removed a row
 *   it inserted): a delta's base depth is read from storage only when not
 *   remembered.
 *
 * @module
 */
import { lazySchema, sha256Hex } from "@xmd/core/protocol";
import * as z from "zod/mini";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { objectHash, type Sha256, treeObjectOf } from "./root-format.ts";
import { compareUtf8 } from "./workspace.ts";

/** The longest chain of deltas from an object to a full text. */
export const MAX_DEPTH = 16;
/** A delta is stored only when its body is at most this fraction of the full text. */
const MAX_DELTA_SHARE = 0.25;

/** A tree object's changes against a base tree object. */
export interface TreeDelta {
  /** The base tree object's hash. */
  readonly base: string;
  /** The entries set (added or changed), as canonical JSON, sorted by UTF-8 name. */
  readonly set: readonly string[];
  /** The names removed, sorted by UTF-8 bytes. */
  readonly remove: readonly string[];
}

const HASH = lazySchema(() => z.string().check(z.regex(/^[0-9a-f]{64}$/)));
const RowSchema = lazySchema(() =>
  z.union([
    z.object({ body: z.string(), base: z.null(), depth: z.literal(0) }),
    z.object({
      body: z.string(),
      base: HASH,
      depth: z.number().check(z.int(), z.gte(1), z.lte(MAX_DEPTH)),
    }),
  ])
);
type Row = z.infer<typeof RowSchema>;
const EntrySchema = lazySchema(() => z.tuple([z.string(), z.string(), z.number(), z.string()]));
const DeltaSchema = lazySchema(() =>
  z.strictObject({ remove: z.array(z.string()), set: z.array(EntrySchema) })
);
const BaseSchema = lazySchema(() => z.looseObject({ entries: z.array(EntrySchema) }));
const DepthSchema = lazySchema(() => z.object({ depth: z.number().check(z.int(), z.gte(0)) }));

/**
 * Stores object `text` named `hash` (within the caller's transaction), as a
 * delta against `delta.base` when that is given, short enough, and keeps
 * the chain within `MAX_DEPTH`; as its full text otherwise. An object
 * already stored is left as it is. True when the delta was used.
 */
export function storeObject(
  sql: SqlSeam,
  hash: string,
  text: string,
  delta?: TreeDelta,
): boolean {
  const depths = knownDepths(sql);
  if (delta) {
    const body = `{"remove":${JSON.stringify(delta.remove)},"set":[${delta.set.join(",")}]}`;
    if (body.length <= text.length * MAX_DELTA_SHARE) {
      const depth = depths?.get(delta.base) ?? storedDepth(sql, delta.base, depths);
      if (depth !== undefined && depth < MAX_DEPTH) {
        const inserted = sql.exec(
          "INSERT OR IGNORE INTO ws_object (hash, body, base, depth) VALUES (?, ?, ?, ?) " +
            "RETURNING depth",
          hash,
          body,
          delta.base,
          depth + 1,
        );
        if (inserted.length > 0) remember(depths, hash, depth + 1);
        return true;
      }
    }
  }
  const inserted = sql.exec(
    "INSERT OR IGNORE INTO ws_object (hash, body) VALUES (?, ?) RETURNING depth",
    hash,
    text,
  );
  if (inserted.length > 0) remember(depths, hash, 0);
  return false;
}

/** Rows remembered per connection at most (then forgotten together). */
const MAX_KNOWN_DEPTHS = 4096;
const depthMemory = new WeakMap<SqlSeam, { rollbacks: number; depths: Map<string, number> }>();

/**
 * The depths remembered on `sql` since its last rollback (none remembered
 * across one); undefined for a connection that does not count rollbacks.
 */
function knownDepths(sql: SqlSeam): Map<string, number> | undefined {
  const rollbacks = sql.rollbacks;
  if (rollbacks === undefined) return undefined;
  let memory = depthMemory.get(sql);
  if (memory === undefined || memory.rollbacks !== rollbacks) {
    memory = { rollbacks, depths: new Map() };
    depthMemory.set(sql, memory);
  }
  return memory.depths;
}

function remember(depths: Map<string, number> | undefined, hash: string, depth: number): void {
  if (depths === undefined) return;
  if (depths.size >= MAX_KNOWN_DEPTHS) depths.clear();
  depths.set(hash, depth);
}

/** The stored depth of object `hash`, or undefined when it is missing or malformed. */
function storedDepth(
  sql: SqlSeam,
  hash: string,
  depths: Map<string, number> | undefined,
): number | undefined {
  const base = DepthSchema.safeParse(
    sql.exec("SELECT depth FROM ws_object WHERE hash = ?", hash)[0],
  );
  if (!base.success) return undefined;
  remember(depths, hash, base.data.depth);
  return base.data.depth;
}

/**
 * The full text of object `hash`, checked against its hash; undefined when
 * no such object is stored. `where` names what is read, for the error;
 * `sha256` is the hash it is checked with (a runtime's native one: every
 * object a walk or a verification reads is hashed here).
 */
export function readObjectText(
  sql: SqlSeam,
  hash: string,
  where: string,
  sha256: Sha256 = sha256Hex,
): string | undefined {
  return readStoredObject(sql, hash, where, sha256)?.text;
}

/** Object `hash` as `readStoredObject` reads it: its full text, and how its row stores it. */
export interface StoredObject {
  /** The full text, checked against the hash. */
  readonly text: string;
  /** The row's body: the full text, or the delta against `base`. */
  readonly body: string;
  /** The base tree the body is a delta against; null when the body is the full text. */
  readonly base: string | null;
}

/**
 * Object `hash` read as `readObjectText` reads it (the same checks), with
 * its own row's body and base beside the full text: for a caller that sends
 * a tree as the delta it is stored as, in one read.
 */
export function readStoredObject(
  sql: SqlSeam,
  hash: string,
  where: string,
  sha256: Sha256 = sha256Hex,
): StoredObject | undefined {
  const top = rowOf(sql, hash, hash, where);
  if (top === undefined) return undefined;
  const deltas: Row[] = [];
  let row = top;
  while (row.base !== null) {
    deltas.push(row);
    const base = rowOf(sql, row.base, hash, where);
    if (base === undefined) throw damaged(where, hash, "has a missing base");
    if (base.depth !== row.depth - 1) throw damaged(where, hash, "is malformed");
    row = base;
  }
  const text = deltas.length === 0 ? row.body : applyDeltas(row.body, deltas, hash, where);
  if (objectHash(text, sha256) !== hash) throw damaged(where, hash, "does not match its hash");
  return { text, body: top.body, base: top.base };
}

function rowOf(sql: SqlSeam, hash: string, reading: string, where: string): Row | undefined {
  const found = sql.exec("SELECT body, base, depth FROM ws_object WHERE hash = ?", hash)[0];
  if (found === undefined) return undefined;
  const row = RowSchema.safeParse(found);
  if (!row.success) throw damaged(where, reading, "is malformed");
  return row.data;
}

/** Applies `deltas` (newest first) to the base tree text `full`. */
function applyDeltas(full: string, deltas: readonly Row[], hash: string, where: string): string {
  const base = BaseSchema.safeParse(parseJson(full));
  if (!base.success) throw damaged(where, hash, "is malformed");
  const entries = new Map(base.data.entries.map((entry) => [entry[0], entry]));
  for (let i = deltas.length - 1; i >= 0; i--) {
    const delta = DeltaSchema.safeParse(parseJson(deltas[i].body));
    if (!delta.success) throw damaged(where, hash, "is malformed");
    for (const name of delta.data.remove) entries.delete(name);
    for (const entry of delta.data.set) entries.set(entry[0], entry);
  }
  const names = [...entries.keys()].sort(compareUtf8);
  return treeObjectOf(`[${names.map((name) => JSON.stringify(entries.get(name))).join(",")}]`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function damaged(where: string, hash: string, state: string): WorkflowDatabaseCorruptError {
  return new WorkflowDatabaseCorruptError(
    `Cannot read ${where}: Workspace object ${hash.slice(0, 12)} ${state}`,
  );
}
