/**
 * A shell provider that tells an observer when each exec block starts and
 * ends, so a front end can show which block runs (the CLI's progress line)
 * without the engine or the provider knowing about terminals.
 *
 * Invariant: the end returned by the observer is called exactly once for each
 * block it saw start, before the block's result (or its error) reaches the
 * engine, whether the block finished, failed, timed out or was cancelled; so
 * nothing the engine writes next can be overtaken by the observer. Disposing
 * it disposes `shell` (a Worker Shell keeps a process between blocks).
 *
 * @module
 */
import type { SourcePosition } from "../document/source-position.ts";
import type { ShellProvider, ShellRequest, ShellResult } from "./providers.ts";

/** Told that the block at `position` starts; the function it returns is told it ended. */
export type ExecObserver = (position: SourcePosition) => () => void;

/** `shell`, telling `observe` about each block that names its position. */
export function observedShell(
  shell: ShellProvider & Partial<AsyncDisposable>,
  observe: ExecObserver,
): ShellProvider & AsyncDisposable {
  return {
    async [Symbol.asyncDispose]() {
      await shell[Symbol.asyncDispose]?.();
    },
    async run(request: ShellRequest): Promise<ShellResult> {
      if (request.position === undefined) return await shell.run(request);
      const end = observe(request.position);
      try {
        return await shell.run(request);
      } finally {
        end();
      }
    },
  };
}
