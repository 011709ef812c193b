/**
 * What continuing a run does, decided from its verified state alone (WF-24):
 * a finished journal is replayed, a run with nothing to do is reported, and
 * only a run that can go on begins a new execution.
 *
 * Invariant: the decision reads the run and changes nothing; only `execute`
 * leads to a write. A `running` run is stale by the time it is decided on
 * (its executor is gone), so it executes after being recovered.
 *
 * @module
 */
import type { JsonValue } from "@xmd/core/protocol";
import type { RunStore } from "../store/run-store.ts";

/** How a run continues. */
export type Continuation =
  /** Its journal has its root Close: reproduce its output, change nothing. */
  | { kind: "replay" }
  /** Nothing to run: finished without a root Close, cancelled, or waiting for an answer. */
  | { kind: "report" }
  /**
   * A new execution: `interrupted`, stale `running`, or `suspended` with an
   * answer waiting (`answer`: it passes the secret gate first, WF-24).
   */
  | { kind: "execute"; answer: { suspensionId: string; value: JsonValue } | null };

/** Decides how `store`'s run continues (the run is verified already). */
export function continuation(store: RunStore): Continuation {
  switch (store.record().status) {
    case "completed":
    case "failed": {
      const last = store.lastEvent()?.event;
      return last?.type === "close" && last.coroutineId === "root"
        ? { kind: "replay" }
        : { kind: "report" };
    }
    case "cancelled":
      return { kind: "report" };
    case "suspended": {
      const pending = store.pendingSuspension();
      if (pending && !pending.answered) return { kind: "report" };
      const answer = pending
        ? { suspensionId: pending.suspensionId, value: store.answer(pending.suspensionId)! }
        : null;
      return { kind: "execute", answer };
    }
    case "running":
    case "interrupted":
      return { kind: "execute", answer: null };
  }
}
