/**
 * A resume of a journal longer than two pages: verification, the decision
 * and the replay read the event table a page at a time (WF-200), and a
 * resume killed by a real SIGKILL after that replay loses nothing (WF-201).
 */
import assert from "node:assert/strict";
import { createSecretGate, type JournalEvent } from "@xmd/core";
import { testFolder } from "../../../core/src/deno/_test-temp-folder.ts";
import { continuation } from "../execution/continuation.ts";
import { executeRun } from "../execution/execute-run.ts";
import { verifyRun } from "../execution/verify-run.ts";
import type { HeldTransaction, SqlRow, SqlSeam, SqlValue } from "../sql/sql-seam.ts";
import type { CommitPoint } from "../store/commit-points.ts";
import { EVENT_PAGE, RunStore } from "../store/run-store.ts";
import {
  type DatabaseFiles,
  eventsOf,
  quietIo,
  readDatabase,
  restoreDatabase,
  RUN,
  runPath,
  workflow,
} from "./_test-workflow-cli.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";
import { nativeSha256Hex } from "./native-sha256.ts";
import { openRunDatabase, readRunDatabase } from "./run-database.ts";

/** 600 `<File>` writes, a question, two more writes: 606 events, more than two pages. */
const DOCUMENT = "ok.paged-resume.md";
const START = ["start", `--id=${RUN}`, DOCUMENT];

/** The run answered and not yet resumed, and the uninterrupted resume's journal and root. */
interface PagedReference {
  answered: DatabaseFiles;
  events: JournalEvent[];
  root: string;
  output: string;
}

let reference: Promise<PagedReference> | undefined;

function pagedReference(): Promise<PagedReference> {
  reference ??= (async () => {
    const runs = await testFolder("xmd-paged-");
    try {
      assert.equal((await workflow(runs, START)).code, 2);
      const host = new LocalWorkflowHost(runs);
      const inspected = await host.inspect(RUN);
      assert.ok(inspected.record.eventCount > 2 * EVENT_PAGE, "a journal of more than two pages");
      const pending = inspected.pendingSuspension!;
      const answer = await workflow(runs, ["answer", RUN, pending.suspensionId, "true"]);
      assert.equal(answer.code, 0, answer.stderr);
      const answered = await readDatabase(runs);
      const done = await workflow(runs, ["resume", RUN]);
      assert.equal(done.code, 0, done.stderr);
      const history = await host.history(RUN);
      assert.equal(history.record.status, "completed");
      return {
        answered,
        events: eventsOf(history),
        root: history.record.root,
        output: done.stdout,
      };
    } finally {
      await Deno.remove(runs, { recursive: true });
    }
  })();
  return reference;
}

/** A seam that records how many rows each statement reading the event table returned. */
class CountingSeam implements SqlSeam {
  readonly #inner: SqlSeam;
  readonly eventReads: number[] = [];

  constructor(inner: SqlSeam) {
    this.#inner = inner;
  }

  exec(sql: string, ...params: SqlValue[]): SqlRow[] {
    const rows = this.#inner.exec(sql, ...params);
    if (/\bFROM event\b/.test(sql)) this.eventReads.push(rows.length);
    return rows;
  }

  transaction<T>(fn: () => T, label?: CommitPoint): T {
    return this.#inner.transaction(fn, label);
  }

  hold(label: CommitPoint): HeldTransaction {
    return this.#inner.hold!(label);
  }
}

Deno.test("WF-200 resume verifies, decides and replays a journal of three pages reading at most one page of events at a time", async () => {
  const { answered, events, root } = await pagedReference();
  const runs = await restoreDatabase(answered);
  try {
    const path = runPath(runs);
    const where = `run "${RUN}"`;
    // As `resume` does: verification and the decision over a read-only connection, ...
    const reading = new CountingSeam(readRunDatabase(path, where, { recover: true })!);
    const read = new RunStore(reading, where);
    await verifyRun(read, { workspace: true, sha256: nativeSha256Hex });
    const next = continuation(read);
    assert.equal(next.kind, "execute");
    // ... then the execution over a writing one, which replays the journal first.
    const opened = await openRunDatabase(path, where, { create: false });
    using seam = opened!.seam;
    const writing = new CountingSeam(seam);
    const store = new RunStore(writing, where);
    store.recoverStale();
    const execution = store.beginExecution(["suspended", "interrupted"]);
    const result = await executeRun({
      store,
      execution,
      sha256: nativeSha256Hex,
      gate: createSecretGate(),
      ...quietIo(),
    });
    assert.equal(result.status, "completed");
    const all = [...reading.eventReads, ...writing.eventReads];
    assert.ok(
      Math.max(...all) <= EVENT_PAGE,
      `a statement read ${Math.max(...all)} events (the page is ${EVENT_PAGE})`,
    );
    assert.ok(all.filter((rows) => rows === EVENT_PAGE).length >= 4, "read page by page");
    const history = await new LocalWorkflowHost(runs).history(RUN);
    assert.deepEqual(eventsOf(history), events, "the journal of the uninterrupted resume");
    assert.equal(history.record.root, root, "and its Workspace");
  } finally {
    await Deno.remove(runs, { recursive: true });
  }
});

for (const phase of ["before", "after"] as const) {
  Deno.test(`WF-201 a resume killed (SIGKILL) ${phase} the first effect after replaying three pages loses nothing`, async () => {
    const { answered, events, root, output } = await pagedReference();
    const runs = await restoreDatabase(answered);
    try {
      const host = new LocalWorkflowHost(runs);
      const killed = await workflow(runs, ["resume", RUN], {
        XMD_FAILPOINT: `workspace-effect:${phase}`,
      });
      assert.equal(killed.signal, "SIGKILL", killed.stderr);
      const crashed = await host.history(RUN);
      assert.equal(crashed.record.status, "running");
      // Up to the answer's event (603), and the first write after it once it committed.
      assert.deepEqual(eventsOf(crashed), events.slice(0, phase === "before" ? 603 : 604));
      const resumed = await workflow(runs, ["resume", RUN]);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(resumed.stdout, output, "the output of the uninterrupted resume");
      const history = await host.history(RUN);
      assert.equal(history.record.status, "completed");
      assert.deepEqual(eventsOf(history), events, "each event once, in order");
      assert.equal(history.record.root, root, "the Workspace of the uninterrupted resume");
    } finally {
      await Deno.remove(runs, { recursive: true });
    }
  });
}
