/**
 * The crash matrix of Workspace effects: each live Workspace effect is one
 * held transaction (its changes, the new root, its journal event), so a real
 * `xmd workflow` process killed with SIGKILL just before or just after that
 * commit (`XMD_FAILPOINT=workspace-effect:…`), or in the middle of a Worker
 * Shell block, leaves the old root or the new one, never a mix: the status
 * root, the roots recorded on the journal and a full rehash of the live
 * Workspace tables all agree with an uninterrupted run at that point, and
 * `resume` finishes with that run's final root, journal and output.
 */
import assert from "node:assert/strict";
import type { JournalEvent } from "@xmd/core";
import type { RunStatus } from "../contracts/run-record.ts";
import { forgetHashes, publishRoot } from "../workspace/publish-root.ts";
import { verifyRoot } from "../workspace/verify-root.ts";
import {
  eachConcurrently,
  type Outcome,
  readDatabase,
  restoreDatabase,
  RUN,
  runPath,
  startWorkflow,
  workflow,
} from "./_test-workflow-cli.ts";
import {
  ANSWER,
  assertExit,
  type RootedEvent,
  rootedEvents,
  START_EFFECTS,
  workspaceReference,
} from "./_test-workspace-run.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";
import { openRunDatabase } from "./run-database.ts";

/** One killed process: its failpoint and the events the reopened run then holds. */
interface Kill {
  /** `XMD_FAILPOINT`. */
  failpoint: string;
  /** The committed events (a prefix of the reference journal). */
  events: number;
}

/**
 * Processes killed one after another on one run: the first runs `start` (or
 * `resume` of the reference run once its question is answered), each later
 * one is the next executor, recovering from the previous kill before it is
 * killed in turn. The failpoint's count is per process and covers live
 * effects only (a replayed prefix commits nothing).
 */
interface Branch {
  name: string;
  from: "start" | "answered";
  kills: Kill[];
}

/** The reference journal: the effect each event records. */
const JOURNAL = [
  "props",
  "file.write", // notes/a.txt
  "file.write", // notes/b.txt
  "exec", // a block writing build/{ab,one,two}.txt
  "suspension_request",
  "suspension_answer",
  "file.write", // notes/c.txt
  "exec", // a block appending to, removing and reading files
  "file.read",
  "glob",
  "close",
];

/** Kills each of these events' effects just before its commit, then (recovered) just after. */
function eachEffect(events: number[]): Kill[] {
  return events.flatMap((event) => [
    { failpoint: "workspace-effect:before", events: event - 1 },
    { failpoint: "workspace-effect:after", events: event },
  ]);
}

const BRANCHES: Branch[] = [
  { name: "every effect of the start, in turn", from: "start", kills: eachEffect([2, 3, 4]) },
  {
    name: "every effect after the answer, in turn",
    from: "answered",
    kills: eachEffect([7, 8, 9, 10]),
  },
  // The nth commit of one process: effects committed earlier by the killed process stay.
  {
    name: "after the third effect of a start",
    from: "start",
    kills: [{ failpoint: "workspace-effect:after:3", events: 4 }],
  },
  {
    name: "before the fourth effect of a resume",
    from: "answered",
    kills: [{ failpoint: "workspace-effect:before:4", events: 9 }],
  },
];

