import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { FAILPOINT_VARIABLE, parseFailpoint, withFailpoint } from "./failpoint.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";
import { answerFor, RUN, START, workflow } from "./_test-workflow-cli.ts";

Deno.test("parseFailpoint reads <point>:<before|after>[:<nth>][:stop]", () => {
  assert.deepEqual(parseFailpoint("append:before"), {
    point: "append",
    phase: "before",
    nth: 1,
    signal: "SIGKILL",
  });
  assert.deepEqual(parseFailpoint("consume-answer:after:3:stop"), {
    point: "consume-answer",
    phase: "after",
    nth: 3,
    signal: "SIGSTOP",
  });
  assert.deepEqual(parseFailpoint("settle:after:stop").signal, "SIGSTOP");
  for (
    const text of ["append", "append:during", "apend:before", "append:before:0", "append:after:x"]
  ) {
    assert.throws(() => parseFailpoint(text), TypeError, text);
  }
});

Deno.test({
  name: "without XMD_FAILPOINT the seam is returned as it is",
  ignore: Deno.env.has(FAILPOINT_VARIABLE),
  fn() {
    const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
    using opened = withFailpoint(() => seam);
    assert.equal(opened, seam);
  },
});

Deno.test("a failpoint fires only on a transaction that commits a change, and a malformed one refuses to open anything", async () => {
  const runs = await Deno.makeTempDir({ prefix: "xmd-failpoint-" });
  assert.equal((await workflow(runs, START)).code, 2);
  const host = new LocalWorkflowHost(runs);
  const { suspensionId } = (await host.inspect(RUN)).pendingSuspension!;
  await host.answer(RUN, suspensionId, answerFor(suspensionId), true);
  const empty = await Deno.makeTempDir({ prefix: "xmd-failpoint-" });
  const [recovery, malformed] = await Promise.all([
    // Nothing is stale: resume's stale recovery commits nothing, so it is not a commit point.
    workflow(runs, ["resume", RUN], { XMD_FAILPOINT: "recover-stale:before" }),
    workflow(empty, START, {
      XMD_FAILPOINT: "append:sometimes",
    }),
  ]);
  assert.equal(recovery.signal, null, recovery.stderr);
  assert.equal(recovery.code, 2, recovery.stderr);
  assert.equal(malformed.code, 1);
  assert.match(malformed.stderr, /Cannot use XMD_FAILPOINT="append:sometimes"/);
  assert.doesNotMatch(malformed.stderr, /workflow run:/);
  assert.equal((await host.inspect(RUN)).record.eventCount, 5);
  const left = await Array.fromAsync(Deno.readDir(empty), (entry) => entry.name);
  assert.ok(left.every((name) => name.endsWith(".lock")), `left behind: ${left.join(", ")}`);
  await Deno.remove(runs, { recursive: true });
  await Deno.remove(empty, { recursive: true });
});
