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
 * @module
 */
import { RunBusyError } from "../contracts/workflow-errors.ts";
import { runBusyError } from "../execution/run-busy.ts";

/** A held executor lock; released on dispose. */
export class ExecutorLock implements Disposable {
  readonly #file: Deno.FsFile;
  #held = true;

  private constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /**
   * Takes the lock at `path` or refuses at once with `RunBusyError`. Its calls are
   * synchronous (none waits: the lock is tried, not awaited), as are SQLite's own: each
   * asynchronous one would cost the runtime's thread pool about ten times its microseconds.
   */
  static acquire(path: string, runId: string): Promise<ExecutorLock> {
    try {
      return Promise.resolve(ExecutorLock.#acquire(path, runId));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  static #acquire(path: string, runId: string): ExecutorLock {
    for (let attempt = 0;; attempt++) {
      const file = Deno.openSync(path, { read: true, write: true, create: true });
      let kept = false;
      try {
        if (!file.tryLockSync(true)) {
          throw runBusyError(runId);
        }
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