Deno.test("workspace crash matrix: SIGKILL before and after each Workspace effect's commit leaves the old root or the new one, and resume reaches the uninterrupted run's root and output", async () => {
  const reference = await workspaceReference();
  assert.deepEqual(reference.events.map(({ event }) => kindOf(event)), JOURNAL);

  await eachConcurrently(BRANCHES, BRANCHES.length, (branch) => branch.name, async (branch) => {
    const runs = branch.from === "start"
      ? await Deno.makeTempDir({ prefix: "xmd-ws-crash-" })
      : await restoreDatabase(reference.answered);
    try {
      for (const [index, kill] of branch.kills.entries()) {
        const args = index === 0 && branch.from === "start" ? START_EFFECTS : ["resume", RUN];
        const killed = await workflow(runs, args, { XMD_FAILPOINT: kill.failpoint });
        assertKilled(killed, kill.failpoint);
        await assertCrashState(runs, reference.events.slice(0, kill.events));
      }
      // The next executor (a real process) finds what the last killed one
      // left; a run killed before its question suspends there, is answered,
      // and a last process completes it.
      let done = await workflow(runs, ["resume", RUN]);
      if (branch.from === "start") {
        assertExit(done, 2);
        await new LocalWorkflowHost(runs).answer(RUN, reference.suspensionId, ANSWER, true);
        done = await workflow(runs, ["resume", RUN]);
      }
      assertExit(done, 0);
      assert.equal(done.stdout, reference.output);

      const interrupted = branch.kills.map((): RunStatus => "interrupted");
      await assertFinished(
        runs,
        reference.events,
        branch.from === "start"
          ? [...interrupted, "suspended", "completed"]
          : ["suspended", ...interrupted, "completed"],
      );
    } finally {
      await Deno.remove(runs, { recursive: true });
    }
  });
});

const SLEEP_START = ["start", `--id=${RUN}`, "ok.workspace-sleep.md"];
/** The prose printed right before the sleeping block. */
const BEFORE_BLOCK = "Writing, then sleeping.";
/**
 * The block writes about 4 MB before it sleeps: more than SQLite's page
 * cache, so the uncommitted pages of the held transaction spill into the WAL.
 * A WAL this large is the sign the block's writes have happened.
 */
const SPILLED = 1024 * 1024;

Deno.test("workspace crash matrix: SIGKILL while a Worker Shell block sleeps after writing keeps the previous root, and resume runs the block again", async () => {
  const referenceRuns = await Deno.makeTempDir({ prefix: "xmd-ws-sleep-reference-" });
  const crashRuns = await Deno.makeTempDir({ prefix: "xmd-ws-sleep-" });
  try {
    const [uninterrupted, killed] = await Promise.all([
      workflow(referenceRuns, SLEEP_START),
      killWhileSleeping(crashRuns),
    ]);
    assertExit(uninterrupted, 0);
    const events = await rootedEvents(referenceRuns);
    const root = events.at(-1)!.root;
    assert.deepEqual(events.map(({ event }) => kindOf(event)), [
      "props",
      "file.write",
      "exec",
      "file.read",
      "close",
    ]);

    assertKilled(killed);
    assert.ok(killed.stdout.includes(BEFORE_BLOCK), killed.stdout);
    assert.ok(!killed.stdout.includes("Copy:"), "the block finished before the kill");
    const crashed = await readDatabase(crashRuns);
    assert.ok(crashed.wal.length > SPILLED, "the block's uncommitted writes are in the WAL");
    // Only the props and the first <File> write are committed: the block's
    // files, spilled to the WAL but never committed, are not in the Workspace.
    await assertCrashState(crashRuns, events.slice(0, 2));
    // As a user sees it (on a copy: inspection checkpoints the WAL the next executor must find).
    const copy = await restoreDatabase(crashed);
    const seen = await cliHistory(copy);
    await Deno.remove(copy, { recursive: true });
    assert.deepEqual(seen, { status: "running", root: events[1].root, events: events.slice(0, 2) });

    const resumed = await workflow(crashRuns, ["resume", RUN]);
    assertExit(resumed, 0);
    assert.equal(resumed.stdout, uninterrupted.stdout);
    await assertFinished(crashRuns, events, ["interrupted", "completed"]);
    assert.deepEqual(await cliHistory(crashRuns), { status: "completed", root, events });
  } finally {
    await Deno.remove(referenceRuns, { recursive: true });
    await Deno.remove(crashRuns, { recursive: true });
  }
});

function kindOf(event: JournalEvent): string {
  return event.type === "close" ? "close" : event.description.type;
}

function assertKilled(outcome: Outcome, where = "the block"): void {
  assert.equal(
    outcome.signal,
    "SIGKILL",
    `not killed at ${where} (exit ${outcome.code}):\n${outcome.stderr}`,
  );
  assert.equal(outcome.code, 137);
}

