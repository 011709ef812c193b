/**
 * A new run is created with its first journal event (WF-182): a real
 * `xmd workflow start` killed with SIGKILL right after the create commit
 * leaves a `running` run holding the props digest (JRN-30); resumed, the
 * engine replays it and the run completes with it once.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnXmd } from "../../../cli/src/deno/_run-xmd.ts";
import { outcomeOf } from "./_test-workflow-cli.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";

Deno.test("WF-182: killed right after its creation commits, a start leaves a running run holding the props event; resumed, it is replayed, not journaled again", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "doc.md"), '<File path="a.txt">alpha</File>\n\ndone\n');
    const env = { XMD_WORKFLOW_RUNS: join(dir, "runs") };
    const killed = await outcomeOf(
      spawnXmd(["workflow", "start", "--id=f", "doc.md"], {
        cwd: dir,
        env: { ...env, XMD_FAILPOINT: "create:after" },
      }),
    );
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    const host = new LocalWorkflowHost(env.XMD_WORKFLOW_RUNS);
    const created = await host.history("f");
    assert.equal(created.record.status, "running");
    assert.deepEqual(created.events.map(({ event }) => event), [{
      type: "yield",
      coroutineId: "root",
      // The digest of {} (JRN-30).
      description: {
        type: "props",
        name: "props doc.md",
        sha256: "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
      },
      result: { status: "ok", value: null },
    }]);
    const resumed = await outcomeOf(
      spawnXmd(["workflow", "resume", "f"], { cwd: dir, env }),
    );
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /done/);
    const done = await host.history("f");
    assert.equal(done.record.status, "completed");
    assert.deepEqual(
      done.events.map(({ event }) => event.type === "yield" ? event.description.type : event.type),
      ["props", "file.write", "close"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
