/**
 * `start --id` of a run that exists (WF-23): the same definition, target and
 * props address the existing run, which then continues as `resume` would;
 * any difference is refused, naming the field that differs.
 *
 * Invariant: the check compares digests only (the definition hash, the props
 * hash) and the target, so its refusal names a field, never a stored value.
 *
 * @module
 */
import type { RunRecord } from "../contracts/run-record.ts";
import { RunConflictError } from "../contracts/workflow-errors.ts";

/** What a start asks for, as digests. */
export interface StartIdentity {
  /** `definitionHash(program, target)` of the start. */
  definitionHash: string;
  /** The start's target, if any. */
  target: string | undefined | null;
  /** SHA-256 of the canonical JSON of the start's props. */
  propsHash: string;
}

/**
 * Refuses with `RunConflictError` when `existing` (the run named by the
 * start's id) differs from what the start asks for.
 */
export function checkStartConflict(existing: RunRecord, start: StartIdentity): void {
  const differs = existing.definitionHash !== start.definitionHash
    ? (existing.target ?? null) !== (start.target ?? null) ? "target" : "definition"
    : existing.propsHash !== start.propsHash
    ? "props value"
    : undefined;
  if (!differs) return;
  throw new RunConflictError(
    `Cannot start run "${existing.id}" again: it exists with a different ${differs}`,
  );
}
