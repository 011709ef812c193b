/**
 * The refusal of an execution while another executor holds the run, in the
 * same words on every host: the local executor lock and a remote run's
 * Durable Object (`run.busy`) refuse the same situation, so the user reads
 * the same line.
 *
 * @module
 */
import { RunBusyError } from "../contracts/workflow-errors.ts";

/** The refusal of executing run `id` while another process executes it; nothing changed. */
export function runBusyError(id: string, options?: ErrorOptions): RunBusyError {
  return new RunBusyError(
    `Cannot run "${id}": it is already running in another process. Wait for it, or stop it with Ctrl-C`,
    options,
  );
}
