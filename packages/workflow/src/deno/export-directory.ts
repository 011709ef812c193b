/**
 * Materializes a walked Workspace root into a host directory: directories,
 * files with their permission bits, symlinks with their targets verbatim,
 * and hard links where the caller knows them.
 *
 * Invariants:
 * - The target is empty or missing before anything is written; otherwise
 *   the export is refused and nothing is touched.
 * - All or nothing: the tree is built in a private staging folder (a hidden
 *   sibling of a missing target, or a hidden folder inside an empty one) and
 *   only then moved into place; an export that fails on the way (a name the
 *   host refuses, a full disk) removes what it built, and the folders it
 *   created for the target, before it reports the refusal.
 * - Modes are the document's only when asked (`preserveModes`): by default
 *   set-uid, set-gid and sticky bits are dropped and the umask applies, as
 *   for any file a user's program creates, so an export by root never
 *   yields a set-uid program or a world-writable file the umask forbids.
 * - Every path is created exclusively (`mkdir`, `createNew`, `symlink`,
 *   `link` all fail on an existing name) inside directories this export
 *   created, so no write ever goes through a symlink, in or out of the
 *   target: symlinks are written as links, never followed.
 * - Directory modes are applied last, deepest first, so a read-only
 *   directory is still filled.
 *
 * @module
 */
import { dirnameOf as dirname, joinPath as join } from "@xmd/core/deno/internal";
import { ExportRefusedError } from "../contracts/workflow-errors.ts";
import type { ExportOptions, ExportReport } from "../contracts/workflow-host.ts";
import type { RootEntry } from "../workspace/walk-root.ts";
import { hostProblem } from "./host-error.ts";

/** Entries written between two turns of the event loop. */
const YIELD_EVERY = 256;

/** What an export wrote. */
export type ExportCounts = Pick<ExportReport, "directories" | "files" | "symlinks" | "hardLinks">;

/**
 * Refuses a target that exists and is not an empty directory, or that the
 * host cannot look at. Writes nothing; says whether the target exists.
 */
export async function checkExportTarget(directory: string): Promise<boolean> {
  let stat: Deno.FileInfo;
  try {
    stat = await Deno.stat(directory);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw refusal(directory, error);
  }
  if (!stat.isDirectory) {
    throw new ExportRefusedError(
      `Cannot export to "${directory}": it is not a directory. Name a new or empty directory`,
    );
  }
  try {
    for await (const _ of Deno.readDir(directory)) {
      throw new ExportRefusedError(
        `Cannot export to "${directory}": it is not empty. Name a new or empty directory`,
      );
    }
  } catch (error) {
    throw refusal(directory, error);
  }
  return true;
}

/**
 * Writes `entries` (pre-order, as `walkRoot` yields them) under `directory`,
 * creating it (and its missing parents) if needed. Paths in one of `links`
 * that hold the same file object with the same mode become hard links to the
 * first one written. On any failure nothing is left behind and the failure
 * is an {@linkcode ExportRefusedError}.
 */
