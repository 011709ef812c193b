/**
 * The executor lock: an exclusive, non-blocking OS lock on the run's `.lock`
 * sidecar, held for the whole execution. There is no lease, expiry or
 * heartbeat: the OS releases the lock when the process dies, which is how
 * the next executor knows a `running` run is stale.
 *
 * @module
 */
import { RunBusyError } from "../contracts/workflow-errors.ts";

/** A held executor lock; released on dispose. */
export class ExecutorLock implements Disposable {
  readonly #file: Deno.FsFile;
  #held = true;

  private constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /** Takes the lock at `path` or refuses at once with `RunBusyError`. */
  static async acquire(path: string, runId: string): Promise<ExecutorLock> {
    const file = await Deno.open(path, { read: true, write: true, create: true });
    let locked = false;
    try {
      locked = await file.tryLock(true);
    } finally {
      if (!locked) file.close();
    }
    if (!locked) {
      throw new RunBusyError(
        `Cannot run "${runId}": it is already running in another process. Wait for it, or stop it with Ctrl-C`,
      );
    }
    return new ExecutorLock(file);
  }

  /** Whether this process still holds the lock. */
  get held(): boolean {
    return this.#held;
  }

  /** Releases the lock. */
  [Symbol.dispose](): void {
    if (!this.#held) return;
    this.#held = false;
    this.#file.close();
  }
}
