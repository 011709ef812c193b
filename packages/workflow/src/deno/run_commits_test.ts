/**
 * The commit seam (WF-60, WF-61): an executor given a `RunCommits` offers
 * every append and its settlement to it after applying the change and
 * before the local COMMIT; a rejection keeps nothing of the change locally.
 * Real run databases in temp dirs, a real Worker Shell for the block.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { createSecretGate } from "@xmd/core";
import type { RunStatus } from "../contracts/run-record.ts";
import { executeRun } from "../execution/execute-run.ts";
import type { RunChange, RunCommits } from "../execution/run-commits.ts";
import type { RunStore } from "../store/run-store.ts";
import { liveRootOf } from "../workspace/live-root.ts";
import { nativeSha256Hex } from "./native-sha256.ts";
import { dumpDatabase, withCreatedRun } from "./_test-executor-run.ts";
import { WorkerShell } from "./worker-shell.ts";

const DOCUMENT = [
  '<File path="a.txt">alpha</File>',
  "",
  '<File path="b.txt">beta</File>',
  "",
  "```sh exec",
  "cat a.txt b.txt > c.txt",
  "```",
  "",
  '<File path="c.txt" as="c" />',
  "",
  '<Glob include="*.txt" as="all" />',
  "",
  "{c} {all.join(',')}",
  "",
].join("\n");

/** What a `RunCommits` saw: each change, and the committed state of the database at that moment. */
interface Offered {
  change: RunChange;
  /** Events committed (as another connection sees them) when the change was offered. */
  committedEvents: number;
  /** Events the executor's own connection holds then (the change applied, uncommitted). */
  appliedEvents: number;
  /** Every row of every table, as another connection sees them then. */
  dump: string;
}

/** The document's run, created; `execute` runs it with `commits`. */
function withRun<T>(
  fn: (
    run: { path: string; store: RunStore; execute(commits: RunCommits): Promise<unknown> },
  ) => Promise<T>,
): Promise<T> {
  return withCreatedRun(DOCUMENT, ({ path, store, execution }) =>
    fn({
      path,
      store,
      execute: (commits) =>
        executeRun({
          store,
          execution,
          commits,
          shell: (workspace) => new WorkerShell(workspace),
          sha256: nativeSha256Hex,
          gate: createSecretGate(),
          stdout: () => {},
          stderr: () => {},
          signal: new AbortController().signal,
        }),
    }));
}

/** A `RunCommits` that records what it is offered and answers with `verdict`. */
function recorder(
  path: string,
  store: RunStore,
  verdict: (change: RunChange, index: number) => Error | null,
): RunCommits & { offered: Offered[] } {
  const offered: Offered[] = [];
  return {
    offered,
    commit(change) {
      const db = new DatabaseSync(path, { readOnly: true });
      let committedEvents: number;
      try {
        committedEvents = Number(db.prepare("SELECT count(*) AS n FROM event").get()!.n);
      } finally {
        db.close();
      }
      offered.push({
        change,
        committedEvents,
        appliedEvents: store.record().eventCount,
        dump: dumpDatabase(path),
      });
      const refusal = verdict(change, offered.length - 1);
      return refusal ? Promise.reject(refusal) : Promise.resolve();
    },
  };
}

Deno.test("WF-60 every append and the settlement are offered to RunCommits after they are applied and before the local COMMIT, with the frontier they expect", async () => {
  await withRun(async ({ path, store, execute }) => {
    const commits = recorder(path, store, () => null);
    await execute(commits);
    const events = store.events();
    const record = store.record();
    assert.equal(record.status, "completed");
    const appends = commits.offered.filter((item) => item.change.kind === "append");
    const settle = commits.offered.at(-1)!;
    assert.equal(appends.length, events.length);
    assert.equal(commits.offered.length, events.length + 1);
    // The roots chain: each change expects the frontier the one before left.
    let root = commits.offered[0].change.expected.root;
    appends.forEach((item, index) => {
      assert.ok(item.change.kind === "append");
      assert.deepEqual(item.change.expected, { execution: 1, events: index, root });
      assert.deepEqual(item.change.event, events[index].event);
      assert.equal(item.change.root, events[index].root);
      // Applied on the executor's connection, not yet committed for anyone else.
      assert.equal(item.appliedEvents, index + 1);
      assert.equal(item.committedEvents, index);
      root = item.change.root;
    });
    assert.deepEqual(settle.change, {
      kind: "settle",
      expected: { execution: 1, events: events.length, root: record.root },
      status: "completed",
      stopReason: null,
    });
    assert.equal(settle.committedEvents, events.length);
    // Workspace effects moved the root; the others kept it.
    const types = events.map(({ event }) =>
      event.type === "yield" ? event.description.type : "close"
    );
    assert.deepEqual(types, [
      "props",
      "file.write",
      "file.write",
      "exec",
      "file.read",
      "glob",
      "close",
    ]);
    assert.ok(new Set(events.map((entry) => entry.root)).size >= 4);
  });
});

for (
  const { refused, settles, status } of [
    { refused: "file.write", settles: false, status: "running" },
    { refused: "file.write", settles: true, status: "failed" },
    { refused: "exec", settles: false, status: "running" },
    { refused: "settle", settles: false, status: "running" },
  ] as const
) {
  Deno.test(
    `WF-61 a rejected ${refused} is rolled back and its error propagates; the authority ${
      settles ? "accepting" : "refusing"
    } the settlement leaves the copy ${status}`,
    async () => {
      await withRun(async ({ path, store, execute }) => {
        const refusal = new Error("the authority refused this change");
        let rejected = -1;
        const commits = recorder(path, store, (change, index) => {
          const kind = change.kind === "settle"
            ? "settle"
            : change.event.type === "yield"
            ? change.event.description.type
            : "close";
          if (rejected < 0 && kind === refused) {
            rejected = index;
            return refusal;
          }
          // After a rejection: the settlement that follows is accepted or refused.
          if (rejected >= 0 && !settles) return new Error("the authority is gone");
          return null;
        });
        await assert.rejects(execute(commits), (error) => error === refusal);
        const at = commits.offered[rejected];
        const record = store.record();
        assert.equal(record.status, status as RunStatus);
        // Nothing of the rejected change (nor of its effect) was kept.
        assert.equal(record.eventCount, at.change.expected.events);
        assert.equal(record.root, at.change.expected.root);
        assert.equal(liveRootOf(store.sql, "the run", nativeSha256Hex), record.root);
        if (settles) {
          assert.deepEqual(record.stopReason, { kind: "host", code: "storage_failure" });
          const last = commits.offered.at(-1)!.change;
          assert.equal(last.kind, "settle");
          assert.deepEqual(last.expected, at.change.expected);
        } else {
          // Byte for byte what was committed when the rejected change was offered.
          assert.equal(dumpDatabase(path), at.dump);
        }
      });
    },
  );
}
