/**
 * The secret gate on what a live effect wrote into the Workspace: every name
 * it created, every symlink target it stored and every chunk it inserted
 * pass the gate before the effect's transaction commits. A `file.write`
 * event carries only a digest, and a shell block's writes are in no event,
 * so the journal's own gate never sees them.
 *
 * Invariants:
 * - Each new chunk is scanned once, with the last `OVERLAP` bytes of the
 *   chunk before it and the first `OVERLAP` bytes of the chunk after it in
 *   the file written, so a secret across a 1 MiB chunk boundary is still
 *   found; a boundary between two chunks already stored is scanned on its
 *   own. Chunks already stored were gated when they were first written
 *   (content addressing) and are not scanned again.
 * - Only what still exists is scanned (a rolled-back savepoint's writes
 *   are gone and cannot be persisted): each noted name, target and chunk is
 *   read back, unless the notes are `intact` (nothing rolled back or removed
 *   since they began), when all of them still exist and a new chunk's bytes
 *   kept with its note are scanned as they are.
 * - Names are scanned before contents (a refused batch is rescanned text by
 *   text in that order), and a path is named in a refusal only after it
 *   passed the gate itself: a refusal never echoes a secret.
 * - Small texts are scanned together, one per line, in batches of at most
 *   `BATCH` characters (a scan's fixed cost dominates a short text); only
 *   when a batch is refused are its halves, then theirs, scanned again down
 *   to single texts, so a refusal names the first one that holds the secret
 *   and a match across two texts refuses nothing. A text a rule reads as a whole (a JSON object:
 *   secretlint's GCP service-account rule parses the whole text) is never
 *   batched.
 *
 * @module
 */
import { SecretDetectedError, type SecretGate, type SecretWhere } from "@xmd/core";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { intact, type WorkspaceWrites } from "../workspace/workspace-writes.ts";

/** Bytes of each neighbouring chunk scanned with a chunk: longer than any secret the rules find. */
export const OVERLAP = 16 * 1024;
/** Characters of small texts scanned in one call. */
const BATCH = 256 * 1024;
/** Texts at least this long are scanned alone. */
const ALONE = 16 * 1024;

const decoder = new TextDecoder();

/** A journal event's JSON whose check waits for its effect's commit, and its label. */
export interface DeferredEvent {
  /** `JSON.stringify` of the event, as the journal gave it to the gate. */
  readonly text: string;
  /** The journal's label of it (`journal event "File doc.md:3:1"`). */
  readonly where: string | SecretWhere;
}

/**
 * Rejects with `SecretDetectedError` (or `SecretScanError`) when what
 * `writes` noted, or the effect's `event`, holds a secret; `effect` is the
 * effect's name (`File doc.md:3:1`). The event is scanned first, in the
 * first batch: a journal event is a JSON object, but the only rule that
 * reads a text whole (GCP's service-account key) looks for top-level
 * `private_key_id` and `private_key` fields, which no event has.
 */
export async function gateWrites(
  sql: SqlSeam,
  writes: WorkspaceWrites,
  gate: SecretGate,
  effect: string,
  event?: DeferredEvent,
): Promise<void> {
  if (gate.off) return;
  const batch = new Batch(gate, `what "${effect}" wrote into the Workspace`);
  if (event) await batch.add(event.text, (text) => gate.check(text, event.where), true);
  // Nothing rolled back or removed since the effect began: every note still exists.
  const all = intact(sql, writes);
  const names = new Set<string>();
  for (const { parent, name } of writes.names) {
    if (names.has(name)) continue;
    names.add(name);
    if (
      all || sql.exec("SELECT 1 FROM ws_dirent WHERE parent = ? AND name = ?", parent, name).length
    ) {
      await batch.add(
        name,
        (text) => gate.check(text, `a name created in the Workspace by "${effect}"`),
      );
    }
  }
  for (const { ino, target } of writes.targets) {
    if (
      all || sql.exec("SELECT 1 FROM ws_inode WHERE ino = ? AND target = ?", ino, target).length
    ) {
      await batch.add(
        target,
        (text) => gate.check(text, `a symlink target stored in the Workspace by "${effect}"`),
      );
    }
  }
  // Names, targets and contents share batches: a refused batch is scanned text by text in this
  // order, so a name holding a secret is still refused as a name, before any content.
  const scanned = new Set<string>();
  const read = (hash: string) => (all ? writes.kept.get(hash) : undefined) ?? chunk(sql, hash);
  for (const { path, chunks } of writes.contents) {
    for (let i = 0; i < chunks.length; i++) {
      const [before, hash, after] = [chunks[i - 1], chunks[i], chunks[i + 1]];
      const fresh = writes.chunks.has(hash);
      // A new chunk with its neighbours' edges, or the boundary between two stored chunks.
      const key = fresh ? `${before}|${hash}|${after}` : `${before}|${hash}`;
      if ((!fresh && (before === undefined || writes.chunks.has(before))) || scanned.has(key)) {
        continue;
      }
      scanned.add(key);
      const data = read(hash);
      if (data === undefined) continue;
      const head = fresh ? data : data.subarray(0, OVERLAP);
      const text = decoder.decode(concat(
        before === undefined ? undefined : read(before)?.subarray(-OVERLAP),
        head,
        fresh && after !== undefined ? read(after)?.subarray(0, OVERLAP) : undefined,
      ));
      await batch.add(text, (alone) => checkContent(gate, alone, path, effect));
    }
  }
  await batch.flush();
}

