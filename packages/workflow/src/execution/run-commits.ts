/**
 * The commit seam: where an executor's change of a run becomes authoritative.
 * Locally the point of authority is the run database's own COMMIT; a host
 * whose authority lives elsewhere (the remote host's Durable Object) passes
 * a `RunCommits`, and every journal append and every settlement of an
 * execution is then offered to it before the local copy commits.
 *
 * Invariants:
 * - A change is applied to the local copy inside one held transaction
 *   (`SqlSeam.hold`); `commit` is awaited after the change is applied and
 *   before that transaction's COMMIT. The local copy never holds a change
 *   its authority did not accept.
 * - A rejection rolls the local copy back to the frontier the change
 *   expected and propagates unchanged (the implementation chooses the error:
 *   a lost authority, a refusal). The executor then stops as for any storage
 *   failure (WF-61).
 * - `expected` is the frontier the copy held before the change: the
 *   execution that writes, the number of committed events, and the current
 *   Workspace root. The authority refuses a change whose frontier is not its
 *   own, so a stale or replaced executor cannot advance the run.
 * - Without a `RunCommits` the statements are exactly the local host's
 *   (`RunStore.append`, `RunStore.settle`): nothing is held that was not
 *   held before.
 *
 * @module
 */
import type { JournalEvent } from "@xmd/core/protocol";
import type { RunStatus, StopReason } from "../contracts/run-record.ts";
import { HeldTransactionRequiredError } from "../contracts/workflow-errors.ts";
import type { CommitPoint } from "../store/commit-points.ts";
import type { RunStore } from "../store/run-store.ts";
import type { HeldTransaction } from "../sql/sql-seam.ts";

/** A run's committed frontier, as an executor last saw it. */
export interface Frontier {
  /** The execution (document execution seq) that holds the run. */
  execution: number;
  /** How many journal events are committed. */
  events: number;
  /** The current Workspace root. */
  root: string;
}

/** One change an executor commits. */
export type RunChange =
  | { kind: "append"; expected: Frontier; event: JournalEvent; root: string } // root after the event
  | { kind: "settle"; expected: Frontier; status: RunStatus; stopReason: StopReason | null };

/** Where an executor's changes become authoritative (none: the local COMMIT is). */
export interface RunCommits {
  /**
   * Makes `change` authoritative, or rejects: resolved, the local copy
   * commits it; rejected, the local copy rolls it back and the run stops.
   */
  commit(change: RunChange): Promise<void>;
}

/** The frontier of `store`'s run as `execution` sees it now (inside the caller's transaction). */
export function frontierOf(store: RunStore, execution: number): Frontier {
  const { eventCount, root } = store.position();
  return { execution, events: eventCount, root };
}

/**
 * Holds a transaction on `store`'s seam for `label`, or fails loudly when the
 * seam cannot hold one (a host that runs effects or commits remotely over
 * such a seam is miswired: each statement would commit on its own).
 */
export function holdOn(store: RunStore, label: CommitPoint): HeldTransaction {
  const hold = store.sql.hold;
  if (!hold) {
    throw new HeldTransactionRequiredError(
      `Cannot run run "${store.record().id}" over this SQL seam: it cannot hold a transaction across an effect or a remote commit`,
    );
  }
  return hold.call(store.sql, label);
}

/**
 * Applies `apply` inside `held`, offers the change it returns to `commits`,
 * and commits `held` once that resolves; any failure on the way (the change,
 * the gate, a rejection) rolls `held` back and is rethrown. `apply` returns
 * null only when there is no `commits` to offer a change to.
 */
export async function commitHeld(
  held: HeldTransaction,
  commits: RunCommits | undefined,
  apply: () => RunChange | null | Promise<RunChange | null>,
): Promise<void> {
  try {
    const change = await apply();
    if (commits && change) await commits.commit(change);
    held.commit();
  } catch (error) {
    held.rollback();
    throw error;
  }
}

/**
 * Ends `execution` with `status` and `stopReason`: through `commits` when
 * there is an authority to ask, else with the local host's one transaction.
 */
export async function settleRun(
  store: RunStore,
  commits: RunCommits | undefined,
  execution: number,
  status: RunStatus,
  stopReason: StopReason | null,
): Promise<void> {
  if (!commits) {
    store.settle(execution, status, stopReason);
    return;
  }
  await commitHeld(holdOn(store, "settle"), commits, () => {
    const expected = frontierOf(store, execution);
    store.settle(execution, status, stopReason);
    return { kind: "settle", expected, status, stopReason };
  });
}
