/**
 * workerd SIGKILLed under a remote run (RM-51): the `WorkflowRun` Durable
 * Object in workerd run by miniflare in a child process
 * (`_test-workerd-process.ts`) with its Durable Objects persisted to a
 * directory, runners as real processes connecting through the loopback proxy
 * (`_test-remote-server.ts`), which SIGKILLs the whole workerd process group
 * at a chosen request of one reference run, then workerd is started again on
 * the same directory.
 *
 * Twenty crash points, in the run's order, during one run: each next point
 * is one whose request is certain to be sent after the previous crash
 * (a request whose crash may have landed it is never armed again), so one
 * run and one persist directory serve them all.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { loadProgramFile } from "@xmd/core/deno";
import type { JournalEvent } from "@xmd/core/protocol";
import { WorkerdProcess } from "../cloudflare/_test-workerd-process.ts";
import type { ExecutionIo } from "../contracts/workflow-host.ts";
import { RunNotFoundError } from "../contracts/workflow-errors.ts";
import type { RunHistory } from "../contracts/workflow-host.ts";
import { type CrashPoint, TestRemoteServer } from "./_test-remote-server.ts";
import { TESTDATA } from "./_test-workflow-cli.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";
import { RemoteWorkflowHost } from "./remote-workflow-host.ts";

const DOCUMENT = "ok.workspace-effects.md";
const RUN = "workerd-kill-run";
const ANSWER = { ok: true };
const RUNNER = fileURLToPath(new URL("./_test-remote-runner.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../../../deno.json", import.meta.url));
const LOCK = fileURLToPath(new URL("../../../../dev.lock", import.meta.url));

interface Outcome {
  code: number;
  signal: Deno.Signal | null;
  stdout: string;
  stderr: string;
}

async function runner(server: TestRemoteServer, args: readonly string[]): Promise<Outcome> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      `--config=${CONFIG}`,
      `--lock=${LOCK}`,
      RUNNER,
      server.base,
      ...args,
    ],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: output.code,
    signal: output.signal,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

interface RootedEvent {
  root: string;
  event: JournalEvent;
}

/** The local host's uninterrupted run of the document. */
async function localReference(): Promise<
  { suspensionId: string; resumed: string; events: RootedEvent[] }
> {
  const runs = await Deno.makeTempDir({ prefix: "xmd-workerd-kill-reference-" });
  try {
    const host = new LocalWorkflowHost(runs);
    const program = await loadProgramFile(DOCUMENT, { cwd: TESTDATA });
    const first = await host.start({ id: RUN, program, props: {} }, quiet());
    const suspensionId = first.pendingSuspension!.suspensionId;
    await host.answer(RUN, suspensionId, ANSWER, true);
    let resumed = "";
    const io = { ...quiet(), stdout: (text: string) => resumed += text };
    assert.equal((await host.resume(RUN, io)).status, "completed");
    const events = (await host.history(RUN)).events.map(({ root, event }) => ({ root, event }));
    return { suspensionId, resumed, events };
  } finally {
    await Deno.remove(runs, { recursive: true });
  }
}

function quiet(): ExecutionIo {
  return {
    stdout: () => {},
    stderr: () => {},
    onRun: () => {},
    signal: new AbortController().signal,
  };
}

/** A frontier as frames carry it. */
interface Frontier {
  execution: number;
  events: number;
  root: string;
}

/** What a user sees of the run after a restart (`history --json`), or null when there is no run. */
interface Seen {
  frontier: Frontier;
  status: string;
  answered: boolean | null;
  events: RootedEvent[];
}

function seenOf(history: RunHistory): Seen {
  const { record, executions, pendingSuspension, events } = history;
  return {
    frontier: {
      execution: executions.at(-1)?.seq ?? 0,
      events: record.eventCount,
      root: record.root,
    },
    status: record.status,
    answered: pendingSuspension?.answered ?? null,
    events: events.map(({ root, event }) => ({ root, event })),
  };
}

async function seen(server: TestRemoteServer): Promise<Seen | null> {
  const host = new RemoteWorkflowHost({ url: (id) => server.urlOf(id) });
  try {
    return seenOf(await host.history(RUN));
  } catch (error) {
    if (error instanceof RunNotFoundError) return null;
    throw error;
  }
}

/**
 * A crash point: the request (its type, and the number of committed events
 * of the frontier last replied on its connection, the one it builds on) and
 * where around it workerd is killed.
 */
type Point = readonly [type: string, events: number | null, at: CrashPoint];

/** Twenty points of the reference run, in its order (see the module doc). */
const POINTS: readonly Point[] = [
  ["create", null, "received"],
  ["commit", 0, "forwarded"], // the props
  ["commit", 1, "received"], // the first <File>, its chunk in the frame
  ["commit", 1, "replied"],
  ["commit", 2, "delivered"], // the second <File>
  ["commit", 3, "received"], // the shell block, its chunks in the frame
  ["commit", 3, "forwarded"],
  ["commit", 4, "replied"], // the question
  ["settle", 5, "received"], // suspended
  ["settle", 5, "delivered"],
  ["answer", 5, "forwarded"],
  ["begin", 5, "received"],
  ["begin", 5, "replied"],
  ["commit", 5, "forwarded"], // the answer consumed
  ["commit", 6, "received"], // the third <File>
  ["commit", 6, "replied"],
  ["commit", 7, "received"], // the second shell block
  ["commit", 8, "forwarded"], // the <File> read
  ["commit", 9, "delivered"], // the <Glob>
  ["settle", 11, "forwarded"], // completed
];