/** Small texts scanned together; each alone only when their batch is refused. */
class Batch {
  readonly #gate: SecretGate;
  readonly #where: string;
  #texts: string[] = [];
  #checks: ((text: string) => Promise<void>)[] = [];
  #size = 0;

  constructor(gate: SecretGate, where: string) {
    this.#gate = gate;
    this.#where = where;
  }

  /**
   * Scans `text` now or with its batch; `check` scans it alone, refusing with
   * its own label. `event`: a journal event's JSON, batched although it is
   * an object (see `gateWrites`).
   */
  async add(text: string, check: (text: string) => Promise<void>, event = false): Promise<void> {
    if (text.length >= ALONE || (!event && text.trimStart().startsWith("{"))) {
      return await check(text);
    }
    if (this.#size + text.length > BATCH) await this.flush();
    this.#texts.push(text);
    this.#checks.push(check);
    this.#size += text.length + 1;
  }

  /** Scans the batch. */
  async flush(): Promise<void> {
    const [texts, checks] = [this.#texts, this.#checks];
    [this.#texts, this.#checks, this.#size] = [[], [], 0];
    if (texts.length === 0) return;
    if (await this.#refuses(texts)) await this.#first(texts, checks);
  }

  /**
   * Which one: of texts whose batch was refused, the first that holds a
   * secret alone refuses with its own label. Halves are rescanned in order,
   * so finding it costs two scans per halving, not one per text; a match
   * found only across two texts refuses nothing.
   */
  async #first(texts: string[], checks: ((text: string) => Promise<void>)[]): Promise<void> {
    if (texts.length === 1) return await checks[0](texts[0]);
    const middle = texts.length >> 1;
    for (const [from, to] of [[0, middle], [middle, texts.length]]) {
      const part = texts.slice(from, to);
      if (await this.#refuses(part)) await this.#first(part, checks.slice(from, to));
    }
  }

  /** Whether the gate refuses `texts` together (a failed scan is thrown: it fails closed). */
  async #refuses(texts: string[]): Promise<boolean> {
    try {
      await this.#gate.check(texts.join("\n"), this.#where);
      return false;
    } catch (error) {
      if (!(error instanceof SecretDetectedError)) throw error;
      return true;
    }
  }
}

async function checkContent(
  gate: SecretGate,
  text: string,
  path: string,
  effect: string,
): Promise<void> {
  try {
    await gate.check(text, `what "${effect}" wrote into the Workspace`);
  } catch (error) {
    if (!(error instanceof SecretDetectedError)) throw error;
    // Named only now, and only if the path itself passes.
    const named = await gate.check(path, "a path").then(() => true, () => false);
    throw new SecretDetectedError(
      named
        ? `the Workspace file "${path}" written by "${effect}"`
        : `a Workspace file written by "${effect}"`,
      error.ruleId,
    );
  }
}

function chunk(sql: SqlSeam, hash: string): Uint8Array | undefined {
  const row = sql.exec("SELECT data FROM ws_chunk WHERE hash = ?", hash)[0];
  return row === undefined ? undefined : row.data as Uint8Array;
}

function concat(...parts: (Uint8Array | undefined)[]): Uint8Array {
  const present = parts.filter((part) => part !== undefined);
  if (present.length === 1) return present[0];
  const out = new Uint8Array(present.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of present) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
