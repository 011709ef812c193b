/**
 * Concurrency on one run, with real processes: a second executor is refused
 * while the first holds the run and changes nothing; answers racing resumes
 * are never lost, never consumed twice, never consumed for the wrong value.
 */
import assert from "node:assert/strict";
import {
  answerFor,
  assertRefused,
  eachConcurrently,
  eventsOf,
  outcomeOf,
  quietIo,
  readDatabase,
  referenceRun,
  restoreDatabase,
  RUN,
  runPath,
  sameFiles,
  startWorkflow,
  workflow,
} from "./_test-workflow-cli.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";

Deno.test({
  name:
    "two executors: while one holds the run, another is refused as already running and changes nothing",
  // Waiting for the frozen executor reads its state from /proc.
  ignore: Deno.build.os !== "linux",
}, async () => {
  const reference = await referenceRun();
  const [firstId, secondId] = reference.suspensions;
  const runs = await restoreDatabase(reference.answeredFirst);

  // The first executor freezes itself right after committing its new execution.
  const first = startWorkflow(runs, ["resume", RUN], {
    XMD_FAILPOINT: "begin-execution:after:1:stop",
  });
  await stopped(first.pid);
  try {
    const before = await readDatabase(runs);
    const host = new LocalWorkflowHost(runs);
    assert.equal((await host.inspect(RUN)).record.status, "running");

    const refusals = await Promise.all([
      workflow(runs, ["resume", RUN]),
      workflow(runs, ["start", `--id=${RUN}`, "ok.two-questions.md"]),
      workflow(runs, ["cancel", RUN]),
      workflow(runs, ["answer", RUN, firstId, JSON.stringify(answerFor(firstId))]),
    ]);
    for (const refusal of refusals.slice(0, 3)) {
      assertRefused(refusal, /Cannot run "matrix": it is already running in another process/);
      assert.equal(refusal.stdout, "");
    }
    assertRefused(refusals[3], /Cannot answer run "matrix": it is running, not waiting/);

    // The wal-index is shared memory the readers' read marks live in, not data.
    const after = await readDatabase(runs);
    assert.deepEqual(sameFiles(after, before, { shm: false }), [], "the refusals changed files");
  } finally {
    Deno.kill(first.pid, "SIGCONT");
  }
  const outcome = await outcomeOf(first);
  assert.equal(outcome.code, 2, outcome.stderr);
  assert.match(outcome.stderr, new RegExp(`Question \\(${secondId}\\)`));

  const history = await new LocalWorkflowHost(runs).history(RUN);
  assert.deepEqual(eventsOf(history), reference.events.slice(0, 5));
  assert.deepEqual(history.executions.map((execution) => execution.outcome), [
    "suspended",
    "suspended",
  ]);
  await Deno.remove(runs, { recursive: true });
});

Deno.test({
  name:
    "WF-14: with its .lock file deleted under a live executor, a second executor is refused by the database's write lock in one line and changes nothing",
  // Waiting for the frozen executor reads its state from /proc.
  ignore: Deno.build.os !== "linux",
}, async () => {
  const runs = await Deno.makeTempDir();
  // The first executor freezes inside its first Workspace effect, its write transaction open.
  const first = startWorkflow(runs, ["start", `--id=${RUN}`, "ok.workspace-effects.md"], {
    XMD_FAILPOINT: "workspace-effect:before:1:stop",
  });
  await stopped(first.pid);
  try {
    await Deno.remove(`${runPath(runs)}.lock`);
    const before = await readDatabase(runs);
    const refusal = await workflow(runs, ["resume", RUN]);
    assertRefused(refusal, /Cannot write run "matrix": another process is writing it/);
    assert.equal(refusal.stdout, "");
    assert.deepEqual(sameFiles(await readDatabase(runs), before, { shm: false }), []);
  } finally {
    Deno.kill(first.pid, "SIGCONT");
  }
  // The first executor never noticed: it runs on to its question.
  const outcome = await outcomeOf(first);
  assert.equal(outcome.code, 2, outcome.stderr);
  const history = await new LocalWorkflowHost(runs).history(RUN);
  assert.equal(history.record.status, "suspended");
  assert.deepEqual(history.executions.map((execution) => execution.outcome), ["suspended"]);
  await Deno.remove(runs, { recursive: true });
});

Deno.test("answers racing resumes: exactly one answer is stored and it is consumed exactly once", async () => {
  const reference = await referenceRun();
  const [firstId, secondId] = reference.suspensions;
  const rounds = Array.from({ length: 6 }, (_, round) => round);

  await eachConcurrently(rounds, 2, (round) => `round ${round}`, async () => {
    const runs = await restoreDatabase(reference.suspendedFirst);
    const values = [{ ok: true }, { ok: false }];
    const [yes, no, resumeA, resumeB] = await Promise.all([
      ...values.map((value) => workflow(runs, ["answer", RUN, firstId, JSON.stringify(value)])),
      workflow(runs, ["resume", RUN]),
      workflow(runs, ["resume", RUN]),
    ]);

    // Exactly one answer is accepted; the other is refused for the state it met.
    const accepted = [yes, no].filter((outcome) => outcome.code === 0);
    assert.equal(accepted.length, 1, `${yes.stderr}\n${no.stderr}`);
    const winner = yes.code === 0 ? values[0] : values[1];
    assertRefused(
      yes.code === 0 ? no : yes,
      /an answer is already waiting|it is running, not waiting|waits for second-/,
    );

    // Each resume either ran (suspending at the second question, or finding no
    // answer yet and leaving the run as it was) or met the other executor.
    const ran: string[] = [];
    for (const resume of [resumeA, resumeB]) {
      if (resume.code === 1) {
        assertRefused(resume, /it is already running in another process/);
        continue;
      }
      assert.equal(resume.code, 2, resume.stderr);
      const question = /Question \((\S+)\)|An answer to (\S+) is waiting/.exec(resume.stderr);
      assert.ok(question, resume.stderr);
      ran.push(question[1] === secondId ? "consumed" : "no answer yet");
    }

    // An answer stored after every resume had looked is still waiting, and the
    // next resume consumes it.
    const host = new LocalWorkflowHost(runs);
    const pending = (await host.inspect(RUN)).pendingSuspension!;
    if (pending.suspensionId === firstId) {
      assert.ok(pending.answered, "the accepted answer was lost");
      assert.ok(!ran.includes("consumed"));
      assert.equal((await host.resume(RUN, quietIo())).status, "suspended");
    }

    const history = await host.history(RUN);
    const events = eventsOf(history);
    assert.deepEqual(events.slice(0, 3), reference.events.slice(0, 3));
    const answers = events.filter((event) =>
      event.type === "yield" && event.description.type === "suspension_answer"
    );
    assert.equal(answers.length, 1, "the answer was consumed more than once");
    assert.deepEqual(
      answers[0].type === "yield" && answers[0].result,
      { status: "ok", value: winner },
    );
    assert.equal(events.length, 5);
    assert.equal(history.pendingSuspension?.suspensionId, secondId);
    assert.equal(history.pendingSuspension?.answered, false);
    // One start, one resume that consumed the answer; no execution was stranded.
    assert.deepEqual(history.executions.map((execution) => execution.outcome), [
      "suspended",
      "suspended",
    ]);
    await Deno.remove(runs, { recursive: true });
  });
});

/** Waits until process `pid` is stopped (SIGSTOP), for up to 30 s. */
async function stopped(pid: number): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 20) {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("T")) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`Process ${pid} never stopped at its failpoint`);
}
