/**
 * Locally a finished execution's root Close commits with its settlement
 * (WF-181): a real `xmd workflow start` killed with SIGKILL right before that
 * commit leaves the run `running` without the Close, and right after it
 * `completed` with it; never a Close without its settlement.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnXmd } from "../../../cli/src/deno/_run-xmd.ts";
import { outcomeOf } from "./_test-workflow-cli.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";

const DOCUMENT = '<File path="a.txt">alpha</File>\n\ndone\n';

async function start(dir: string, failpoint: string) {
  return await outcomeOf(
    spawnXmd(["workflow", "start", "--id=c", "doc.md"], {
      cwd: dir,
      env: { XMD_WORKFLOW_RUNS: join(dir, "runs"), XMD_FAILPOINT: failpoint },
    }),
  );
}

async function withFolder(test: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "doc.md"), DOCUMENT);
    await test(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("WF-181: killed right before the settlement commits, a finished start leaves no root Close; resumed, it completes with one", async () => {
  await withFolder(async (dir) => {
    const killed = await start(dir, "settle:before");
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    const host = new LocalWorkflowHost(join(dir, "runs"));
    const seen = await host.history("c");
    assert.equal(seen.record.status, "running");
    assert.deepEqual(
      seen.events.map(({ event }) => event.type === "yield" ? event.description.type : event.type),
      ["props", "file.write"],
    );
    const resumed = await outcomeOf(
      spawnXmd(["workflow", "resume", "c"], {
        cwd: dir,
        env: { XMD_WORKFLOW_RUNS: join(dir, "runs") },
      }),
    );
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /workflow status: completed/);
    const done = await host.history("c");
    assert.equal(done.record.status, "completed");
    assert.deepEqual(
      done.events.map(({ event }) => event.type === "yield" ? event.description.type : event.type),
      ["props", "file.write", "close"],
    );
    assert.deepEqual(done.executions.map((execution) => execution.outcome), [
      "interrupted",
      "completed",
    ]);
  });
});

Deno.test("WF-181: killed right after the settlement commits, a finished start is completed with its root Close", async () => {
  await withFolder(async (dir) => {
    const killed = await start(dir, "settle:after");
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    const seen = await new LocalWorkflowHost(join(dir, "runs")).history("c");
    assert.equal(seen.record.status, "completed");
    assert.equal(seen.events.length, 3);
    assert.equal(seen.events[2].event.type, "close");
    assert.deepEqual(seen.executions.map((execution) => execution.outcome), ["completed"]);
  });
});
