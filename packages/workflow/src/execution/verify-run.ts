/**
 * Verifying a whole run before anything is written to it: the record and its
 * stop reason, the retained definition (hashes, one root, it loads, its
 * target exists, its definition hash), the props and their digest, the
 * journal (contiguous, each event from an execution that exists, nothing
 * after the root Close, the props event first), the executions, the answers
 * waiting (each for an open question, each matching its schema) and, unless
 * only a finished run is replayed, the live Workspace root. Damage in any of them is `WorkflowDatabaseCorruptError`,
 * found before a write, so a damaged run is refused unchanged instead of
 * being run through or settled `failed`.
 *
 * Invariants:
 * - Read-only, and linear in the size of the run: every row is read and
 *   parsed once, every object and chunk of the current root hashed once.
 * - The journal is read a page at a time (`RunStore.eachEvent`) and only a
 *   summary of it is kept, so its length costs time, not memory (WF-200).
 * - Messages name what is inconsistent (a table, an event number, a
 *   suspension id), never a stored value.
 *
 * @module
 */
import {
  canonicalJson,
  type JournalEvent,
  type JsonValue,
  type Program,
  sha256Hex,
} from "@xmd/core";
import { answerProblems } from "@xmd/core/internal";
import type { RunRecord, RunStatus } from "../contracts/run-record.ts";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import type { RetainedSource, RunStore } from "../store/run-store.ts";
import { liveRootOf } from "../workspace/live-root.ts";
import type { Sha256 } from "../workspace/root-format.ts";
import { verifyRoot } from "../workspace/verify-root.ts";
import { ROOT_INO } from "../workspace/workspace.ts";
import { loadRetainedProgram } from "./execute-run.ts";

/** The definition identity: the retained sources' hashes and the target (WF-2). */
export function definitionHash(
  program: Program,
  target: string | undefined | null,
  sha256: Sha256 = sha256Hex,
): string {
  return definitionHashOf(
    [...program.sources].map(([label, text]) => ({ label, text })),
    target,
    sha256,
  );
}

function definitionHashOf(
  sources: readonly { label: string; text: string }[],
  target: string | undefined | null,
  sha256: Sha256 = sha256Hex,
): string {
  const hashed = sources.map(({ label, text }) => ({ label, sha256: sha256(text) }))
    .sort((a, b) => a.label < b.label ? -1 : a.label > b.label ? 1 : 0);
  return sha256Hex(canonicalJson({ sources: hashed, target: target ?? null }));
}

/** What `verifyRun` checks besides the run's tables. */
export interface VerifyRunOptions {
  /**
   * Whether the live Workspace is verified too: when the run continues from
   * it, or anything is written; a finished run's replay attaches none.
   */
  workspace: boolean;
  /** The hash the Workspace is published with (default: `sha256Hex`). */
  sha256?: Sha256;
}

/** Verifies the run in `store`. */
export async function verifyRun(store: RunStore, options: VerifyRunOptions): Promise<void> {
  const record = store.record();
  const damaged = (what: string) =>
    new WorkflowDatabaseCorruptError(
      `Cannot read run "${record.id}": ${what}. It is left as it is`,
    );
  const journal = readJournal(store);
  verifyJournal(store, record, journal, damaged);
  verifyStop(record, journal, damaged);
  verifyExecutions(store, record, damaged);
  await verifyDefinition(store, record, store.sources(), damaged, options.sha256);
  verifyProps(store, record, journal, damaged);
  await verifyAnswers(store, journal, damaged);
  if (options.workspace) verifyCurrentRoot(store, record, options.sha256, damaged);
}

type Damaged = (what: string) => WorkflowDatabaseCorruptError;

/**
 * What the checks need of the journal, gathered in one pass over it, a page
 * at a time (`eachEvent`), so a run of any length is verified in the memory
 * of one page: every event is parsed (the first damaged one refuses the run),
 * and only its ends, its first root Close and its open questions are kept.
 */
