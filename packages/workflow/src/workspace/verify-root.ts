/**
 * Verification of a retained root: every object it reaches exists and its
 * full text (however stored, `object-store.ts`) hashes to its name, every chunk exists and hashes to its name, file sizes add
 * up, and tree entry names are distinct, in order and cannot leave their
 * directory (`.`, `..`, `/`, NUL). Anything else is
 * `WorkflowDatabaseCorruptError`; nothing is repaired.
 *
 * @module
 */
import { lazySchema, type Schema, sha256Hex } from "@xmd/core/protocol";
import * as z from "zod/mini";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { readObjectText } from "./object-store.ts";
import { ROOT_FORMAT, type Sha256 } from "./root-format.ts";
import { compareUtf8 } from "./workspace.ts";

const HASH: z.ZodMiniType<string> = lazySchema(() => z.string().check(z.regex(/^[0-9a-f]{64}$/)));

/** A tree object of root format 1. */
export interface TreeObject {
  /** `[name, kind, mode, ref]`, sorted by the UTF-8 bytes of the names. */
  entries: [string, "dir" | "file" | "symlink", number, string][];
  /** Always 1. */
  format: 1;
}

/** A file object of root format 1. */
export interface FileObject {
  /** The SHA-256 of each chunk, in order. */
  chunks: string[];
  /** Always 1. */
  format: 1;
  /** Bytes. */
  size: number;
}

/** A parsed tree object. */
export const TreeObjectSchema: z.ZodMiniType<TreeObject> = lazySchema(() =>
  z.strictObject({
    entries: z.array(z.tuple([
      // A name that could climb out of its directory (or repeat) would let a hash-consistent
      // forged object escape an export target, so it is malformed.
      z.string().check(
        z.minLength(1),
        z.refine((name) =>
          name !== "." && name !== ".." && !name.includes("/") && !name.includes("\0")
        ),
      ),
      z.enum(["dir", "file", "symlink"]),
      z.number().check(z.int(), z.gte(0), z.lte(0o7777)),
      z.string().check(z.minLength(1)),
    ])).check(z.refine((entries) =>
      entries.every((entry, i) => i === 0 || compareUtf8(entries[i - 1][0], entry[0]) < 0)
    )),
    format: z.literal(ROOT_FORMAT),
  })
);

/** A parsed file object. */
export const FileObjectSchema: z.ZodMiniType<FileObject> = lazySchema(() =>
  z.strictObject({
    chunks: z.array(HASH),
    format: z.literal(ROOT_FORMAT),
    size: z.number().check(z.int(), z.nonnegative()),
  })
);

/**
 * Reads an object (`object-store.ts` checks it hashes to its name, with
 * `sha256`) and parses it strictly.
 */
export function readObject<T>(
  sql: SqlSeam,
  hash: string,
  schema: Schema<T>,
  where: string,
  sha256: Sha256 = sha256Hex,
): T {
  const body = readObjectText(sql, hash, where, sha256);
  if (body === undefined) {
    throw new WorkflowDatabaseCorruptError(
      `Cannot read ${where}: Workspace object ${hash.slice(0, 12)} is missing`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    throw new WorkflowDatabaseCorruptError(
      `Cannot read ${where}: Workspace object ${hash.slice(0, 12)} is malformed`,
    );
  }
  return result.data;
}

/** Reads a chunk and checks it hashes to its name (with `sha256`, any implementation of SHA-256). */
export function readChunk(
  sql: SqlSeam,
  hash: string,
  where: string,
  sha256: Sha256 = sha256Hex,
): Uint8Array {
  const row = sql.exec("SELECT data FROM ws_chunk WHERE hash = ?", hash)[0];
  if (!row) {
    throw new WorkflowDatabaseCorruptError(
      `Cannot read ${where}: Workspace chunk ${hash.slice(0, 12)} is missing`,
    );
  }
  const data = row.data as Uint8Array;
  if (sha256(data) !== hash) {
    throw new WorkflowDatabaseCorruptError(
      `Cannot read ${where}: Workspace chunk ${hash.slice(0, 12)} does not match its hash`,
    );
  }
  return data;
}

/**
 * Verifies everything root `rootId` reaches, tree by tree from a work list
 * (any depth); objects and chunks are hashed with `sha256`.
 */
export function verifyRoot(
  sql: SqlSeam,
  rootId: string,
  where: string,
  sha256: Sha256 = sha256Hex,
): void {
  const seen = new Set<string>([rootId]);
  const trees = [rootId];
  for (let hash = trees.pop(); hash !== undefined; hash = trees.pop()) {
    const tree = readObject(sql, hash, TreeObjectSchema, where, sha256);
    for (const [, kind, , ref] of tree.entries) {
      if (seen.has(ref) || kind === "symlink") continue;
      seen.add(ref);
      if (kind === "dir") {
        trees.push(ref);
        continue;
      }
      const file = readObject(sql, ref, FileObjectSchema, where, sha256);
      let size = 0;
      for (const chunk of file.chunks) size += readChunk(sql, chunk, where, sha256).length;
      if (size !== file.size) {
        throw new WorkflowDatabaseCorruptError(
          `Cannot read ${where}: a Workspace file's chunks do not add up to its size`,
        );
      }
    }
  }
}
