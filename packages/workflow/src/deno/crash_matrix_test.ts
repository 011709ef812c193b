/**
 * The crash matrix: a real `xmd workflow` process is killed with SIGKILL
 * (through `XMD_FAILPOINT`) just before and just after each commit point. The
 * reopened run must hold the old complete state or the new one, never a
 * partial one, and resuming it must finish with the output and journal of an
 * uninterrupted run.
 */
import assert from "node:assert/strict";
import type { RunStatus, StopReason } from "../contracts/run-record.ts";
import { RunStore } from "../store/run-store.ts";
import {
  answerArgs,
  answerFor,
  type DatabaseFiles,
  eachConcurrently,
  eventsOf,
  type Outcome,
  quietIo,
  readDatabase,
  referenceRun,
  restoreDatabase,
  RUN,
  runPath,
  START,
  workflow,
} from "./_test-workflow-cli.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";
import { openRunDatabase } from "./run-database.ts";
import { RunNotFoundError } from "../contracts/workflow-errors.ts";

type Question = "first" | "second";

/** Where a scenario starts: nothing, a state of the reference run, or a stale run. */
type Stage =
  | "none"
  | "suspendedFirst"
  | "answeredFirst"
  | "answeredSecond"
  | "stale";

/** What the reopened run must hold right after the crash. */
interface Seen {
  /** `absent`: no run at all (`status` says it cannot find it). */
  status: RunStatus | "absent";
  /** Committed journal events: always the reference journal's first `events`. */
  events?: number;
  /** Document executions recorded. */
  executions?: number;
  /** For a suspended run: the question it shows and whether its answer waits. */
  pending?: { question: Question; answered: boolean };
  /** Answers stored and not consumed. */
  stored?: Question[];
  /** The stop reason. */
  stopReason?: StopReason;
}

interface Scenario {
  /** `XMD_FAILPOINT`. */
  failpoint: string;
  /** The state it starts from. */
  from: Stage;
  /** The command killed. */
  command: "start" | "answer" | "resume" | "cancel";
  /** The state the reopened run holds. */
  seen: Seen;
  /** The answers the recovery has to deliver: none is lost, none is asked twice. */
  answers: Question[];
}

const running = (events: number, executions: number, stored: Question[] = []): Seen => ({
  status: "running",
  events,
  executions,
  stored,
});

const SCENARIOS: Scenario[] = [
  // start: initialize, create with the props event (WF-182), append the
  // component's Close, append the first suspension_request, settle suspended.
  ...[
    ["initialize:before", { status: "absent" }],
    ["initialize:after", { status: "absent" }],
    ["create:before", { status: "absent" }],
    ["create:after", running(1, 1)],
    ["append:before:1", running(1, 1)],
    ["append:after:1", running(2, 1)],
    ["append:before:2", running(2, 1)],
    ["append:after:2", running(3, 1)],
    ["settle:before", running(3, 1)],
    [
      "settle:after",
      {
        status: "suspended",
        events: 3,
        executions: 1,
        pending: { question: "first", answered: false },
      },
    ],
  ].map(([failpoint, seen]): Scenario => ({
    failpoint: failpoint as string,
    from: "none",
    command: "start",
    seen: seen as Seen,
    answers: ["first", "second"],
  })),
  // answer: store-answer.
  {
    failpoint: "store-answer:before",
    from: "suspendedFirst",
    command: "answer",
    seen: {
      status: "suspended",
      events: 3,
      pending: { question: "first", answered: false },
      stored: [],
    },
    answers: ["first", "second"],
  },
  {
    failpoint: "store-answer:after",
    from: "suspendedFirst",
    command: "answer",
    seen: {
      status: "suspended",
      events: 3,
      pending: { question: "first", answered: true },
      stored: ["first"],
    },
    answers: ["second"],
  },
  // resume with the first answer: begin-execution, consume-answer (the
  // suspension_answer), append the second suspension_request, settle suspended.
  ...[
    [
      "begin-execution:before",
      {
        status: "suspended",
        events: 3,
        executions: 1,
        pending: { question: "first", answered: true },
        stored: ["first"],
      },
    ],
    ["begin-execution:after", running(3, 2, ["first"])],
    ["consume-answer:before", running(3, 2, ["first"])],
    ["consume-answer:after", running(4, 2)],
    ["append:before", running(4, 2)],
    ["append:after", running(5, 2)],
    ["settle:before", running(5, 2)],
    [
      "settle:after",
      {
        status: "suspended",
        events: 5,
        executions: 2,
        pending: { question: "second", answered: false },
      },
    ],
  ].map(([failpoint, seen]): Scenario => ({
    failpoint: failpoint as string,
    from: "answeredFirst",
    command: "resume",
    seen: seen as Seen,
    answers: ["second"],
  })),
  // resume with the second answer: the root Close and the completion, one commit (WF-181).
  ...[
    ["settle:before", running(6, 3)],
    ["settle:after", { status: "completed", events: 7, executions: 3 }],
  ].map(([failpoint, seen]): Scenario => ({
    failpoint: failpoint as string,
    from: "answeredSecond",
    command: "resume",
    seen: seen as Seen,
    answers: [],
  })),
  // resume of a stale run (its executor was killed after consuming the first answer).
  {
    failpoint: "recover-stale:before",
    from: "stale",
    command: "resume",
    seen: running(4, 2),
    answers: ["second"],
  },
  {
    failpoint: "recover-stale:after",
    from: "stale",
    command: "resume",
    seen: {
      status: "interrupted",
      events: 4,
      executions: 2,
      stopReason: { kind: "host", code: "crashed" },
      stored: [],
    },
    answers: ["second"],
  },
  // cancel of a suspended run.
  {
    failpoint: "cancel:before",
    from: "suspendedFirst",
    command: "cancel",
    seen: { status: "suspended", events: 3, pending: { question: "first", answered: false } },
    answers: [],
  },
  {
    failpoint: "cancel:after",
    from: "suspendedFirst",
    command: "cancel",
    seen: { status: "cancelled", events: 3 },
    answers: [],
  },
];

