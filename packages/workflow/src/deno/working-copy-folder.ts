/**
 * The folder a remote execution keeps its working copy in, and the removal
 * of those a killed runner left behind.
 *
 * Invariants:
 * - A copy folder is `copy-<random>` under one parent (by default
 *   `xmd-remote-copies` in the system's temporary folder), and its owner
 *   holds an exclusive OS lock on its `owner.lock` for as long as it uses
 *   it. The OS releases the lock when the owner dies, SIGKILL included.
 * - `owner.lock` appears under that name only once locked (it is locked as
 *   `owner.lock.new`, then renamed), so a lock anyone else can take proves
 *   the owner is gone: only then is a folder removed, never one in use.
 * - A folder with no `owner.lock` (its runner was killed in the instant
 *   between creating it and locking it, or one being removed) proves
 *   nothing and is left alone.
 *
 * @module
 */
import { tmpdir } from "node:os";
import { join } from "node:path";

const LOCK = "owner.lock";
const PREFIX = "copy-";

/** The parent folder of working copies when a host names none. */
export function defaultCopiesFolder(): string {
  return join(tmpdir(), "xmd-remote-copies");
}

/** One execution's working-copy folder, locked by this process; removed on dispose. */
export class WorkingCopyFolder implements AsyncDisposable {
  /** The folder's path. */
  readonly path: string;
  readonly #lock: Deno.FsFile;

  private constructor(path: string, lock: Deno.FsFile) {
    this.path = path;
    this.#lock = lock;
  }

  /** Removes the copies under `parent` whose owners are gone, then makes and locks a new one. */
  static async create(parent: string): Promise<WorkingCopyFolder> {
    await Deno.mkdir(parent, { recursive: true, mode: 0o700 });
    await removeStaleCopies(parent);
    const path = await Deno.makeTempDir({ dir: parent, prefix: PREFIX });
    const lock = await Deno.open(join(path, `${LOCK}.new`), { write: true, createNew: true });
    try {
      if (!await lock.tryLock(true)) throw new Error(`Cannot lock the new working copy ${path}`);
      await Deno.rename(join(path, `${LOCK}.new`), join(path, LOCK));
    } catch (error) {
      lock.close();
      await Deno.remove(path, { recursive: true }).catch(() => {});
      throw error;
    }
    return new WorkingCopyFolder(path, lock);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    try {
      await Deno.remove(this.path, { recursive: true });
    } finally {
      await this.#lock.unlock().catch(() => {});
      this.#lock.close();
    }
  }
}

/**
 * Removes every copy folder under `parent` whose `owner.lock` this process
 * can lock (its owner is dead); returns their paths. Folders in use, and
 * anything it cannot prove dead or cannot read, are left alone.
 */
export async function removeStaleCopies(parent: string): Promise<string[]> {
  const removed: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(parent));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return removed;
    throw error;
  }
  for (const entry of entries) {
    if (!entry.isDirectory || !entry.name.startsWith(PREFIX)) continue;
    const path = join(parent, entry.name);
    let lock: Deno.FsFile;
    try {
      lock = await Deno.open(join(path, LOCK), { write: true });
    } catch {
      continue; // No lock (yet, or any more): nothing proves its owner dead.
    }
    try {
      if (!await lock.tryLock(true)) continue; // Its owner holds it.
      await Deno.remove(path, { recursive: true });
      removed.push(path);
    } catch {
      // Another runner removed it first, or it is not ours to remove.
    } finally {
      lock.close();
    }
  }
  return removed;
}
