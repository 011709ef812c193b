/**
 * The runner (`RemoteWorkflowHost`, each one a real process) against the
 * `WorkflowRun` Durable Object in real workerd (miniflare), the test Worker
 * routing `?run=`: the same document as `remote_workflow_host_test.ts`, with
 * the local host's run as the reference.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { loadProgramFile } from "@xmd/core/deno";
import type { JournalEvent } from "@xmd/core/protocol";
import { RemoteWorkerd } from "../cloudflare/_test-remote-workerd.ts";
import type { ExecutionIo } from "../contracts/workflow-host.ts";
import { TESTDATA } from "./_test-workflow-cli.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";
import { RemoteWorkflowHost } from "./remote-workflow-host.ts";

const DOCUMENT = "ok.workspace-effects.md";
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

async function runner(
  workerd: RemoteWorkerd,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<Outcome> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      `--config=${CONFIG}`,
      `--lock=${LOCK}`,
      RUNNER,
      workerd.base,
      ...args,
    ],
    env: { NO_COLOR: "1", ...env },
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

function assertExit(outcome: Outcome, code: number): void {
  assert.equal(outcome.signal, null, outcome.stderr);
  assert.equal(outcome.code, code, outcome.stderr);
}

interface RootedEvent {
  root: string;
  event: JournalEvent;
}

interface Reference {
  suspensionId: string;
  started: string;
  resumed: string;
  events: RootedEvent[];
}

let reference: Promise<Reference> | undefined;

/** The local host's uninterrupted run of the document. */
function localReference(id: string): Promise<Reference> {
  reference ??= (async () => {
    const runs = await Deno.makeTempDir({ prefix: "xmd-workerd-reference-" });
    try {
      const host = new LocalWorkflowHost(runs);
      const program = await loadProgramFile(DOCUMENT, { cwd: TESTDATA });
      const started = capture();
      const first = await host.start({ id, program, props: {} }, started.io);
      const suspensionId = first.pendingSuspension!.suspensionId;
      await host.answer(id, suspensionId, ANSWER, true);
      const resumed = capture();
      assert.equal((await host.resume(id, resumed.io)).status, "completed");
      const events = (await host.history(id)).events.map(({ root, event }) => ({ root, event }));
      return { suspensionId, started: started.text(), resumed: resumed.text(), events };
    } finally {
      await Deno.remove(runs, { recursive: true });
    }
  })();
  return reference;
}

function capture(): { io: ExecutionIo; text(): string } {
  let out = "";
  return {
    io: {
      stdout: (text) => out += text,
      stderr: () => {},
      onRun: () => {},
      signal: new AbortController().signal,
    },
    text: () => out,
  };
}

async function rootedEvents(workerd: RemoteWorkerd, id: string): Promise<RootedEvent[]> {
  const host = new RemoteWorkflowHost({ url: (run) => `${workerd.base}?run=${run}` });
  return (await host.history(id)).events.map(({ root, event }) => ({ root, event }));
}

// One run id for every case: the reference's journal names it (the props event), and each case
// has its own workerd.
const RUN = "workerd-run";

Deno.test("RM-40, RM-41, RM-21: runner processes run a document with <File>, shell blocks and an answer against the WorkflowRun Durable Object in workerd; journal and roots equal a local run's; a completed replay changes nothing", async () => {
  const expected = await localReference(RUN);
  await using workerd = await RemoteWorkerd.start();
  const started = await runner(workerd, ["start", DOCUMENT, RUN, TESTDATA]);
  assertExit(started, 2);
  assert.equal(started.stdout, expected.started);
  assertExit(
    await runner(workerd, ["answer", RUN, expected.suspensionId, JSON.stringify(ANSWER)]),
    0,
  );
  const resumed = await runner(workerd, ["resume", RUN]);
  assertExit(resumed, 0);
  assert.equal(resumed.stdout, expected.resumed);
  assert.deepEqual(await rootedEvents(workerd, RUN), expected.events);
  const before = await workerd.dump(RUN);
  const replayed = await runner(workerd, ["resume", RUN]);
  assertExit(replayed, 0);
  assert.equal(replayed.stdout, expected.resumed);
  assert.equal(await workerd.dump(RUN), before);
});

for (
  const [command, point, phase, nth] of [
    ["start", "workspace-effect", "sent", 3],
    ["resume", "workspace-effect", "acked", 2],
  ] as const
) {
  Deno.test(`RM-42 (workerd): a runner SIGKILLed at ${point}:${phase}:${nth} of ${command} loses nothing acknowledged; the next runner ends as the reference`, async () => {
    const expected = await localReference(RUN);
    await using workerd = await RemoteWorkerd.start();
    const start = ["start", DOCUMENT, RUN, TESTDATA];
    if (command === "resume") {
      assertExit(await runner(workerd, start), 2);
      assertExit(
        await runner(workerd, ["answer", RUN, expected.suspensionId, JSON.stringify(ANSWER)]),
        0,
      );
    }
    const killed = await runner(workerd, command === "start" ? start : ["resume", RUN], {
      XMD_FAILPOINT: `${point}:${phase}:${nth}`,
    });
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    const events = await rootedEvents(workerd, RUN);
    assert.deepEqual(events, expected.events.slice(0, events.length));
    for (let step = 0; step < 6; step++) {
      const host = new RemoteWorkflowHost({ url: (run) => `${workerd.base}?run=${run}` });
      const history = await host.history(RUN);
      if (history.record.status === "completed") break;
      const pending = history.pendingSuspension;
      if (history.record.status === "suspended" && pending && !pending.answered) {
        assertExit(
          await runner(workerd, ["answer", RUN, pending.suspensionId, JSON.stringify(ANSWER)]),
          0,
        );
        continue;
      }
      // The object learns of the killed runner's close through its own event: busy until then.
      const outcome = await runner(workerd, ["resume", RUN]);
      assert.equal(outcome.signal, null, outcome.stderr);
      if (/busy|holds/i.test(outcome.stderr) && outcome.code === 1) continue;
      assert.ok(outcome.code === 0 || outcome.code === 2, outcome.stderr);
    }
    assert.deepEqual(await rootedEvents(workerd, RUN), expected.events);
  });
}