Deno.test("crash matrix: SIGKILL before and after each commit point leaves the old or the new state, and resume finishes like an uninterrupted run", async () => {
  const reference = await referenceRun();
  const question = (id: string): Question => id.startsWith("first-") ? "first" : "second";
  const [firstId] = reference.suspensions;

  // A stale run: its executor was killed right after consuming the first answer.
  const staleRuns = await restoreDatabase(reference.answeredFirst);
  assertKilled(
    await workflow(staleRuns, ["resume", RUN], { XMD_FAILPOINT: "consume-answer:after" }),
  );
  const stale = await readDatabase(staleRuns);
  await Deno.remove(staleRuns, { recursive: true });

  const stages: Record<Exclude<Stage, "none">, DatabaseFiles> = {
    suspendedFirst: reference.suspendedFirst,
    answeredFirst: reference.answeredFirst,
    answeredSecond: reference.answeredSecond,
    stale,
  };

  await eachConcurrently(
    SCENARIOS,
    3,
    (s) => `${s.command} ${s.from} ${s.failpoint}`,
    async (s) => {
      const runs = s.from === "none"
        ? await Deno.makeTempDir({ prefix: "xmd-matrix-" })
        : await restoreDatabase(stages[s.from]);
      const args = s.command === "start"
        ? START
        : s.command === "answer"
        ? answerArgs(firstId)
        : [s.command, RUN];
      assertKilled(await workflow(runs, args, { XMD_FAILPOINT: s.failpoint }));

      // Reopen it (a new process reading what the killed one left, WAL included).
      const host = new LocalWorkflowHost(runs);
      if (s.seen.status === "absent") {
        await assert.rejects(host.history(RUN), RunNotFoundError);
      } else {
        const history = await host.history(RUN);
        assert.equal(history.record.status, s.seen.status);
        if (s.seen.events !== undefined) {
          assert.deepEqual(eventsOf(history), reference.events.slice(0, s.seen.events));
        }
        if (s.seen.executions !== undefined) {
          assert.equal(history.executions.length, s.seen.executions);
        }
        if (s.seen.status === "suspended") {
          assert.equal(question(history.pendingSuspension!.suspensionId), s.seen.pending!.question);
          assert.equal(history.pendingSuspension!.answered, s.seen.pending!.answered);
        }
        if (s.seen.stopReason) assert.deepEqual(history.record.stopReason, s.seen.stopReason);
        if (s.seen.stored) {
          assert.deepEqual(await storedAnswers(runs, reference.suspensions), s.seen.stored);
        }
      }

      if (s.command === "cancel") {
        if (s.seen.status !== "cancelled") {
          const again = await workflow(runs, ["cancel", RUN]);
          assert.equal(again.code, 0, again.stderr);
        }
        const history = await host.history(RUN);
        assert.equal(history.record.status, "cancelled");
        assert.deepEqual(eventsOf(history), reference.events.slice(0, 3));
        assert.deepEqual(await storedAnswers(runs, reference.suspensions), []);
        await Deno.remove(runs, { recursive: true });
        return;
      }

      const { answered, last } = await finish(runs, question);
      assert.deepEqual(answered, s.answers, "answers the recovery had to deliver");
      // The completing command prints the document; a run that completed in
      // the killed process prints it again on a replay.
      const output = last?.completed ? last.stdout : (await workflow(runs, ["resume", RUN])).stdout;
      assert.equal(output, reference.output);

      const history = await host.history(RUN);
      assert.equal(history.record.status, "completed");
      assert.deepEqual(eventsOf(history), reference.events);
      assert.deepEqual(await storedAnswers(runs, reference.suspensions), []);
      for (const execution of history.executions) {
        assert.notEqual(execution.endedAt, null, `execution ${execution.seq} never ended`);
      }
      // The killed executor's execution is closed as interrupted by the next one.
      const stranded = s.seen.status === "running" || s.seen.status === "interrupted" ? 1 : 0;
      assert.equal(
        history.executions.filter((execution) => execution.outcome === "interrupted").length,
        stranded,
      );
      await Deno.remove(runs, { recursive: true });
    },
  );
});

