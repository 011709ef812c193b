/**
 * Worker Shell's interpreter started before the Workspace it will serve
 * exists: loading just-bash in a fresh Deno process takes about 100 ms of CPU,
 * which a start then spends while it checks the document, creates the run
 * database and replays the journal, not before its first exec block.
 *
 * Invariants:
 * - The process is the one Worker Shell would start (worker-shell-process.ts:
 *   the same interpreter, flags, lock and heap limit, no permission); it
 *   serves nothing until a `WorkerShell` adopts it, and only that one.
 * - Disposed without having been adopted, it is killed and its end awaited:
 *   a start that is refused or runs no block leaves no process behind.
 * - Loading this module loads no store, schema or npm package (only the
 *   process and its frames), so a caller can start the interpreter before it
 *   loads the rest of a start (WF-190).
 *
 * @module
 */
import {
  DEFAULT_HEAP_LIMIT_MIB,
  INTERPRETER_URL,
  interpreterStartProblem,
  ShellProcess,
} from "./worker-shell-process.ts";
import type { WorkerShellOptions } from "./worker-shell.ts";

const processes = new WeakMap<PrestartedInterpreter, ShellProcess>();

/** An interpreter process started ahead of the `WorkerShell` that will run its blocks. */
export class PrestartedInterpreter implements AsyncDisposable {
  /** Starts the interpreter `options` describe (the options its Worker Shell will have). */
  constructor(options: WorkerShellOptions = {}) {
    processes.set(
      this,
      new ShellProcess(
        options.interpreter ?? INTERPRETER_URL,
        options.heapLimitMib ?? DEFAULT_HEAP_LIMIT_MIB,
      ),
    );
  }

  /** Kills the process unless a Worker Shell adopted it, and waits until it has ended. */
  async [Symbol.asyncDispose](): Promise<void> {
    const process = takePrestarted(this);
    if (process === undefined) return;
    process.kill();
    await process.ended;
  }
}

/** The process of `prestarted`, once: the Worker Shell that adopts it owns it from then on. */
export function takePrestarted(prestarted: PrestartedInterpreter): ShellProcess | undefined {
  const process = processes.get(prestarted);
  processes.delete(prestarted);
  return process;
}

/**
 * The interpreter `options` describe, started now, or undefined when this
 * process may not start it (no permission to run Deno: the start refuses
 * that itself, before a run exists).
 */
export function prestartInterpreter(
  options: WorkerShellOptions = {},
): PrestartedInterpreter | undefined {
  return interpreterStartProblem() === null ? new PrestartedInterpreter(options) : undefined;
}
