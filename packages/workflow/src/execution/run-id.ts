/**
 * The grammar of a run id, the same on every host: 1 to 128 letters, digits,
 * `.`, `_` or `-`, starting with a letter or digit.
 *
 * Invariant: an id is checked before it names anything (a file, a Durable
 * Object, a message), so a refused id reads, creates and changes nothing.
 *
 * @module
 */
import { RunNotFoundError } from "../contracts/workflow-errors.ts";

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Refuses an id outside the grammar with `RunNotFoundError` (no run can have it). */
export function checkRunId(id: string): void {
  if (!RUN_ID.test(id)) {
    throw new RunNotFoundError(
      `Invalid run id: use 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit`,
      "invalid-id",
    );
  }
}