interface JournalSummary {
  /** How many events it holds. */
  count: number;
  /** Its first event. */
  first: JournalEvent | undefined;
  /** Its last event. */
  last: JournalEvent | undefined;
  /** The number of its first root Close, if any. */
  rootClose: number | undefined;
  /** The schema of each question asked and not answered, by suspension id. */
  open: Map<string, JsonValue>;
}

function isRootClose(event: JournalEvent): boolean {
  return event.type === "close" && event.coroutineId === "root";
}

function readJournal(store: RunStore): JournalSummary {
  const summary: JournalSummary = {
    count: 0,
    first: undefined,
    last: undefined,
    rootClose: undefined,
    open: new Map(),
  };
  for (const { id, event } of store.eachEvent()) {
    summary.count++;
    summary.first ??= event;
    summary.last = event;
    if (summary.rootClose === undefined && isRootClose(event)) summary.rootClose = id;
    if (event.type !== "yield") continue;
    const { type, suspensionId } = event.description;
    if (type === "suspension_request") {
      summary.open.set(String(suspensionId), event.description.schema);
    }
    if (type === "suspension_answer") summary.open.delete(String(suspensionId));
  }
  return summary;
}

function verifyJournal(
  store: RunStore,
  record: RunRecord,
  journal: JournalSummary,
  damaged: Damaged,
) {
  const current = store.currentExecution();
  let execution = 1;
  let index = 0;
  for (const { seq, execution: by } of store.eachEventPosition()) {
    index++;
    if (seq !== index) throw damaged(`its journal has no event ${index}`);
    if (by < execution || by > current) {
      throw damaged(`its journal event ${seq} names an execution that does not exist`);
    }
    execution = by;
  }
  // A root Close anywhere but last: the first one is, or is followed by another event.
  if (journal.rootClose !== undefined && journal.rootClose !== journal.count) {
    throw damaged(`its journal has events after the root Close (event ${journal.rootClose})`);
  }
  const first = journal.first;
  if (first && (first.type !== "yield" || first.description.type !== "props")) {
    throw damaged("its journal does not start with the props event");
  }
  if (record.eventCount !== journal.count) throw damaged("its journal count is inconsistent");
}

/** The status, its stop reason and the journal's last event agree (WF-5, WF-17). */
function verifyStop(record: RunRecord, journal: JournalSummary, damaged: Damaged) {
  const { status, stopReason } = record;
  const { last, count } = journal;
  const closed = last !== undefined && isRootClose(last);
  const host = stopReason?.kind === "host" ? stopReason.code : undefined;
  const atEvent = stopReason?.kind === "journal" ? stopReason.eventId : undefined;
  const wrong = (why: string) => damaged(`it is ${status} but ${why}`);
  switch (status) {
    case "running":
      if (stopReason !== null) throw wrong("has a stop reason");
      return;
    case "suspended": {
      if (atEvent === undefined) throw wrong("has no stop reason naming its question");
      if (atEvent !== count) throw wrong("its question is not its last event");
      const request = last!;
      if (request.type !== "yield" || request.description.type !== "suspension_request") {
        throw wrong(`its stop event ${atEvent} is not a question`);
      }
      return;
    }
    case "interrupted":
      // Its journal may end with the root Close: the executor died before settling.
      if (host !== "interrupted" && host !== "crashed" && host !== "secret_detected") {
        throw wrong("has no interruption reason");
      }
      return;
    case "completed":
      if (stopReason !== null) throw wrong("has a stop reason");
      if (!closed || last.result.status !== "ok") throw wrong("its journal lacks its root Close");
      return;
    case "failed":
      if (atEvent !== undefined) {
        if (!closed || atEvent !== count || last.result.status !== "err") {
          throw wrong("its stop event is not a failed root Close");
        }
        return;
      }
      // `secret_detected` too: a run an earlier xmd failed for a secret.
      if (host !== "divergence" && host !== "secret_detected" && host !== "storage_failure") {
        throw wrong("has no failure reason");
      }
      return;
    case "cancelled":
      if (host !== "cancelled") throw wrong("has no cancellation reason");
      return;
  }
}

