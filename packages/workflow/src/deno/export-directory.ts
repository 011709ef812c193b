/**
 * Materializes a walked Workspace root into a host directory: directories,
 * files with their permission bits, symlinks with their targets verbatim,
 * and hard links where the caller knows them.
 *
 * Invariants:
 * - The target is empty or missing before anything is written; otherwise
 *   the export is refused and nothing is touched.
 * - Every path is created exclusively (`mkdir`, `createNew`, `symlink`,
 *   `link` all fail on an existing name) inside directories this export
 *   created, so no write ever goes through a symlink, in or out of the
 *   target: symlinks are written as links, never followed.
 * - Directory modes are applied last, deepest first, so a read-only
 *   directory is still filled.
 *
 * @module
 */
import { join } from "node:path";
import { ExportRefusedError } from "../contracts/workflow-errors.ts";
import type { ExportReport } from "../contracts/workflow-host.ts";
import type { RootEntry } from "../workspace/walk-root.ts";

/** What an export wrote. */
export type ExportCounts = Pick<ExportReport, "directories" | "files" | "symlinks" | "hardLinks">;

/** Refuses a target that exists and is not an empty directory. Writes nothing. */
export async function checkExportTarget(directory: string): Promise<void> {
  let stat: Deno.FileInfo;
  try {
    stat = await Deno.stat(directory);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  if (!stat.isDirectory) {
    throw new ExportRefusedError(
      `Cannot export to "${directory}": it is not a directory. Name a new or empty directory`,
    );
  }
  for await (const _ of Deno.readDir(directory)) {
    throw new ExportRefusedError(
      `Cannot export to "${directory}": it is not empty. Name a new or empty directory`,
    );
  }
}

/**
 * Writes `entries` (pre-order, as `walkRoot` yields them) under `directory`,
 * creating it if missing. Paths in one of `links` that hold the same file
 * object with the same mode become hard links to the first one written.
 */
export async function exportDirectory(
  entries: Iterable<RootEntry>,
  links: readonly (readonly string[])[],
  directory: string,
): Promise<ExportCounts> {
  await checkExportTarget(directory);
  await Deno.mkdir(directory, { recursive: true });
  const groupOf = new Map<string, readonly string[]>();
  for (const group of links) for (const path of group) groupOf.set(path, group);
  const written = new Map<string, { object: string; mode: number }>();
  const directories: { path: string; mode: number }[] = [];
  const counts: ExportCounts = { directories: 0, files: 0, symlinks: 0, hardLinks: 0 };
  for (const entry of entries) {
    const path = join(directory, ...entry.path.split("/"));
    switch (entry.kind) {
      case "dir":
        await Deno.mkdir(path);
        directories.push({ path, mode: entry.mode });
        counts.directories++;
        break;
      case "symlink":
        await Deno.symlink(entry.target, path);
        counts.symlinks++;
        break;
      case "file": {
        const twin = groupOf.get(entry.path)?.find((other) => {
          const first = written.get(other);
          return first?.object === entry.object && first.mode === entry.mode;
        });
        if (twin !== undefined) {
          await Deno.link(join(directory, ...twin.split("/")), path);
          counts.hardLinks++;
          break;
        }
        await Deno.writeFile(path, entry.content, { createNew: true, mode: 0o600 });
        await Deno.chmod(path, entry.mode);
        written.set(entry.path, { object: entry.object, mode: entry.mode });
        counts.files++;
        break;
      }
    }
  }
  for (const { path, mode } of directories.reverse()) await Deno.chmod(path, mode);
  return counts;
}
