/**
 * The remote host's limits through the real CLI: a value over the Durable
 * Object's row limit (RM-48) fails the run with one `xmd:` line that says
 * what to change, never an internal error, and keeps every earlier commit.
 */
import assert from "node:assert/strict";
import { RemoteStage, workflow } from "./_test-remote-cli.ts";

Deno.test("RM-120: a value over the remote row limit fails the run with one xmd: line naming the limit and what to change; the earlier commit is kept and a resume is refused, changing nothing", async () => {
  await using stage = await RemoteStage.start();
  const issue = stage.issue();
  const env = stage.jobEnv({
    XMD_WORKFLOW_REMOTE: stage.remote,
    GITHUB_EVENT_PATH: await stage.event(issue.id),
  });
  const id = await stage.runId(issue);
  const started = await workflow(["start", "ok.remote-row-limit.md"], env);
  assert.equal(started.code, 1, started.stderr);
  assert.equal(started.stdout, "# A block whose result is over the remote row limit\n");
  assert.equal(
    started.stderr,
    `workflow run: ${id}\nworkflow status: failed\n` +
      "xmd: Cannot store the event after event 2: it is over the 1835008-byte row limit\n" +
      `Run ${id} failed there, every earlier effect kept. A remote run stores no single value ` +
      "over 1.75 MiB: write large output to a file in the Workspace instead (for a shell block, " +
      `redirect it), then delete it with xmd workflow delete --issue=${issue.id}, then start the ` +
      "issue's run again\n",
  );

  const history = await workflow(["history", "--json"], env);
  assert.equal(history.code, 0, history.stderr);
  const { status, stopReason, events } = JSON.parse(history.stdout);
  assert.equal(status, "failed");
  assert.deepEqual(stopReason, { kind: "host", code: "storage_failure" });
  // The props Yield and the kept <File>: the oversized block's event was never committed.
  assert.equal(events.length, 2);
  const before = await stage.dump(id);

  // Resuming a failed run is refused as locally and changes nothing.
  const resumed = await workflow(["resume"], env);
  assert.equal(resumed.code, 1);
  assert.doesNotMatch(resumed.stderr, /internal error|^\s+at /m);
  assert.equal(await stage.dump(id), before);
});
