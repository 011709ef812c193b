/**
 * What a start or resume reports: the run's committed status, the question
 * it waits for, and the failure its outcome carries, all read back from the
 * store after the last transition, so a report never claims a status that
 * was not committed (WF-18). Every host reports through it: the local one
 * from its run database, the remote one from its working copy or from what
 * it read of the Durable Object's committed state.
 *
 * @module
 */
import type { RunOutcome } from "@xmd/core";
import type { ExecutionReport } from "../contracts/workflow-host.ts";
import type { RunStore } from "../store/run-store.ts";

/** Where a report reads the committed run: a `RunStore`, or a snapshot of one. */
export type CommittedRun = Pick<RunStore, "record" | "pendingSuspension">;

/** The report of `store`'s run as committed; `outcome` (if run or replayed) gives the failure. */
export function executionReport(store: CommittedRun, outcome?: RunOutcome): ExecutionReport {
  const record = store.record();
  return {
    id: record.id,
    status: record.status,
    pendingSuspension: store.pendingSuspension(),
    failure: outcome?.status === "failed" ? outcome.error.message : null,
  };
}
