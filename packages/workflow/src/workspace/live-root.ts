/**
 * The root id the live Workspace tables describe, computed from them alone:
 * every cached hash is ignored, nothing is written. A run continues from its
 * live tables, so before it does, this must equal the root its journal last
 * recorded: damage to an inode, a directory entry or a chunk list that left
 * the cached hashes as they were is found here, not built upon.
 *
 * Invariants:
 * - Read-only, and linear in the number of inodes (file contents are not
 *   read: a file's object names its chunks, which `verifyRoot` checks).
 * - Iterative: a tree of any depth is checked without recursion.
 * - Damage that makes the tables unreadable (a malformed row, a directory
 *   reached twice, a dangling entry) is `WorkflowDatabaseCorruptError`.
 *
 * @module
 */
import { lazySchema, sha256Hex } from "@xmd/core/protocol";
import * as z from "zod/mini";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { fileObject, objectHash, type Sha256, type TreeEntry, treeObject } from "./root-format.ts";
import { ROOT_INO } from "./workspace.ts";

const HASH = lazySchema(() => z.string().check(z.regex(/^[0-9a-f]{64}$/)));
const EntrySchema = lazySchema(() =>
  z.object({
    name: z.string().check(z.minLength(1)),
    ino: z.number().check(z.int()),
    kind: z.enum(["dir", "file", "symlink"]),
    mode: z.number().check(z.int(), z.gte(0), z.lte(0o7777)),
    target: z.nullable(z.string()),
    size: z.number().check(z.int(), z.nonnegative()),
    chunks: z.nullable(z.string()),
  })
);
const ChunksSchema = lazySchema(() => z.array(HASH));

/** A directory being hashed: its entries' rows, and the tree entries built from them so far. */
interface Open {
  rows: z.infer<typeof EntrySchema>[];
  entries: TreeEntry[];
}

/** The root id of the live Workspace, recomputed from its tables; `where` names the run. */
export function liveRootOf(sql: SqlSeam, where: string, sha256: Sha256 = sha256Hex): string {
  const seen = new Set<number>();
  const damaged = (what: string) =>
    new WorkflowDatabaseCorruptError(
      `Cannot read ${where}: its live Workspace is damaged (${what}). It is left as it is`,
    );

  const chunksOf = (text: string | null): string[] => {
    if (text === null) return [];
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw damaged("a file's chunk list");
    }
    const chunks = ChunksSchema.safeParse(value);
    if (!chunks.success) throw damaged("a file's chunk list");
    return chunks.data;
  };

  const opened = (dir: number): Open => {
    if (seen.has(dir)) throw damaged("a directory is reached twice");
    seen.add(dir);
    const rows = sql.exec(
      "SELECT d.name, d.ino, i.kind, i.mode, i.target, i.size, i.chunks FROM ws_dirent d " +
        "LEFT JOIN ws_inode i ON i.ino = d.ino WHERE d.parent = ?",
      dir,
    ).map((row) => {
      const entry = EntrySchema.safeParse(row);
      if (!entry.success) throw damaged("a directory entry or its inode");
      return entry.data;
    });
    return { rows, entries: [] };
  };

  // Each directory is hashed after its subdirectories, from a stack of open ones rather than
  // by recursion, so a tree of any depth can be checked.
  const stack = [opened(ROOT_INO)];
  for (;;) {
    const top = stack[stack.length - 1];
    const row = top.rows[top.entries.length];
    if (row === undefined) {
      const hash = objectHash(treeObject(top.entries), sha256);
      stack.pop();
      if (stack.length === 0) return hash;
      const parent = stack[stack.length - 1];
      const { name, mode } = parent.rows[parent.entries.length];
      parent.entries.push({ name, kind: "dir", mode, ref: hash });
      continue;
    }
    const { name, ino, kind, mode, target, size, chunks } = row;
    if (kind === "dir") stack.push(opened(ino));
    else if (kind === "file") {
      const ref = objectHash(fileObject(size, chunksOf(chunks)), sha256);
      top.entries.push({ name, kind, mode, ref });
    } else if (target !== null) top.entries.push({ name, kind, mode, ref: target });
    else throw damaged("a symlink without a target");
  }
}
