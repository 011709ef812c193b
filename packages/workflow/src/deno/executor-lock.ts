/**
 * The executor lock: an exclusive, non-blocking OS lock on the run's `.lock`
 * sidecar, held for the whole execution. There is no lease, expiry or
 * heartbeat: the OS releases the lock when the process dies, which is how
 * the next executor knows a `running` run is stale.
 *
 * The lock is only as good as its file: a lock taken on a file that was
 * unlinked or replaced before `tryLock` returned would guard nothing, so the
 * file locked must still be the one at the path (same device and inode), or
 * the acquisition starts again. Deleting the file while a run executes
 * defeats the lock, as deleting a `-wal` defeats SQLite; the database's own
 * write lock then refuses the second writer (`RunBusyError`, see
 * `NodeSqliteSeam`).
 *
 * A lock is released by unlocking it, not only by closing its file, so a
 * subprocess forked meanwhile (which holds the file until it execs) cannot
 * keep it held.
 *
 * Inspection tells a live executor from a dead one by probing: it tries a
 * shared lock, which it holds for an instant when no executor holds the
 * exclusive one. An executor that meets a busy lock therefore tries again for
 * a few milliseconds before it refuses, so a probe never refuses it.
 *
 * @module
 */
import { RunBusyError } from "../contracts/workflow-errors.ts";
import { runBusyError } from "../execution/run-busy.ts";

/** Tries at a busy lock before refusing, and the wait between them: about 20 ms in all. */
const BUSY_ATTEMPTS = 6;
const BUSY_RETRY_MS = 4;

/** A held executor lock; released on dispose. */
export class ExecutorLock implements Disposable {
  readonly #file: Deno.FsFile;
  #held = true;

  private constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /**
   * Takes the lock at `path`, or refuses with `RunBusyError` once it was busy for
   * about 20 ms (a probe holds it for an instant; an executor for its whole
   * execution). Its calls are synchronous (the lock is tried, not awaited), as are
   * SQLite's own: each asynchronous one would cost the runtime's thread pool about
   * ten times its microseconds.
   */
  static async acquire(path: string, runId: string): Promise<ExecutorLock> {
    for (let attempt = 1;; attempt++) {
      const lock = ExecutorLock.#acquire(path, runId);
      if (lock) return lock;
      // Busy: an executor holds it, or an inspection's probe does for an instant.
      if (attempt === BUSY_ATTEMPTS) throw runBusyError(runId);
      await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
    }
  }

  /**
   * Whether an executor holds the lock at `path` now, or undefined when this
   * process cannot tell (it may not open the file). A missing file is held by
   * none. Takes, when it is free, a shared lock that it releases at once.
   */
  static probe(path: string): boolean | undefined {
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(path, { read: true });
    } catch (error) {
      return error instanceof Deno.errors.NotFound ? false : undefined;
    }
    try {
      if (!file.tryLockSync(false)) return true;
      file.unlockSync();
      return false;
    } catch {
      return undefined;
    } finally {
      file.close();
    }
  }

  /** The lock, or null when another process holds it. */
  static #acquire(path: string, runId: string): ExecutorLock | null {
    for (let attempt = 0;; attempt++) {
      const file = Deno.openSync(path, { read: true, write: true, create: true });
      let kept = false;
      try {
        if (!file.tryLockSync(true)) return null;
        if (isFileAt(file, path)) {
          kept = true;
          return new ExecutorLock(file);
        }
        // Another process removed the file between our open and our lock.
        if (attempt === 3) {
          throw new RunBusyError(
            `Cannot run "${runId}": another process keeps removing its lock file ${path}`,
          );
        }
      } finally {
        if (!kept) release(file);
      }
    }
  }

  /** Whether this process still holds the lock. */
  get held(): boolean {
    return this.#held;
  }

  /** Releases the lock. */
  [Symbol.dispose](): void {
    if (!this.#held) return;
    this.#held = false;
    release(this.#file);
  }
}

/**
 * Unlocks, then closes. Closing alone is not enough: a process forked by any
 * thread of this one (a subprocess being spawned) holds a copy of every
 * descriptor until it execs, and the lock belongs to the open file, so it
 * would outlive the close and refuse this process's next acquisition.
 * Unlocking releases it whatever copies exist.
 */
function release(file: Deno.FsFile): void {
  try {
    file.unlockSync();
  } finally {
    file.close();
  }
}

/** Whether `file` is still the file at `path` (not unlinked or replaced since it was opened). */
function isFileAt(file: Deno.FsFile, path: string): boolean {
  const held = file.statSync();
  let named: Deno.FileInfo;
  try {
    named = Deno.statSync(path);
  } catch {
    return false;
  }
  return held.dev === named.dev && held.ino === named.ino;
}