export async function exportDirectory(
  entries: Iterable<RootEntry>,
  links: readonly (readonly string[])[],
  directory: string,
  options: ExportOptions = {},
): Promise<ExportCounts> {
  const exists = await checkExportTarget(directory);
  const parent = exists ? directory : dirname(directory);
  let createdParent: string | undefined;
  const stage = join(parent, `.xmd-export-${crypto.randomUUID().replaceAll("-", "")}`);
  let staged = false;
  const moved: string[] = [];
  let writing: string | undefined;
  try {
    if (!exists) createdParent = await createParents(parent);
    await Deno.mkdir(stage, { mode: 0o777 });
    staged = true;
    // What the kernel leaves of 0o777 is the umask (and any default ACL) at work.
    const created = (await Deno.stat(stage)).mode! & 0o777;
    await Deno.chmod(stage, 0o700);
    const mask = options.preserveModes ? 0o7777 : created;
    const groupOf = new Map<string, readonly string[]>();
    for (const group of links) for (const path of group) groupOf.set(path, group);
    const written = new Map<string, { object: string; mode: number }>();
    const directories: { path: string; mode: number }[] = [];
    const counts: ExportCounts = { directories: 0, files: 0, symlinks: 0, hardLinks: 0 };
    let sinceYield = 0;
    for (const entry of entries) {
      writing = entry.path;
      const path = join(stage, ...entry.path.split("/"));
      // The host calls below are synchronous: each asynchronous one is a round trip through the
      // runtime's thread pool, which was most of the time an export of small files took. Every
      // `YIELD_EVERY` entries the event loop gets a turn, so timers and signals still run.
      if (++sinceYield === YIELD_EVERY) {
        sinceYield = 0;
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      switch (entry.kind) {
        case "dir":
          Deno.mkdirSync(path, { mode: 0o700 });
          directories.push({ path: entry.path, mode: entry.mode & mask });
          counts.directories++;
          break;
        case "symlink":
          Deno.symlinkSync(entry.target, path);
          counts.symlinks++;
          break;
        case "file": {
          const twin = groupOf.get(entry.path)?.find((other) => {
            const first = written.get(other);
            return first?.object === entry.object && first.mode === entry.mode;
          });
          if (twin !== undefined) {
            Deno.linkSync(join(stage, ...twin.split("/")), path);
            counts.hardLinks++;
            break;
          }
          {
            // Chunk by chunk: a file of any size is never held whole.
            using file = Deno.openSync(path, { write: true, createNew: true, mode: 0o600 });
            for (const chunk of entry.chunks()) {
              for (let at = 0; at < chunk.length;) at += file.writeSync(chunk.subarray(at));
            }
          }
          Deno.chmodSync(path, entry.mode & mask);
          written.set(entry.path, { object: entry.object, mode: entry.mode });
          counts.files++;
          break;
        }
      }
    }
    writing = undefined;
    const finalPath = (path: string) => join(exists ? directory : stage, ...path.split("/"));
    if (exists) {
      // Into the existing folder, one top-level name at a time, before any directory turns
      // read-only (moving a directory to a new parent needs write access to it).
      for (const { name } of await Array.fromAsync(Deno.readDir(stage))) {
        await Deno.rename(join(stage, name), join(directory, name));
        moved.push(name);
      }
      await Deno.remove(stage);
      staged = false;
    }
    for (const { path, mode } of directories.reverse()) await Deno.chmod(finalPath(path), mode);
    if (!exists) {
      await Deno.chmod(stage, created);
      await Deno.rename(stage, directory);
      staged = false;
    }
    return counts;
  } catch (error) {
    let clean = true;
    for (const name of moved) clean = await removeTree(join(directory, name)) && clean;
    if (staged) clean = await removeTree(stage) && clean;
    if (createdParent !== undefined) {
      for (let path = parent;; path = dirname(path)) {
        // Only folders this export created, and only while empty.
        clean = await Deno.remove(path).then(() => true, () => false) && clean;
        if (path === createdParent) break;
      }
    }
    throw refusal(directory, error, writing, clean ? undefined : staged ? stage : directory);
  }
}

/** Creates `folder` and its missing parents; returns the topmost one created, if any. */
async function createParents(folder: string): Promise<string | undefined> {
  let top: string | undefined;
  for (let path = folder;; path = dirname(path)) {
    try {
      await Deno.lstat(path);
      break;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      top = path;
      if (dirname(path) === path) break;
    }
  }
  if (top !== undefined) await Deno.mkdir(folder, { recursive: true });
  return top;
}

/**
 * Removes a tree this export wrote, directories made writable first; iterative,
 * so depth costs no stack. Says whether everything went.
 */
async function removeTree(root: string): Promise<boolean> {
  const stack: { path: string; listed: boolean }[] = [{ path: root, listed: false }];
  try {
    while (stack.length > 0) {
      const top = stack.at(-1)!;
      if (top.listed) {
        await Deno.remove(top.path);
        stack.pop();
        continue;
      }
      top.listed = true;
      if (!(await Deno.lstat(top.path)).isDirectory) continue;
      await Deno.chmod(top.path, 0o700);
      for await (const entry of Deno.readDir(top.path)) {
        stack.push({ path: join(top.path, entry.name), listed: false });
      }
    }
    return true;
  } catch {
    return false;
  }
}

/** The refusal for a host error met while exporting; any other error is returned as it is. */
function refusal(directory: string, error: unknown, path?: string, leftover?: string): unknown {
  const problem = hostProblem(error);
  if (problem === undefined) return error;
  const why = `${problem.reason} (${problem.code})`;
  const after = leftover !== undefined
    ? `a partial copy could not be removed: "${leftover}"`
    : path === undefined
    ? "Name a new or empty directory you can write"
    : "nothing was written";
  return new ExportRefusedError(
    path === undefined
      ? `Cannot export to "${directory}": the host refused it: ${why}. ${after}`
      : `Cannot export to "${directory}": the host refused "${shorten(path)}": ${why}; ${after}`,
    { cause: error, posix: problem.code, path },
  );
}

/** A Workspace path with each over-long name cut, so the message stays one readable line. */
function shorten(path: string): string {
  return path.split("/").map((name) => name.length > 40 ? `${name.slice(0, 32)}…` : name).join(
    "/",
  );
}
