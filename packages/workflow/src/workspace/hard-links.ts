/**
 * Hard links of the live Workspace. Root format 1 records no inode identity
 * (two links to one file are two entries with the same file object), so which
 * paths share an inode is known only from the live tables, and only for the
 * root the live Workspace is at.
 *
 * Invariants:
 * - The answer is read in one statement (one snapshot), together with the
 *   live root's hash, so it never mixes two Workspace states.
 * - Hard-link groups travel beside a root (root format 1 cannot hold them)
 *   as lists of relative paths, and are parsed with `HardLinkGroupsSchema`
 *   wherever they are received or read back.
 *
 * @module
 */
import { lazySchema } from "@xmd/core/protocol";
import * as z from "zod/mini";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { ROOT_INO } from "./workspace.ts";

/**
 * The names that share an inode, one group per inode: relative paths as
 * `walkRoot` names them (`release/VERSION`), each group of two or more
 * distinct paths, no path in two groups.
 */
export type HardLinkGroups = readonly (readonly string[])[];

const NAME = (name: string) => name !== "" && name !== "." && name !== ".." && !name.includes("\0");
const RelativePathSchema = lazySchema(() =>
  z.string().check(z.refine((path) => path.split("/").every(NAME)))
);

/** Parses hard-link groups: valid relative paths, groups of at least two, no path twice. */
export const HardLinkGroupsSchema: z.ZodMiniType<HardLinkGroups> = lazySchema(() =>
  z.array(
    z.array(RelativePathSchema).check(z.minLength(2)),
  ).check(z.refine((groups) => {
    const paths = groups.flat();
    return new Set(paths).size === paths.length;
  }))
);

/**
 * The relative paths of the live Workspace that share an inode, one group
 * per inode, when the live Workspace is at `root`; none otherwise (an older
 * root's hard links are not known).
 */
export function liveHardLinks(sql: SqlSeam, root: string): string[][] {
  // Climb from every dirent of a multiply-linked file to the root directory; directories
  // have exactly one dirent, so each climb is one path.
  const rows = sql.exec(
    "WITH RECURSIVE up(ino, dir, path) AS (" +
      "SELECT d.ino, d.parent, d.name FROM ws_dirent d JOIN ws_inode i ON i.ino = d.ino " +
      "WHERE i.kind = 'file' AND i.nlink > 1 " +
      "UNION ALL SELECT up.ino, d.parent, d.name || '/' || up.path FROM up " +
      "JOIN ws_dirent d ON d.ino = up.dir WHERE up.dir != ?) " +
      "SELECT (SELECT hash FROM ws_inode WHERE ino = ?) AS live, ino, path FROM up WHERE dir = ?",
    ROOT_INO,
    ROOT_INO,
    ROOT_INO,
  );
  if (rows.length === 0 || rows[0].live !== root) return [];
  const groups = new Map<number, string[]>();
  for (const row of rows) {
    const ino = Number(row.ino);
    groups.set(ino, [...groups.get(ino) ?? [], String(row.path)]);
  }
  return [...groups.values()].filter((paths) => paths.length > 1);
}
