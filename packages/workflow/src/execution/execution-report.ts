/**
 * What a start or resume reports: the run's committed status, the question
 * it waits for, and the failure its outcome carries, all read back from the
 * store after the last transition, so a report never claims a status that
 * was not committed (WF-18).
 *
 * @module
 */
import type { RunOutcome } from "@xmd/core";
import type { ExecutionReport } from "../contracts/workflow-host.ts";
import type { RunStore } from "../store/run-store.ts";

/** The report of `store`'s run as committed; `outcome` (if run or replayed) gives the failure. */
export function executionReport(store: RunStore, outcome?: RunOutcome): ExecutionReport {
  const record = store.record();
  return {
    id: record.id,
    status: record.status,
    pendingSuspension: store.pendingSuspension(),
    failure: outcome?.status === "failed" ? outcome.error.message : null,
  };
}