function assertKilled(outcome: Outcome): void {
  assert.equal(outcome.signal, "SIGKILL", `not killed (exit ${outcome.code}):\n${outcome.stderr}`);
  assert.equal(outcome.code, 137);
}

/** Which questions have an answer stored and not yet consumed. */
async function storedAnswers(runs: string, suspensions: [string, string]): Promise<Question[]> {
  const opened = await openRunDatabase(runPath(runs), "the crashed run", { create: false });
  using seam = opened!.seam;
  const store = new RunStore(seam, "the crashed run");
  const stored: Question[] = [];
  if (store.answer(suspensions[0]) !== undefined) stored.push("first");
  if (store.answer(suspensions[1]) !== undefined) stored.push("second");
  return stored;
}

/**
 * Drives the run to completion as a user would: `start` again when there is
 * no run, answer the question a suspended run shows, `resume` otherwise. The
 * first command that executes the run after the crash is a real `xmd`
 * process (the next executor, which finds what the killed one left); later
 * ones, reading the run and storing answers run in this process through the
 * same host, to keep the matrix fast.
 */
async function finish(
  runs: string,
  question: (id: string) => Question,
): Promise<{ answered: Question[]; last: { completed: boolean; stdout: string } | undefined }> {
  const host = new LocalWorkflowHost(runs);
  const answered: Question[] = [];
  let last: { completed: boolean; stdout: string } | undefined;
  for (let step = 0; step < 10; step++) {
    const inspection = await host.inspect(RUN).catch((error) => {
      if (error instanceof RunNotFoundError) return undefined;
      throw error;
    });
    if (inspection?.record.status === "completed") return { answered, last };
    const pending = inspection?.pendingSuspension;
    if (inspection?.record.status === "suspended" && pending && !pending.answered) {
      const id = pending.suspensionId;
      await host.answer(RUN, id, answerFor(id), true);
      answered.push(question(id));
    } else if (last === undefined) {
      const outcome = await workflow(runs, inspection ? ["resume", RUN] : START);
      assert.ok(
        outcome.code === 0 || outcome.code === 2,
        `exit ${outcome.code}:\n${outcome.stderr}`,
      );
      assert.equal(outcome.signal, null);
      last = { completed: outcome.code === 0, stdout: outcome.stdout };
    } else {
      assert.ok(inspection, "the run exists once started");
      let stdout = "";
      const report = await host.resume(RUN, { ...quietIo(), stdout: (text) => stdout += text });
      assert.ok(report.status === "completed" || report.status === "suspended", report.status);
      last = { completed: report.status === "completed", stdout };
    }
  }
  throw new Error("The run did not complete in 10 commands");
}
