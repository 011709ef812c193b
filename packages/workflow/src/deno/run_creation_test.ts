/**
 * A new run database's initialization (WF-140): built beside the run's name
 * and renamed into place, checked with real SIGKILLs of real `xmd workflow
 * start` processes at the points around the rename.
 */
import assert from "node:assert/strict";
import { RunNotFoundError } from "../contracts/workflow-errors.ts";
import { type Outcome, runPath, sideFiles, START, workflow } from "./_test-workflow-cli.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";

function assertKilled(outcome: Outcome): void {
  assert.equal(outcome.signal, "SIGKILL", `not killed (exit ${outcome.code}):\n${outcome.stderr}`);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** The main file's SQLite header bytes 18 and 19 (2 and 2: WAL mode) and its `user_version`. */
async function header(path: string): Promise<{ mode: number[]; userVersion: number }> {
  const bytes = await Deno.readFile(path);
  return {
    mode: [bytes[18], bytes[19]],
    userVersion: new DataView(bytes.buffer).getUint32(60),
  };
}

/** Starts the run again, unharmed, and checks it suspends at its first question as one file. */
async function startAgain(runs: string): Promise<void> {
  const again = await workflow(runs, START);
  assert.equal(again.code, 2, again.stderr);
  assert.match(again.stderr, /workflow status: suspended/);
  const path = runPath(runs);
  for (const leftover of ["-new", "-new-wal", "-new-shm", "-new-journal"]) {
    assert.equal(await exists(`${path}${leftover}`), false, leftover);
  }
  assert.deepEqual(await sideFiles(path), []);
  const history = await new LocalWorkflowHost(runs).history("matrix");
  assert.equal(history.record.status, "suspended");
  assert.equal(history.executions.length, 1);
}

Deno.test("WF-140: a start killed after building the schema, before the rename, leaves no run; the next start replaces what it left and runs", async () => {
  const runs = await Deno.makeTempDir({ prefix: "xmd-create-" });
  try {
    assertKilled(await workflow(runs, START, { XMD_FAILPOINT: "initialize:after" }));
    const path = runPath(runs);
    // The schema is committed in the file beside the run's name, never under it.
    assert.equal(await exists(path), false);
    assert.equal(await exists(`${path}-new`), true);
    const host = new LocalWorkflowHost(runs);
    await assert.rejects(host.history("matrix"), RunNotFoundError);
    assert.deepEqual((await host.list()).runs, []);
    const status = await workflow(runs, ["status", "matrix"]);
    assert.notEqual(status.code, 0);
    await startAgain(runs);
  } finally {
    await Deno.remove(runs, { recursive: true });
  }
});

Deno.test("WF-140: a start killed before the run's creation commits leaves the whole schema in WAL mode under the run's name and no run; the next start creates it there", async () => {
  const runs = await Deno.makeTempDir({ prefix: "xmd-create-" });
  try {
    assertKilled(await workflow(runs, START, { XMD_FAILPOINT: "create:before" }));
    const path = runPath(runs);
    assert.equal(await exists(`${path}-new`), false);
    assert.deepEqual(await header(path), { mode: [2, 2], userVersion: 2 });
    // No rollback journal was written for the schema or the switch to WAL.
    assert.equal(await exists(`${path}-journal`), false);
    await assert.rejects(new LocalWorkflowHost(runs).history("matrix"), RunNotFoundError);
    await startAgain(runs);
  } finally {
    await Deno.remove(runs, { recursive: true });
  }
});
