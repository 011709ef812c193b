/**
 * The shared lifecycle decisions (`src/execution/`), each host-neutral: the
 * run id grammar, the WF-23 conflict check and the continuation decision of
 * WF-24, over a real run database.
 */
import assert from "node:assert/strict";
import type { RunRecord } from "../contracts/run-record.ts";
import { RunConflictError, RunNotFoundError } from "../contracts/workflow-errors.ts";
import { continuation } from "../execution/continuation.ts";
import { checkRunId } from "../execution/run-id.ts";
import { checkStartConflict } from "../execution/start-conflict.ts";
import { withCreatedRun } from "./_test-executor-run.ts";

Deno.test("WF-7 run ids: 1 to 128 letters, digits, . _ -, starting with a letter or digit", () => {
  for (const id of ["a", "A.b_c-9", "9", "x".repeat(128)]) checkRunId(id);
  for (const id of ["", ".a", "-a", "a/b", "a b", "x".repeat(129), "é"]) {
    assert.throws(() => checkRunId(id), RunNotFoundError, id);
  }
});

Deno.test("WF-23 a start that differs from the existing run names the field, never a value", () => {
  const record = {
    id: "r",
    definitionHash: "d".repeat(64),
    target: "Build",
    propsHash: "p".repeat(64),
  } as RunRecord;
  const same = { definitionHash: "d".repeat(64), target: "Build", propsHash: "p".repeat(64) };
  checkStartConflict(record, same);
  const cases = [
    [{ ...same, definitionHash: "e".repeat(64) }, "definition"],
    [{ ...same, definitionHash: "e".repeat(64), target: undefined }, "target"],
    [{ ...same, propsHash: "q".repeat(64) }, "props value"],
  ] as const;
  for (const [start, field] of cases) {
    assert.throws(() => checkStartConflict(record, start), (error: Error) => {
      assert.ok(error instanceof RunConflictError);
      assert.match(error.message, new RegExp(`a different ${field}$`));
      assert.ok(!error.message.includes("e".repeat(64)) && !error.message.includes("q".repeat(64)));
      return true;
    });
  }
});

Deno.test("WF-24 continuation: running and interrupted execute, a question without an answer reports, one with an answer executes with it, a root Close replays", async () => {
  const question = '<Elicit as="go" schema={{ type: "boolean" }}>Go?</Elicit>\n';
  await withCreatedRun(question, ({ store, execution }) => {
    assert.deepEqual(continuation(store), { kind: "execute", answer: null });
    store.append(execution, {
      type: "yield",
      coroutineId: "root",
      description: {
        type: "suspension_request",
        name: "Elicit doc.md:1:1",
        as: "go",
        suspensionId: "go-1",
        question: "Go?",
        schema: { type: "boolean" },
      },
      result: { status: "ok", value: null },
    });
    store.settle(execution, "suspended", { kind: "journal", eventId: 1 });
    assert.deepEqual(continuation(store), { kind: "report" });
    store.storeAnswer("go-1", true);
    assert.deepEqual(continuation(store), {
      kind: "execute",
      answer: { suspensionId: "go-1", value: true },
    });
    const next = store.beginExecution(["suspended"]);
    store.settle(next, "interrupted", { kind: "host", code: "interrupted" });
    assert.deepEqual(continuation(store), { kind: "execute", answer: null });
    const last = store.beginExecution(["interrupted"]);
    store.settle(last, "failed", { kind: "host", code: "divergence" });
    // Failed for a host reason, no root Close: nothing to replay.
    assert.deepEqual(continuation(store), { kind: "report" });
  });
  await withCreatedRun("Done.\n", ({ store, execution }) => {
    store.append(execution, {
      type: "close",
      coroutineId: "root",
      result: { status: "ok", value: null },
    });
    store.settle(execution, "completed", null);
    assert.deepEqual(continuation(store), { kind: "replay" });
  });
});