/** `history --json`: the run's status and root, and each event with the root after it. */
async function cliHistory(
  runs: string,
): Promise<{ status: RunStatus; root: string; events: RootedEvent[] }> {
  const outcome = await workflow(runs, ["history", RUN, "--json"]);
  assertExit(outcome, 0);
  const history = JSON.parse(outcome.stdout);
  return {
    status: history.status,
    root: history.root,
    events: history.events.map(
      ({ id: _id, at: _at, root, ...event }: { id: number; at: number; root: string }) => ({
        root,
        event: event as JournalEvent,
      }),
    ),
  };
}

/**
 * Asserts what a killed run holds, on a copy of its files (the original is
 * left exactly as the killed process left it, for the next executor): its
 * root is the root after the last expected event, its journal is exactly
 * `expected` with its roots, and the live Workspace tables, rehashed from
 * scratch, publish that same root.
 */
async function assertCrashState(runs: string, expected: RootedEvent[]): Promise<void> {
  const copy = await restoreDatabase(await readDatabase(runs));
  try {
    const { record } = await new LocalWorkflowHost(copy).inspect(RUN);
    assert.equal(record.status, "running", "the killed executor's run is running until recovered");
    assert.equal(record.eventCount, expected.length);
    const root = expected.at(-1)!.root;
    assert.equal(record.root, root, "the run's root is the root after its last event");
    assert.deepEqual(await rootedEvents(copy), expected);
    assert.equal(await liveRoot(copy), root, "the live Workspace publishes the run's root");
  } finally {
    await Deno.remove(copy, { recursive: true });
  }
}

/**
 * Asserts a finished run: completed at the root after the last event, with
 * exactly the reference journal, and each execution ended with `outcomes`
 * (each killed one closed as interrupted by the next executor).
 */
async function assertFinished(
  runs: string,
  events: RootedEvent[],
  outcomes: RunStatus[],
): Promise<void> {
  const { record, executions } = await new LocalWorkflowHost(runs).inspect(RUN);
  assert.equal(record.status, "completed");
  assert.equal(record.root, events.at(-1)!.root);
  assert.deepEqual(await rootedEvents(runs), events);
  assert.deepEqual(executions.map((execution) => execution.outcome), outcomes);
}

/**
 * The root the live Workspace tables publish when every cached hash is
 * forgotten, verified, in a transaction that is rolled back.
 */
async function liveRoot(runs: string): Promise<string> {
  const opened = await openRunDatabase(runPath(runs), "the crashed run", { create: false });
  using seam = opened!.seam;
  let root = "";
  assert.throws(
    () =>
      seam.transaction(() => {
        forgetHashes(seam);
        root = publishRoot(seam);
        verifyRoot(seam, root, "the crashed run");
        throw new Error("rolled back");
      }),
    /rolled back/,
  );
  return root;
}

/**
 * Starts the sleeping fixture and kills it with SIGKILL once its block has
 * written (the prose before the block is on stdout, then the block's
 * uncommitted pages fill the WAL) and while it sleeps.
 */
async function killWhileSleeping(runs: string): Promise<Outcome> {
  const child = startWorkflow(runs, SLEEP_START);
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let stdout = "";
  let exited = false;
  const status = child.status.finally(() => exited = true);
  while (!stdout.includes(BEFORE_BLOCK)) {
    const chunk = await reader.read();
    if (chunk.done) break;
    stdout += chunk.value;
  }
  const wal = `${runPath(runs)}-wal`;
  while (!exited && await sizeOf(wal) <= SPILLED) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  if (!exited) child.kill("SIGKILL");
  const { code, signal } = await status;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    stdout += chunk.value;
  }
  const outcome = { code, signal, stdout, stderr: await stderr };
  if (signal === null) {
    // The block's uncommitted pages never spilled (a page cache larger than its writes?).
    throw new Error(`The sleeping block ended before it was seen writing:\n${outcome.stderr}`);
  }
  return outcome;
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await Deno.stat(path)).size;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
}