/**
 * Whether `seen` is the state before the request of `point` (built on
 * frontier `before`) or the state after it landed.
 */
function stateOf(
  point: Point,
  before: Frontier | null,
  seen: Seen | null,
  reference: RootedEvent[],
): "old" | "new" | "neither" {
  const type = point[0];
  if (type === "create") {
    if (seen === null) return "old";
    return seen.status === "running" && seen.frontier.events === 0 ? "new" : "neither";
  }
  if (seen === null || before === null) return "neither";
  const at = seen.frontier;
  const kept = sameFrontier(at, before);
  switch (type) {
    case "commit":
      if (kept && seen.status === "running") return "old";
      return at.execution === before.execution && at.events === before.events + 1 &&
          at.root === reference[before.events].root && seen.status === "running"
        ? "new"
        : "neither";
    case "settle":
      return !kept ? "neither" : seen.status === "running" ? "old" : "new";
    case "begin":
      if (kept && seen.status !== "running") return "old";
      return at.execution === before.execution + 1 && at.events === before.events &&
          at.root === before.root && seen.status === "running"
        ? "new"
        : "neither";
    default: // answer
      return !kept ? "neither" : seen.answered ? "new" : "old";
  }
}

function sameFrontier(a: Frontier, b: Frontier): boolean {
  return a.execution === b.execution && a.events === b.events && a.root === b.root;
}

Deno.test("RM-51 workerd SIGKILLed at 20 points of a reference run and restarted on its directory: the old or the new frontier, every acknowledged commit kept, the runner exits 75 repeating nothing, and the run ends as the reference", async () => {
  const reference = await localReference();
  await using workerd = await WorkerdProcess.start();
  await using server = await TestRemoteServer.start({
    url: (id) => `${workerd.base}?run=${encodeURIComponent(id)}`,
    dump: (id) => workerd.dump(id),
    [Symbol.asyncDispose]: () => Promise.resolve(),
  });
  let fired = 0;
  for (let step = 0; step < 60; step++) {
    const point = POINTS[fired];
    const was = await seen(server);
    if (was?.status === "completed") break;
    let before: Frontier | null = null;
    let acknowledged = 0;
    if (point) {
      const [type, events, at] = point;
      server.crash = {
        at,
        match: (header, frontier) => {
          const built = frontier as Frontier | null;
          if (header.type !== type || (built?.events ?? null) !== events) return false;
          before = built;
          return true;
        },
        crash: () => workerd.killNow(),
      };
    }
    server.acknowledged = 0;
    const args = was === null
      ? ["start", DOCUMENT, RUN, TESTDATA]
      : was.status === "suspended" && was.answered === false
      ? ["answer", RUN, reference.suspensionId, JSON.stringify(ANSWER)]
      : ["resume", RUN];
    const outcome = await runner(server, args);
    assert.equal(outcome.signal, null, outcome.stderr);
    if (!server.crashed) {
      assert.ok([0, 2].includes(outcome.code), outcome.stderr);
      continue;
    }
    // workerd died under the runner: it saw a lost connection, or its last reply had come.
    fired++;
    acknowledged = server.acknowledged;
    if (outcome.code !== 0 && outcome.code !== 2) {
      assert.equal(outcome.code, 75, outcome.stderr);
      assert.match(outcome.stderr, /^xmd: Connection lost: [^\n]*\n$/);
    }
    await workerd.reaped();
    await workerd.restart();
    server.crashed = false;
    const after = await seen(server);
    const label = `${point!.join(" ")} (crash ${fired})`;
    const state = stateOf(point!, before, after, reference.events);
    const expected = point![2] === "received"
      ? ["old"]
      : point![2] === "forwarded"
      ? ["old", "new"]
      : ["new"];
    assert.ok(
      expected.includes(state),
      `${label}: ${state}: ${JSON.stringify(after?.frontier)} ${after?.status}, built on ${
        JSON.stringify(before)
      }`,
    );
    // Nothing repeated, nothing lost: the committed journal is the reference's, as far as it goes,
    // and holds every commit workerd acknowledged.
    const events = after?.events ?? [];
    assert.deepEqual(events, reference.events.slice(0, events.length), label);
    assert.ok(events.length >= acknowledged, `${label}: ${acknowledged} acknowledged`);
  }
  assert.equal(fired, POINTS.length, "every crash point was reached");
  const end = await seen(server);
  assert.equal(end?.status, "completed");
  assert.deepEqual(end.events, reference.events);
  // The completed run replays to the reference's output, changing nothing.
  const dump = await server.dump(RUN);
  const replayed = await runner(server, ["resume", RUN]);
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.equal(replayed.stdout, reference.resumed);
  assert.equal(await server.dump(RUN), dump);
});
