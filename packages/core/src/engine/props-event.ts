/**
 * The first event of every run: the Yield of the `props <root file>` effect,
 * which holds the SHA-256 of the root props' canonical JSON (never their
 * values), so a replay with other props diverges at event 1 instead of
 * rendering other output.
 *
 * Invariant: the engine journals exactly this event first, and a host that
 * records it when it creates a run (WF-182) records exactly this: the
 * engine then replays it like any recorded effect.
 *
 * @module
 */
import type { YieldEvent } from "../journal/events.ts";

/** The props Yield of a run whose root document is `file` and whose props digest is `sha256`. */
export function propsEvent(file: string, sha256: string): YieldEvent {
  return {
    type: "yield",
    coroutineId: "root",
    description: { type: "props", name: `props ${file}`, sha256 },
    result: { status: "ok", value: null },
  };
}