/** Executions 1..n, the first a start, each ended but the running one, as the status says. */
function verifyExecutions(store: RunStore, record: RunRecord, damaged: Damaged) {
  const executions = store.executions();
  const current = store.currentExecution();
  if (executions.length !== current || executions.some((row, index) => row.seq !== index + 1)) {
    throw damaged(`its executions are not 1 to ${current}`);
  }
  executions.forEach((execution, index) => {
    if ((execution.kind === "start") !== (index === 0)) {
      throw damaged(`its execution ${execution.seq} is of the wrong kind`);
    }
    const last = index === executions.length - 1;
    if (!last || record.status !== "running") {
      const expected: readonly RunStatus[] = !last
        ? ["suspended", "interrupted"]
        : record.status === "cancelled"
        ? ["suspended", "interrupted"]
        : [record.status];
      if (execution.endedAt === null || !expected.includes(execution.outcome!)) {
        throw damaged(`its execution ${execution.seq} did not end as the run says`);
      }
    } else if (execution.endedAt !== null || execution.outcome !== null) {
      throw damaged(`its running execution ${execution.seq} has already ended`);
    }
  });
}

/** One root source, named by the record, hashing to the definition hash, that loads. */
async function verifyDefinition(
  store: RunStore,
  record: RunRecord,
  sources: RetainedSource[],
  damaged: Damaged,
  sha256: Sha256 = sha256Hex,
) {
  const roots = sources.filter((source) => source.root);
  if (roots.length !== 1 || roots[0].label !== record.document) {
    throw damaged("its retained definition has no root document, or more than one");
  }
  if (definitionHashOf(sources, record.target, sha256) !== record.definitionHash) {
    throw damaged("its retained definition does not match its definition hash");
  }
  try {
    await loadRetainedProgram(store);
  } catch (error) {
    throw damaged(
      `its retained definition does not load (${
        error instanceof Error ? error.name : "unknown error"
      })`,
    );
  }
}

/** The props hash to their digest, and the journal's props event records the same digest. */
function verifyProps(
  store: RunStore,
  record: RunRecord,
  journal: JournalSummary,
  damaged: Damaged,
) {
  if (sha256Hex(canonicalJson(store.props())) !== record.propsHash) {
    throw damaged("its props do not match their digest");
  }
  const first = journal.first;
  if (first?.type === "yield" && first.description.sha256 !== record.propsHash) {
    throw damaged("its journal records other props than the run holds");
  }
}

/** Each answer waiting is for a question not yet answered, and matches its schema. */
async function verifyAnswers(store: RunStore, journal: JournalSummary, damaged: Damaged) {
  const { open } = journal;
  for (const { suspensionId, value } of store.answers()) {
    if (!open.has(suspensionId)) {
      throw damaged(`it holds an answer to ${suspensionId}, which no open question asks`);
    }
    if ((await answerProblems(open.get(suspensionId)!, value)).length > 0) {
      throw damaged(`its answer to ${suspensionId} does not match the question's schema`);
    }
  }
}

/**
 * The Workspace root a run continues from: everything it reaches is intact,
 * and it is the root the journal last recorded, the one the live Workspace is
 * published at (what every commit leaves), and the one its live tables
 * describe when every cached hash is ignored (WS-25, WS-26).
 */
function verifyCurrentRoot(
  store: RunStore,
  record: RunRecord,
  sha256: Sha256 | undefined,
  damaged: Damaged,
) {
  const where = `run "${record.id}"`;
  const { root, eventCount } = record;
  verifyRoot(store.sql, root, where, sha256);
  const journaled = eventCount === 0 ? root : store.rootAfter(eventCount);
  const live = store.sql.exec("SELECT hash FROM ws_inode WHERE ino = ?", ROOT_INO)[0]?.hash;
  if (journaled !== root || live !== root || liveRootOf(store.sql, where, sha256) !== root) {
    throw damaged(
      "its current Workspace root is not the one its journal last recorded and its Workspace holds",
    );
  }
}
