import assert from "node:assert/strict";
import { sha256Hex } from "@xmd/core";
import { LocalWorkflowHost } from "@xmd/workflow/deno";
import { ExecutorLock } from "@xmd/workflow/deno/internal";
import { runXmd, spawnXmd, type XmdResult } from "./_run-xmd.ts";
import { workflowCommand } from "./workflow-command.ts";
import { testFolder } from "../../../core/src/deno/_test-temp-folder.ts";

/** A working folder with documents, and a runs folder the commands use. */
interface Sandbox {
  /** Where documents are and commands run. */
  cwd: string;
  /** `XMD_WORKFLOW_RUNS`. */
  runs: string;
  /** Runs `xmd workflow <args>`. */
  xmd(...args: string[]): Promise<XmdResult>;
  /** The database of run `id`. */
  db(id: string): string;
}

async function sandbox(files: Record<string, string> = {}): Promise<Sandbox> {
  const cwd = await testFolder("xmd-workflow-");
  const runs = `${cwd}/runs`;
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${cwd}/${name}`, text);
  }
  return {
    cwd,
    runs,
    xmd: (...args) => runXmd(["workflow", ...args], { cwd, env: { XMD_WORKFLOW_RUNS: runs } }),
    db: (id) => `${runs}/${sha256Hex(id)}.sqlite`,
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** What must not change when a command is refused: the database bytes and the history. */
interface Snapshot {
  bytes: Uint8Array;
  history: string;
}

/**
 * `xmd workflow history <id> --json`, run in-process: the same command and
 * output as the subprocess, without paying a process start per snapshot.
 */
async function historyJson(box: Sandbox, id: string): Promise<string> {
  let stdout = "";
  let stderr = "";
  const code = await workflowCommand(["history", id, "--json"], {
    stdout: (text) => stdout += text,
    stderr: (text) => stderr += text,
    cwd: box.cwd,
    env: { XMD_WORKFLOW_RUNS: box.runs },
    interactive: false,
    signal: new AbortController().signal,
    resolve: (path) => path,
  });
  assert.equal(code, 0, stderr);
  return stdout;
}

async function snapshot(box: Sandbox, id: string): Promise<Snapshot> {
  const bytes = await Deno.readFile(box.db(id));
  return { bytes, history: await historyJson(box, id) };
}

async function assertUnchanged(box: Sandbox, id: string, before: Snapshot): Promise<void> {
  assert.deepEqual(await Deno.readFile(box.db(id)), before.bytes, `run ${id}'s database changed`);
  assert.equal(await historyJson(box, id), before.history, `run ${id}'s history changed`);
}

async function assertSameBytes(box: Sandbox, id: string, before: Snapshot): Promise<void> {
  assert.deepEqual(await Deno.readFile(box.db(id)), before.bytes, `run ${id}'s database changed`);
}

/** A refusal: exit 1, nothing on stdout, one `xmd: ` line and no status line or stack. */
function assertRefused(result: XmdResult, message: string | RegExp): void {
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, "");
  if (typeof message === "string") assert.equal(result.stderr, `xmd: ${message}\n`);
  else assert.match(result.stderr, message);
  assert.match(result.stderr, /^xmd: /);
  assert.doesNotMatch(result.stderr, /^workflow status:/m);
  assert.doesNotMatch(result.stderr, /^\s+at /m, `stderr holds a stack trace:\n${result.stderr}`);
  assert.doesNotMatch(result.stderr, /internal error/);
}

// deno-lint-ignore no-explicit-any
function json(result: XmdResult): any {
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
}

const DONE_DOC = "---\nprops:\n  who:\n    type: string\n    default: world\n---\n\n" +
  "# Done\n\nHello {props.who}.\n";

const ASK_DOC = [
  "---",
  "props:",
  "  who:",
  "    type: string",
  "    default: world",
  "---",
  "",
  "# Hello {props.who}",
  "",
  '<Elicit as="ok" schema={{ type: "boolean" }}>Proceed, {props.who}?</Elicit>',
  "",
  "<If condition={ok}>Approved for {props.who}.</If>",
  "<Else>Declined.</Else>",
  "",
].join("\n");

function question(id: string, suspension: string, text: string, schema: string): string {
  return `Question (${suspension}): ${text}\nAnswer schema: ${schema}\n` +
    `Answer with: xmd workflow answer ${id} ${suspension} '<json>'\n`;
}

const SUSPENDED_R1 = "workflow run: r1\nworkflow status: suspended\n" +
  question("r1", "ok-2", "Proceed, Ada?", '{"type":"boolean"}');

Deno.test("workflow start runs a document to completion: output on stdout, run and status on stderr", async () => {
  const box = await sandbox({ "doc.md": DONE_DOC });
  const named = await box.xmd("start", "--id=r1", "--props-who=Ada", "doc.md");
  assert.equal(named.stdout, "# Done\n\nHello Ada.\n");
  assert.equal(named.stderr, "workflow run: r1\nworkflow status: completed\n");
  assert.equal(named.code, 0);

  const random = await box.xmd("start", "doc.md");
  assert.equal(random.code, 0, random.stderr);
  assert.equal(random.stdout, "# Done\n\nHello world.\n");
  const id = random.stderr.match(/^workflow run: ([A-Za-z0-9]+)\nworkflow status: completed\n$/)
    ?.[1];
  assert.ok(id, random.stderr);
  const status = json(await box.xmd("status", id, "--json"));
  assert.equal(status.id, id);
  assert.equal(status.status, "completed");
  assert.equal(status.document, "doc.md");
});

Deno.test("an <Elicit> suspends the run; status shows it; answer and resume finish it", async () => {
  const box = await sandbox({ "doc.md": ASK_DOC });
  const started = await box.xmd("start", "--id=r1", "--props-who=Ada", "doc.md");
  assert.equal(started.stdout, "# Hello Ada\n");
  assert.equal(started.stderr, SUSPENDED_R1);
  assert.equal(started.code, 2);

  const status = await box.xmd("status", "r1");
  assert.equal(status.code, 0, status.stderr);
  assert.equal(status.stderr, "");
  assert.match(
    status.stdout,
    /^run {9}r1\nstatus {6}suspended\ndocument {4}doc\.md\nfrontier {4}2 events committed\n/,
  );
  assert.match(status.stdout, /^stopped {5}at event 2$/m);
  assert.match(status.stdout, /^created {5}(just now|\d+s ago)$/m);
  assert.match(status.stdout, /^executions {2}1$/m);
  assert.ok(
    status.stdout.endsWith(
      "\nWaiting for an answer to ok-2:\n  question  Proceed, Ada?\n" +
        '  schema    {"type":"boolean"}\n' +
        "  answer with: xmd workflow answer r1 ok-2 '<json>'\n",
    ),
    status.stdout,
  );
  const waiting = json(await box.xmd("status", "r1", "--json"));
  assert.equal(waiting.status, "suspended");
  assert.deepEqual(waiting.stopReason, { kind: "journal", eventId: 2 });
  assert.equal(waiting.eventCount, 2);
  assert.deepEqual(waiting.pendingSuspension, {
    suspensionId: "ok-2",
    question: "Proceed, Ada?",
    schema: { type: "boolean" },
    answered: false,
  });
  assert.ok(!JSON.stringify(waiting).includes('"Ada"'), "status --json echoed a prop value");

  const answered = await box.xmd("answer", "r1", "ok-2", "true");
  assert.equal(
    answered.stdout,
    "answered ok-2 of run r1; continue it with: xmd workflow resume r1\n",
  );
  assert.equal(answered.stderr, "");
  assert.equal(answered.code, 0);
  const pending = json(await box.xmd("status", "r1", "--json"));
  assert.equal(pending.status, "suspended", "answer changed the status");
  assert.equal(pending.eventCount, 2, "answer appended an event");
  assert.equal(pending.pendingSuspension.answered, true);

  const resumed = await box.xmd("resume", "r1");
  assert.equal(resumed.stdout, "# Hello Ada\n\nApproved for Ada.\n");
  assert.equal(resumed.stderr, "workflow run: r1\nworkflow status: completed\n");
  assert.equal(resumed.code, 0);

  const history = json(await box.xmd("history", "r1", "--json"));
  assert.equal(history.status, "completed");
  assert.equal(history.pendingSuspension, null);
  assert.deepEqual(
    history.events.map((event: { id: number; type: string; description?: { type: string } }) => [
      event.id,
      event.description?.type ?? event.type,
    ]),
    [[1, "props"], [2, "suspension_request"], [3, "suspension_answer"], [4, "close"]],
  );
  assert.deepEqual(history.events[2].result, { status: "ok", value: true });
  assert.deepEqual(
    history.executions.map((execution: { kind: string; outcome: string }) => [
      execution.kind,
      execution.outcome,
    ]),
    [["start", "suspended"], ["resume", "completed"]],
  );

  const human = await box.xmd("history", "r1");
  assert.equal(human.code, 0, human.stderr);
  const table = human.stdout.split("\n\n").at(-1)!.trimEnd().split("\n");
  assert.deepEqual(table[0].split(/ +/), [
    "EVENT",
    "WHEN",
    "COROUTINE",
    "KIND",
    "WHERE",
    "RESULT",
    "ROOT",
  ]);
  const rows = table.slice(1).map((line) => line.split(/ {2,}/));
  assert.deepEqual(rows.map((row) => [row[0], row[2], row[3], row[4], row[5]]), [
    ["1", "root", "props", "props doc.md", "ok"],
    ["2", "root", "suspension_request", "Elicit doc.md:10:1", "ok"],
    ["3", "root", "suspension_answer", "Elicit doc.md:10:1", "ok"],
    ["4", "root", "close", "-", "ok"],
  ]);
  for (const row of rows) assert.match(row[1], /^(just now|\d+s ago)$/);
  assertColumnsAligned(table);
  assert.match(human.stdout, /^status {6}completed$/m);
  assert.match(human.stdout, /^executions {2}2$/m);

  // A completed run replays its whole output and appends nothing.
  const before = await snapshot(box, "r1");
  const again = await box.xmd("resume", "r1");
  assert.equal(again.stdout, "# Hello Ada\n\nApproved for Ada.\n");
  assert.equal(again.stderr, "workflow run: r1\nworkflow status: completed\n");
  assert.equal(again.code, 0);
  await assertUnchanged(box, "r1", before);
});

/** Every header cell starts at the same column in every row. */
function assertColumnsAligned(lines: string[]): void {
  const starts = [...lines[0].matchAll(/\S+/g)].map((match) => match.index!);
  for (const line of lines.slice(1)) {
    for (const start of starts.slice(1)) {
      assert.equal(line.slice(start - 2, start), "  ", `misaligned at ${start}: ${line}`);
      assert.notEqual(line[start], " ", `misaligned at ${start}: ${line}`);
    }
  }
}

Deno.test("resuming an unanswered run asks the question again and changes nothing", async () => {
  const box = await sandbox({ "doc.md": ASK_DOC });
  assert.equal((await box.xmd("start", "--id=r1", "--props-who=Ada", "doc.md")).code, 2);
  const before = await snapshot(box, "r1");
  const resumed = await box.xmd("resume", "r1");
  assert.equal(resumed.stdout, "");
  assert.equal(resumed.stderr, SUSPENDED_R1);
  assert.equal(resumed.code, 2);
  await assertUnchanged(box, "r1", before);
});

Deno.test("a <Fail> fails the run (exit 1); resume is refused and changes nothing", async () => {
  const box = await sandbox({
    "doc.md": 'Before.\n\n<Fail message="Stopped on purpose" />\n\nAfter.\n',
  });
  const failedStderr = "workflow run: f1\nworkflow status: failed\n" +
    "xmd: doc.md:3:1: Stopped on purpose\n" +
    "Run f1 cannot be resumed: start a new run to try again\n";
  const started = await box.xmd("start", "--id=f1", "doc.md");
  assert.equal(started.stdout, "Before.\n");
  assert.equal(started.stderr, failedStderr);
  assert.equal(started.code, 1);
  const status = json(await box.xmd("status", "f1", "--json"));
  assert.equal(status.status, "failed");
  assert.deepEqual(status.stopReason, { kind: "journal", eventId: 2 });

  const before = await snapshot(box, "f1");
  const resumed = await box.xmd("resume", "f1");
  assert.equal(resumed.stdout, "Before.\n");
  assert.equal(resumed.stderr, failedStderr);
  assert.equal(resumed.code, 1);
  await assertUnchanged(box, "f1", before);
});

Deno.test("cancel ends a suspended run; resume then exits 3 and answer is refused", async () => {
  const box = await sandbox({ "doc.md": ASK_DOC });
  assert.equal((await box.xmd("start", "--id=c1", "doc.md")).code, 2);
  const cancelled = await box.xmd("cancel", "c1");
  assert.equal(cancelled.stdout, "cancelled run c1\n");
  assert.equal(cancelled.stderr, "");
  assert.equal(cancelled.code, 0);
  const status = json(await box.xmd("status", "c1", "--json"));
  assert.equal(status.status, "cancelled");
  assert.deepEqual(status.stopReason, { kind: "host", code: "cancelled" });
  assert.equal(status.pendingSuspension, null);

  const before = await snapshot(box, "c1");
  const resumed = await box.xmd("resume", "c1");
  assert.equal(resumed.stdout, "");
  assert.equal(
    resumed.stderr,
    "workflow run: c1\nworkflow status: cancelled\n" +
      "Run c1 was cancelled; it cannot be resumed: start a new run to do it again\n",
  );
  assert.equal(resumed.code, 3);
  await assertSameBytes(box, "c1", before);
  assertRefused(
    await box.xmd("answer", "c1", "ok-2", "true"),
    'Cannot answer run "c1": it is cancelled, not waiting for an answer',
  );
  assertRefused(
    await box.xmd("cancel", "c1"),
    'Cannot cancel run "c1": it is cancelled; only suspended or interrupted runs can be cancelled',
  );
  await assertUnchanged(box, "c1", before);
});

Deno.test("cancel refuses a completed run and changes nothing", async () => {
  const box = await sandbox({ "doc.md": DONE_DOC });
  assert.equal((await box.xmd("start", "--id=d1", "doc.md")).code, 0);
  const before = await snapshot(box, "d1");
  assertRefused(
    await box.xmd("cancel", "d1"),
    'Cannot cancel run "d1": it is completed; only suspended or interrupted runs can be cancelled',
  );
  await assertUnchanged(box, "d1", before);
});

Deno.test("delete removes the run's files; the run is then unknown", async () => {
  const box = await sandbox({ "doc.md": ASK_DOC });
  assert.equal((await box.xmd("start", "--id=d1", "doc.md")).code, 2);
  assert.equal(await exists(box.db("d1")), true);
  const deleted = await box.xmd("delete", "d1");
  assert.equal(deleted.stdout, "deleted run d1\n");
  assert.equal(deleted.stderr, "");
  assert.equal(deleted.code, 0);
  assert.deepEqual(Array.from(Deno.readDirSync(box.runs)), [], "delete left files behind");

  const unknown =
    `Cannot find run "d1": no such run in ${box.runs}. List runs with xmd workflow list`;
  assertRefused(await box.xmd("status", "d1"), unknown);
  assertRefused(await box.xmd("resume", "d1"), unknown);
  assertRefused(await box.xmd("delete", "d1"), unknown);
  const list = await box.xmd("list");
  assert.equal(list.stdout, "No workflow runs.\n");
  assert.deepEqual(Array.from(Deno.readDirSync(box.runs)), [], "a refusal created files");
});

Deno.test("list shows every run in an aligned table, filters by --status, and has --json", async () => {
  const box = await sandbox({
    "done.md": DONE_DOC,
    "ask.md": ASK_DOC,
    "fail.md": '<Fail message="no" />\n',
  });
  assert.equal((await box.xmd("start", "--id=a", "done.md")).code, 0);
  assert.equal((await box.xmd("start", "--id=bb-waiting", "ask.md")).code, 2);
  assert.equal((await box.xmd("start", "--id=c.failed_run", "fail.md")).code, 1);

  const list = await box.xmd("list");
  assert.equal(list.code, 0, list.stderr);
  assert.equal(list.stderr, "");
  const lines = list.stdout.trimEnd().split("\n");
  assert.equal(lines[0], "RUN           STATUS     DOCUMENT  EVENTS  UPDATED");
  assert.deepEqual(lines.slice(1).map((line) => line.split(/ {2,}/).slice(0, 4)), [
    ["c.failed_run", "failed", "fail.md", "2"],
    ["bb-waiting", "suspended", "ask.md", "2"],
    ["a", "completed", "done.md", "2"],
  ]);
  assertColumnsAligned(lines);
  for (const line of lines.slice(1)) assert.match(line, / {2}(just now|\d+s ago)$/);

  const suspended = await box.xmd("list", "--status=suspended");
  assert.equal(suspended.code, 0, suspended.stderr);
  assert.deepEqual(suspended.stdout.trimEnd().split("\n").slice(1).map((l) => l.split(" ")[0]), [
    "bb-waiting",
  ]);
  assert.equal((await box.xmd("list", "--status=running")).stdout, "No workflow runs.\n");

  const all = json(await box.xmd("list", "--json"));
  assert.deepEqual(all.map((run: { id: string; status: string }) => [run.id, run.status]), [
    ["c.failed_run", "failed"],
    ["bb-waiting", "suspended"],
    ["a", "completed"],
  ]);
  assert.equal(all[1].pendingSuspension.suspensionId, "ok-2");
  const completed = json(await box.xmd("list", "--status=completed", "--json"));
  assert.deepEqual(completed.map((run: { id: string }) => run.id), ["a"]);

  assertRefused(
    await box.xmd("list", "--status=paused"),
    'Unknown status "paused": use one of running, suspended, interrupted, completed, failed, cancelled',
  );
});

Deno.test("list of a runs folder that does not exist yet is empty and creates nothing", async () => {
  const box = await sandbox();
  const list = await box.xmd("list");
  assert.equal(list.code, 0, list.stderr);
  assert.equal(list.stdout, "No workflow runs.\n");
  assert.deepEqual(json(await box.xmd("list", "--json")), []);
  assert.equal(await exists(box.runs), false);
});

const TARGET_DOC = "# A\n\nIn A.\n\n# B\n\nIn B.\n";

Deno.test("start --id of a compatible run addresses it: a completed run replays, a suspended one resumes", async () => {
  const box = await sandbox({ "done.md": DONE_DOC, "ask.md": ASK_DOC, "target.md": TARGET_DOC });
  assert.equal((await box.xmd("start", "--id=done", "--props-who=Ada", "done.md")).code, 0);
  const before = await snapshot(box, "done");
  const replay = await box.xmd("start", "--id=done", "--props-who=Ada", "done.md");
  assert.equal(replay.stdout, "# Done\n\nHello Ada.\n");
  assert.equal(replay.stderr, "workflow run: done\nworkflow status: completed\n");
  assert.equal(replay.code, 0);
  await assertUnchanged(box, "done", before);

  const targeted = await box.xmd("start", "--id=t", "target.md#B");
  assert.equal(targeted.stdout, "# B\n\nIn B.\n");
  const targetedAgain = await box.xmd("start", "--id=t", "target.md#B");
  assert.equal(targetedAgain.code, 0, targetedAgain.stderr);
  assert.equal(targetedAgain.stdout, "# B\n\nIn B.\n");

  assert.equal((await box.xmd("start", "--id=r1", "--props-who=Ada", "ask.md")).code, 2);
  const waiting = await snapshot(box, "r1");
  const asked = await box.xmd("start", "--id=r1", "--props-who=Ada", "ask.md");
  assert.equal(asked.stdout, "");
  assert.equal(asked.stderr, SUSPENDED_R1);
  assert.equal(asked.code, 2);
  await assertUnchanged(box, "r1", waiting);
  assert.equal((await box.xmd("answer", "r1", "ok-2", "false")).code, 0);
  const finished = await box.xmd("start", "--id=r1", "--props-who=Ada", "ask.md");
  assert.equal(finished.stdout, "# Hello Ada\n\nDeclined.\n");
  assert.equal(finished.stderr, "workflow run: r1\nworkflow status: completed\n");
  assert.equal(finished.code, 0);
});

Deno.test("start --id of an incompatible run is refused naming what differs, and changes nothing", async () => {
  const box = await sandbox({
    "doc.md": 'Intro.\n\n<Part />\n\n<Elicit as="ok" schema={{ type: "boolean" }}>Go?</Elicit>\n',
    "Part.md": "---\nprops: {}\n---\n\nA part.\n",
    "target.md": TARGET_DOC,
  });
  const conflict = (id: string, what: string) =>
    `Cannot start run "${id}" again: it exists with a different ${what}. ` +
    `Choose another --id, or continue the existing run with xmd workflow resume ${id}`;

  await Deno.writeTextFile(
    `${box.cwd}/doc.md`,
    "---\nprops:\n  n:\n    type: number\n---\n\n" + (await Deno.readTextFile(`${box.cwd}/doc.md`)),
  );
  assert.equal((await box.xmd("start", "--id=s", "--props-n=1", "doc.md")).code, 2);
  const before = await snapshot(box, "s");
  assertRefused(
    await box.xmd("start", "--id=s", "--props-n=2", "doc.md"),
    conflict("s", "props value"),
  );
  await assertSameBytes(box, "s", before);

  const text = await Deno.readTextFile(`${box.cwd}/doc.md`);
  await Deno.writeTextFile(`${box.cwd}/doc.md`, text.replace("Intro.", "Introduction."));
  assertRefused(
    await box.xmd("start", "--id=s", "--props-n=1", "doc.md"),
    conflict("s", "definition"),
  );
  await assertSameBytes(box, "s", before);
  await Deno.writeTextFile(`${box.cwd}/doc.md`, text);

  await Deno.writeTextFile(`${box.cwd}/Part.md`, "---\nprops: {}\n---\n\nAn edited part.\n");
  assertRefused(
    await box.xmd("start", "--id=s", "--props-n=1", "doc.md"),
    conflict("s", "definition"),
  );
  await assertUnchanged(box, "s", before);

  assert.equal((await box.xmd("start", "--id=t", "target.md#A")).code, 0);
  const targeted = await snapshot(box, "t");
  assertRefused(await box.xmd("start", "--id=t", "target.md#B"), conflict("t", "target"));
  assertRefused(await box.xmd("start", "--id=t", "target.md"), conflict("t", "target"));
  await assertUnchanged(box, "t", targeted);
});

const ASK_COMPONENT = "---\nprops:\n  topic:\n    type: string\n---\n\n" +
  '<Elicit as="go" schema={{ type: "object", properties: { go: { type: "boolean" } }, ' +
  'required: ["go"], additionalProperties: false }}>Ship {props.topic}?</Elicit>\n\n' +
  "<If condition={go.go}>Shipping {props.topic}.</If>\n<Else>Holding {props.topic}.</Else>\n";

const GO_SCHEMA =
  '{"type":"object","properties":{"go":{"type":"boolean"}},"required":["go"],"additionalProperties":false}';

Deno.test("resume reads nothing from the working tree: an <Elicit> in a component finishes from the retained sources", async () => {
  const box = await sandbox({
    "doc.md": 'Intro.\n\n<Ask topic="the release" />\n\nOutro.\n',
    "Ask.md": ASK_COMPONENT,
  });
  const started = await box.xmd("start", "--id=k", "doc.md");
  assert.equal(started.stdout, "Intro.\n");
  assert.equal(
    started.stderr,
    "workflow run: k\nworkflow status: suspended\n" +
      question("k", "go-2", "Ship the release?", GO_SCHEMA),
  );
  assert.equal(started.code, 2);

  await Deno.remove(`${box.cwd}/doc.md`);
  await Deno.writeTextFile(`${box.cwd}/Ask.md`, "Edited: {missing.binding}\n");
  const status = json(await box.xmd("status", "k", "--json"));
  assert.equal(status.pendingSuspension.question, "Ship the release?");
  assertRefused(
    await box.xmd("answer", "k", "go-2", '{"go":"yes"}'),
    "Cannot accept the answer to go-2: it does not match the question's schema: /go must be boolean",
  );
  assert.equal((await box.xmd("answer", "k", "go-2", '{"go":true}')).code, 0);
  const resumed = await box.xmd("resume", "k");
  assert.equal(resumed.stdout, "Intro.\n\nShipping the release.\n\nOutro.\n");
  assert.equal(resumed.stderr, "workflow run: k\nworkflow status: completed\n");
  assert.equal(resumed.code, 0);
  const history = json(await box.xmd("history", "k", "--json"));
  assert.equal(
    history.events[1].coroutineId,
    "root.0",
    "the question was not asked in the component",
  );
  assert.equal(history.events[1].description.name, "Elicit Ask.md:7:1");
});

Deno.test("two <Elicit>s suspend the run twice, one question at a time", async () => {
  const box = await sandbox({
    "doc.md": [
      '<Elicit as="name" schema={{ type: "string", minLength: 1 }}>Your name?</Elicit>',
      "",
      "Hi {name}.",
      "",
      '<Elicit as="age" schema={{ type: "integer", minimum: 0 }}>Your age, {name}?</Elicit>',
      "",
      "{name} is {age}.",
      "",
    ].join("\n"),
  });
  const first = await box.xmd("start", "--id=m", "doc.md");
  assert.equal(first.stdout, "");
  assert.equal(
    first.stderr,
    "workflow run: m\nworkflow status: suspended\n" +
      question("m", "name-2", "Your name?", '{"type":"string","minLength":1}'),
  );
  assert.equal(first.code, 2);
  assertRefused(
    await box.xmd("answer", "m", "age-4", "3"),
    'Cannot answer "age-4": run "m" waits for name-2',
  );
  assert.equal((await box.xmd("answer", "m", "name-2", '"Ada"')).code, 0);

  const second = await box.xmd("resume", "m");
  assert.equal(second.stdout, "Hi Ada.\n");
  assert.equal(
    second.stderr,
    "workflow run: m\nworkflow status: suspended\n" +
      question("m", "age-4", "Your age, Ada?", '{"type":"integer","minimum":0}'),
  );
  assert.equal(second.code, 2);
  assertRefused(
    await box.xmd("answer", "m", "name-2", '"Bob"'),
    'Cannot answer "name-2": run "m" waits for age-4',
  );
  assert.equal((await box.xmd("answer", "m", "age-4", "36")).code, 0);

  const done = await box.xmd("resume", "m");
  assert.equal(done.stdout, "Hi Ada.\n\nAda is 36.\n");
  assert.equal(done.stderr, "workflow run: m\nworkflow status: completed\n");
  assert.equal(done.code, 0);
  const history = json(await box.xmd("history", "m", "--json"));
  assert.deepEqual(
    history.events.map((event: { description?: { type: string } }) =>
      event.description?.type ?? "close"
    ),
    [
      "props",
      "suspension_request",
      "suspension_answer",
      "suspension_request",
      "suspension_answer",
      "close",
    ],
  );
  assert.equal(history.executions.length, 3);
});

Deno.test("answers that are refused are each explained and change nothing", async () => {
  const box = await sandbox({ "doc.md": ASK_DOC });
  assert.equal((await box.xmd("start", "--id=r1", "--props-who=Ada", "doc.md")).code, 2);
  const before = await snapshot(box, "r1");

  // Each of these must change nothing, so they may run side by side.
  const [malformed, mismatch, wrongSuspension, unknownRun, invalidRun, missingValue] = await Promise
    .all([
      box.xmd("answer", "r1", "ok-2", "{yes"),
      box.xmd("answer", "r1", "ok-2", '"yes please"'),
      box.xmd("answer", "r1", "ok-9", "true"),
      box.xmd("answer", "r2", "ok-2", "true"),
      box.xmd("answer", "../r1", "ok-2", "true"),
      box.xmd("answer", "r1", "ok-2"),
    ]);
  assertRefused(
    malformed,
    `Cannot read the answer: it is not valid JSON. Quote it for the shell, e.g. '{"ok":true}' or '"text"'`,
  );
  assertRefused(
    mismatch,
    "Cannot accept the answer to ok-2: it does not match the question's schema: answer must be boolean",
  );
  assert.doesNotMatch(mismatch.stderr, /yes please/, "the refusal echoed the answer");
  assertRefused(wrongSuspension, 'Cannot answer "ok-9": run "r1" waits for ok-2');
  assertRefused(
    unknownRun,
    `Cannot find run "r2": no such run in ${box.runs}. List runs with xmd workflow list`,
  );
  assertRefused(
    invalidRun,
    'Invalid run id: use 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit',
  );
  assertRefused(
    missingValue,
    "Missing the answer: give it as JSON, - (JSON on standard input), --file=<path> or --text=<value>",
  );
  await assertUnchanged(box, "r1", before);

  assert.equal((await box.xmd("answer", "r1", "ok-2", "true")).code, 0);
  const answered = await snapshot(box, "r1");
  assertRefused(
    await box.xmd("answer", "r1", "ok-2", "false"),
    'Cannot answer "ok-2" again: an answer is already waiting. Run xmd workflow resume r1',
  );
  await assertUnchanged(box, "r1", answered);

  assert.equal((await box.xmd("resume", "r1")).code, 0);
  const completed = await snapshot(box, "r1");
  assertRefused(
    await box.xmd("answer", "r1", "ok-2", "true"),
    'Cannot answer run "r1": it is completed, not waiting for an answer',
  );
  await assertUnchanged(box, "r1", completed);
  assert.deepEqual(
    Array.from(Deno.readDirSync(box.runs)).map((entry) => entry.name).sort(),
    [`${sha256Hex("r1")}.sqlite`, `${sha256Hex("r1")}.sqlite.lock`],
    "a refused answer created a run",
  );
});

Deno.test("the secret gate refuses an answer holding a token; --no-secret-detection lets it through", async () => {
  const token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A";
  assert.equal(token.length, 40);
  const box = await sandbox({
    "doc.md": 'Start.\n\n<Elicit as="t" schema={{ type: "string" }}>Token?</Elicit>\n\n' +
      "Got {t.length} characters.\n",
  });
  assert.equal((await box.xmd("start", "--id=s", "doc.md")).code, 2);
  const before = await snapshot(box, "s");
  const refused = await box.xmd("answer", "s", "t-2", JSON.stringify(token));
  assertRefused(
    refused,
    "Cannot persist the answer to t-2: it contains what looks like a secret (rule github-token). " +
      "Remove the secret from the document or its inputs, or pass --no-secret-detection to turn " +
      "the check off for one command.",
  );
  assert.ok(!refused.stderr.includes(token.slice(4)), "the refusal echoed the secret");
  await assertUnchanged(box, "s", before);

  const accepted = await box.xmd(
    "answer",
    "--no-secret-detection",
    "s",
    "t-2",
    JSON.stringify(token),
  );
  assert.equal(accepted.stderr, "xmd: warning: secret detection is off for this command\n");
  assert.equal(accepted.stdout, "answered t-2 of run s; continue it with: xmd workflow resume s\n");
  assert.equal(accepted.code, 0);

  // Resuming with the gate on would journal the secret: refused before anything runs, so the
  // run stays suspended with its answer instead of failing for good.
  const answered = await snapshot(box, "s");
  const gated = await box.xmd("resume", "s");
  assert.equal(gated.code, 1);
  assert.equal(gated.stdout, "");
  assert.equal(
    gated.stderr,
    "workflow run: s\nxmd: Cannot persist the answer to t-2: it contains what looks like a secret " +
      "(rule github-token). Remove the secret from the document or its inputs, or pass " +
      "--no-secret-detection to turn the check off for one command.\n",
  );
  await assertUnchanged(box, "s", answered);

  const resumed = await box.xmd("resume", "--no-secret-detection", "s");
  assert.equal(resumed.stdout, "Start.\n\nGot 40 characters.\n");
  assert.equal(
    resumed.stderr,
    "xmd: warning: secret detection is off for this command\n" +
      "workflow run: s\nworkflow status: completed\n",
  );
  assert.equal(resumed.code, 0);
});

Deno.test("WF-34: a secret reaching an event mid-run interrupts the run with nothing of the effect kept; resume needs --no-secret-detection", async () => {
  const box = await sandbox({
    "doc.md": "Intro.\n\n" +
      '<Elicit as="a" schema={{ type: "boolean" }}>Go?</Elicit>\n\n' +
      '```sh exec as="out"\nt="ghp_"\necho "${t}aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"\n```\n\n' +
      "Printed {out.stdout.length} characters.\n",
  });
  assert.equal((await box.xmd("start", "--id=q", "doc.md")).code, 2);
  assert.equal((await box.xmd("answer", "q", "a-2", "true")).code, 0);
  const resumed = await box.xmd("resume", "q");
  assert.equal(resumed.stdout, "Intro.\n");
  assert.equal(
    resumed.stderr,
    "workflow run: q\nworkflow status: interrupted\n" +
      'xmd: Cannot persist journal event "exec doc.md:5:1": it contains what looks like a secret ' +
      "(rule github-token). Remove the secret from the document or its inputs, or pass " +
      "--no-secret-detection to turn the check off for one command.\n" +
      "Run q stopped before that effect was kept (nothing of it was written). Resume it with " +
      "xmd workflow resume --no-secret-detection q to keep what it produces, or cancel it with " +
      "xmd workflow cancel q\n",
  );
  assert.equal(resumed.code, 1);
  const before = await snapshot(box, "q");
  assert.ok(
    !before.history.includes("aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"),
    "the secret reached the journal",
  );
  const stopped = JSON.parse(before.history);
  assert.equal(stopped.status, "interrupted");
  assert.deepEqual(stopped.stopReason, { kind: "host", code: "secret_detected" });
  assert.deepEqual(
    stopped.events.map((event: { description?: { type: string } }) => event.description?.type),
    ["props", "suspension_request", "suspension_answer"],
  );

  const gated = await box.xmd("resume", "q");
  assertRefused(
    gated,
    'Cannot resume run "q" with the secret gate on: it stopped because the gate refused what an ' +
      "effect produced, and that effect would run again the same way. Nothing of it was kept. " +
      "Resume it with xmd workflow resume --no-secret-detection q to keep what it produces, or " +
      "cancel it with xmd workflow cancel q",
  );
  await assertUnchanged(box, "q", before);

  const kept = await box.xmd("resume", "--no-secret-detection", "q");
  assert.equal(kept.stdout, "Intro.\n\nPrinted 41 characters.\n");
  assert.equal(
    kept.stderr,
    "xmd: warning: secret detection is off for this command\n" +
      "workflow run: q\nworkflow status: completed\n",
  );
  assert.equal(kept.code, 0);
});

Deno.test("documents a workflow run cannot host, and malformed ones, are refused before any run exists", async () => {
  const box = await sandbox({
    "python.md": "Intro.\n\n<Step />\n",
    "Step.md": "Step.\n\n```python exec\nopen('ran.txt', 'w')\n```\n",
    "bad.md": "<If condition={true}>\n\nnever closed\n",
  });
  const [python, malformed, missing] = await Promise.all([
    box.xmd("start", "--id=x", "python.md"),
    box.xmd("start", "bad.md"),
    box.xmd("start", "missing.md"),
  ]);
  assertRefused(
    python,
    'Step.md:3:1: A "python" exec block cannot run in a workflow run: only sh and bash blocks run ' +
      "there (in Worker Shell). Run this document with xmd run instead",
  );
  assertRefused(malformed, /^xmd: bad\.md:1:1: Expected a closing tag for `<If>`/);
  assertRefused(missing, 'Cannot read document "missing.md": no such file. Check the path');
  assert.equal(await exists(box.runs), false, "a refused start created the runs folder");
  assert.equal(await exists(`${box.cwd}/ran.txt`), false, "the block ran");
});

Deno.test("<File> and sh blocks in a workflow run use the run's Workspace, never the host folder", async () => {
  const box = await sandbox({
    "work.md":
      '<File path="notes/a.txt">alpha</File>\n\n```sh exec\ncat notes/a.txt > copy.txt\nls\n```\n\n' +
      '<File path="copy.txt" as="copy" />\n\nCopy: {copy}\n',
  });
  const result = await box.xmd("start", "--id=ws", "work.md");
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "copy.txt\nnotes\n\nCopy: alpha\n");
  assert.equal(await exists(`${box.cwd}/notes`), false, "the host folder was written");
  assert.equal(await exists(`${box.cwd}/copy.txt`), false, "the host folder was written");
});

Deno.test("a bad run id, option, command or runs folder is refused with what to do", async () => {
  const box = await sandbox({ "doc.md": DONE_DOC });
  const invalid =
    'Invalid run id: use 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit';
  const refusals: [string[], string][] = [
    [["start", "--id=../escape", "doc.md"], invalid],
    [["start", `--id=${"x".repeat(129)}`, "doc.md"], invalid],
    [["start", "--id=", "doc.md"], invalid],
    ...["status", "resume", "history", "cancel", "delete"].map((command): [string[], string] => [
      [command, "--", "-dash-first"],
      invalid,
    ]),
    // Without `--`, a leading dash is an option, as in every POSIX command.
    [
      ["status", "-dash-first"],
      'Unknown option "-d" for xmd workflow status: run xmd workflow status --help',
    ],
    [
      ["start", "--bogus", "doc.md"],
      'Unknown option "--bogus": run xmd workflow start --help for the options',
    ],
    [
      ["start", "--journal=trace.jsonl", "doc.md"],
      "Options --journal, --replay and --answer belong to xmd run: a workflow run keeps its own " +
      "journal and is answered with xmd workflow answer",
    ],
    [["start"], "Missing document: write xmd workflow start <document.md>"],
    [
      ["status", "r1", "--verbose"],
      'Unknown option "--verbose" for xmd workflow status: run xmd workflow status --help',
    ],
    [
      ["resume", "r1", "r2"],
      "xmd workflow resume takes <run-id>, not 2 arguments: run xmd workflow resume --help",
    ],
    [
      ["list", "extra"],
      "xmd workflow list takes no arguments, not 1 argument: run xmd workflow list --help",
    ],
    [["pause", "r1"], 'Unknown command "pause": run xmd workflow --help'],
  ];
  // Independent refusals that change nothing: run side by side.
  const results = await Promise.all(refusals.map(([args]) => box.xmd(...args)));
  results.forEach((result, index) => assertRefused(result, refusals[index][1]));
  assert.equal(await exists(box.runs), false, "a refused command created the runs folder");

  const [relative, help, docHelp] = await Promise.all([
    runXmd(["workflow", "start", "doc.md"], { cwd: box.cwd, env: { XMD_WORKFLOW_RUNS: "runs" } }),
    box.xmd("--help"),
    box.xmd("start", "doc.md", "--help"),
  ]);
  assertRefused(
    relative,
    'XMD_WORKFLOW_RUNS must be an absolute path, not "runs": set it to a full path such as /home/me/runs',
  );
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: xmd workflow <command>/);
  assert.match(help.stdout, /Exit codes: 0 completed, 1 refused or failed, 2 suspended/);
  assert.equal(docHelp.code, 0, docHelp.stderr);
  assert.match(docHelp.stdout, /--props-who=<string>/);
  assert.equal(await exists(box.runs), false, "start --help or a relative folder started a run");
});

Deno.test("while one executor holds a run, a second resume, cancel or delete is refused and changes nothing", async () => {
  const box = await sandbox({ "doc.md": ASK_DOC });
  assert.equal((await box.xmd("start", "--id=busy", "doc.md")).code, 2);
  assert.equal((await box.xmd("answer", "busy", "ok-2", "true")).code, 0);
  const before = await snapshot(box, "busy");
  {
    using _holder = await ExecutorLock.acquire(`${box.db("busy")}.lock`, "busy");
    const busy =
      'Cannot run "busy": it is already running in another process. Wait for it, or stop it with Ctrl-C';
    const [resume, start, cancel, remove, inspected] = await Promise.all([
      box.xmd("resume", "busy"),
      box.xmd("start", "--id=busy", "doc.md"),
      box.xmd("cancel", "busy"),
      box.xmd("delete", "busy"),
      box.xmd("status", "busy", "--json"),
    ]);
    for (const refused of [resume, start, cancel, remove]) assertRefused(refused, busy);
    // Inspection takes no lock.
    const status = json(inspected);
    assert.equal(status.status, "suspended");
    await assertUnchanged(box, "busy", before);
  }
  const resumed = await box.xmd("resume", "busy");
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, "# Hello world\n\nApproved for world.\n");
});

Deno.test("WF-28: status and list tell a running run's live executor from one killed before it settled the run", async () => {
  const box = await sandbox({
    "doc.md": "# Loop\n\n```sh exec timeout=1h\necho computing\nwhile :; do :; done\n```\n",
  });
  const child = spawnXmd(["workflow", "start", "--id=looping", "doc.md"], {
    cwd: box.cwd,
    env: { XMD_WORKFLOW_RUNS: box.runs },
  });
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let stdout = "";
    while (!stdout.includes("computing\n")) {
      const { value, done } = await reader.read();
      assert.equal(done, false, `the start ended before its block ran: ${stdout}`);
      stdout += value;
    }
    const live = await box.xmd("status", "looping");
    assert.match(live.stdout, /^status +running$/m);
    assert.match(live.stdout, /\n\nAn xmd process is executing it now\.\n$/);
    assert.equal(json(await box.xmd("status", "looping", "--json")).executing, true);
    assert.match((await box.xmd("list")).stdout, /^looping +running +doc\.md/m);

    child.kill("SIGKILL");
    await child.status;
    const stale = await box.xmd("status", "looping");
    assert.match(stale.stdout, /^status +running$/m);
    assert.match(
      stale.stdout,
      /\n\nNo xmd process is executing it: its executor was killed or crashed before it settled the run\. Continue the run with: xmd workflow resume looping\n$/,
    );
    assert.equal(json(await box.xmd("status", "looping", "--json")).executing, false);
    assert.match((await box.xmd("list")).stdout, /^looping +running \(stale\) +doc\.md/m);
    // What it said to do is what recovers it (here, to stop it).
    assert.equal((await box.xmd("cancel", "looping")).code, 0);
    assert.equal(json(await box.xmd("status", "looping", "--json")).status, "cancelled");
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already ended.
    }
    await reader.cancel();
    await child.stderr.cancel();
  }
});

Deno.test("fifty runs started in parallel all complete and are all listed", async () => {
  const box = await sandbox({ "doc.md": DONE_DOC });
  const ids = Array.from({ length: 50 }, (_, index) => `p${index}`);
  for (let batch = 0; batch < ids.length; batch += 10) {
    const results = await Promise.all(
      ids.slice(batch, batch + 10).map((id) =>
        box.xmd("start", `--id=${id}`, `--props-who=${id}`, "doc.md")
      ),
    );
    results.forEach((result, index) => {
      const id = ids[batch + index];
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `# Done\n\nHello ${id}.\n`);
      assert.equal(result.stderr, `workflow run: ${id}\nworkflow status: completed\n`);
    });
  }
  const runs = json(await box.xmd("list", "--json"));
  assert.equal(runs.length, 50);
  assert.deepEqual(runs.map((run: { id: string }) => run.id).sort(), [...ids].sort());
  assert.ok(runs.every((run: { status: string }) => run.status === "completed"));
  const table = await box.xmd("list");
  assert.equal(table.stdout.trimEnd().split("\n").length, 51);
});

Deno.test("list reports a foreign file in the runs folder, leaves it untouched, and lists the rest", async () => {
  const box = await sandbox({ "done.md": DONE_DOC });
  assert.equal((await box.xmd("start", "--id=good", "done.md")).code, 0);
  const foreign = `${box.runs}/${"ab".repeat(32)}.sqlite`;
  await Deno.writeTextFile(
    foreign,
    "not a database at all, just text that is long enough to read a header from it",
  );
  const before = await Deno.readFile(foreign);
  const list = await box.xmd("list");
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^good\s+completed\s+done\.md/m);
  assert.match(
    list.stderr,
    new RegExp(`^xmd: warning: skipped ${"ab".repeat(32)}\\.sqlite: .*not a SQLite database`, "m"),
  );
  assert.deepEqual(await Deno.readFile(foreign), before);
});

for (
  const [signal, what] of [["SIGINT", "Ctrl-C"], ["SIGTERM", "SIGTERM (a service's stop)"]] as const
) {
  Deno.test(`WF-29 ${what} during a shell block leaves the run interrupted (exit 130), without the block's changes, resumable, and says how to continue`, async () => {
    await interruptedDuringBlock(signal);
  });
}

async function interruptedDuringBlock(signal: "SIGINT" | "SIGTERM"): Promise<void> {
  const box = await sandbox({
    "slow.md":
      "Before the block.\n\n```sh exec\necho partial > half.txt\necho started\nsleep 3\necho done > whole.txt\n```\n\nAfter the block.\n",
  });
  const child = spawnXmd(["workflow", "start", "--id=slow", "slow.md"], {
    cwd: box.cwd,
    env: { XMD_WORKFLOW_RUNS: box.runs },
  });
  const reader = child.stdout.getReader();
  let seen = "";
  // The block's output streams while it runs: Ctrl-C lands in its `sleep`
  // (were the output held until the block ended, the run would complete),
  // its line whole (MDX-10).
  while (!seen.includes("started\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
  }
  assert.equal(seen, "Before the block.\n\nstarted\n");
  child.kill(signal);
  reader.releaseLock();
  const output = await child.output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 130, stderr);
  assert.match(stderr, /^workflow run: slow\n/);
  assert.match(
    stderr,
    /workflow status: interrupted\nContinue the run with: xmd workflow resume slow\n$/,
  );
  const human = await box.xmd("status", "slow");
  assert.match(human.stdout, /\n\nContinue the run with: xmd workflow resume slow\n$/);
  const status = json(await box.xmd("status", "slow", "--json"));
  assert.equal(status.status, "interrupted");
  assert.deepEqual(status.stopReason, { kind: "host", code: "interrupted" });
  const history = json(await box.xmd("history", "slow", "--json"));
  const last = history.events.at(-1);
  assert.equal(last.description.type, "exec");
  assert.deepEqual(last.result, { status: "cancelled" });
  assert.equal(last.root, history.events.at(-2).root, "a cancelled block published a root");

  const resumed = await box.xmd("resume", "slow");
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, "Before the block.\n\nstarted\n\nAfter the block.\n");
  assert.match(resumed.stderr, /workflow status: completed\n$/);
  const out = await testFolder("xmd-workflow-out-");
  await Deno.remove(out);
  assert.equal((await box.xmd("export", "slow", out)).code, 0);
  assert.equal(await Deno.readTextFile(`${out}/whole.txt`), "done\n");
  assert.equal(await Deno.readTextFile(`${out}/half.txt`), "partial\n");
}

const BOM = "\uFEFF";
const BOM_DOC = '# Service "api"\n\nport = {8000 + 80}\n\n<Note text="quoted" />\n\n' +
  '<File path="conf.txt">listen = "{8000 + 80}"</File>\n<File path="conf.txt" as="conf" />\n\n' +
  "Written: {conf}\n";
const BOM_NOTE = '---\nprops:\n  text:\n    type: string\n---\n\n> note: "{props.text}"\n';

Deno.test("MDX-66 WF-2: workflow start of a document and component with a byte-order mark equals the run without it", async () => {
  const plain = await sandbox({ "doc.md": BOM_DOC, "Note.md": BOM_NOTE });
  const marked = await sandbox({ "doc.md": BOM + BOM_DOC, "Note.md": BOM + BOM_NOTE });
  const expected = await plain.xmd("start", "--id=bom", "doc.md");
  assert.equal(expected.code, 0, expected.stderr);
  assert.equal(
    expected.stdout,
    '# Service "api"\n\nport = 8080\n\n> note: "quoted"\n\nWritten: listen = "8080"\n',
  );
  assert.deepEqual(await marked.xmd("start", "--id=bom", "doc.md"), expected);
  const definition = (box: Sandbox) => box.xmd("status", "bom", "--json").then(json);
  assert.equal(
    (await definition(marked)).definitionHash,
    (await definition(plain)).definitionHash,
    "the retained sources kept the byte-order mark",
  );

  // The same definition without the marks addresses the run (WF-23): it replays, nothing changes.
  await Deno.writeTextFile(`${marked.cwd}/doc.md`, BOM_DOC);
  await Deno.writeTextFile(`${marked.cwd}/Note.md`, BOM_NOTE);
  const before = await snapshot(marked, "bom");
  assert.deepEqual(await marked.xmd("start", "--id=bom", "doc.md"), expected);
  await assertUnchanged(marked, "bom", before);
});

Deno.test("WF-32 a runs folder that cannot hold runs is refused with one xmd: line and what to do, and nothing is written", async () => {
  const box = await sandbox({ "doc.md": DONE_DOC, "afile": "mine\n" });
  const before = (await Array.fromAsync(Deno.readDir(box.cwd), (entry) => entry.name)).sort();
  const advice =
    "Set XMD_WORKFLOW_RUNS to a folder you can write, or unset it to use ~/.xmd/runs\\n$";
  const folders: [string, string][] = [
    [`${box.cwd}/afile`, "it is not a directory"],
    [`${box.cwd}/afile/runs`, "cannot (read|create) it: not a directory \\(ENOTDIR\\)"],
    [
      `${box.cwd}/${"r".repeat(300)}`,
      "cannot (read|create) it: file name too long \\(ENAMETOOLONG\\)",
    ],
  ];
  const commands = [
    ["list"],
    ["start", "doc.md"],
    ["status", "r1"],
    ["resume", "r1"],
    ["export", "r1", "out"],
  ];
  const attempts = folders.flatMap(([folder, why]) =>
    commands.map((args) => ({ folder, why, args }))
  );
  if (Deno.build.os === "linux") {
    // /proc exists and can be read, but the host creates nothing in it.
    attempts.push(
      {
        folder: "/proc",
        why: "cannot create a file in it: [a-z ]+ \\(E[A-Z]+\\)",
        args: commands[1],
      },
      {
        folder: "/proc/xmd-runs",
        why: "cannot create it: [a-z ]+ \\(E[A-Z]+\\)",
        args: commands[1],
      },
    );
  }
  const results = await Promise.all(
    attempts.map(({ folder, args }) =>
      runXmd(["workflow", ...args], { cwd: box.cwd, env: { XMD_WORKFLOW_RUNS: folder } })
    ),
  );
  results.forEach((result, index) => {
    const { folder, why, args } = attempts[index];
    assertRefused(
      result,
      new RegExp(`^xmd: Cannot use the runs folder "${folder}": ${why}\\. ${advice}`),
    );
    assert.equal(result.stderr.split("\n").length, 2, `${args[0]} in ${folder}: ${result.stderr}`);
  });
  assert.equal(await Deno.readTextFile(`${box.cwd}/afile`), "mine\n");
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(box.cwd), (entry) => entry.name)).sort(),
    before,
    "a refused command wrote something",
  );
  if (Deno.build.os === "linux") assert.equal(await exists("/proc/xmd-runs"), false);

  // Without XMD_WORKFLOW_RUNS, the advice is to set it.
  const home = await Deno.makeTempDir({ dir: box.cwd });
  await Deno.writeTextFile(`${home}/.xmd`, "");
  assertRefused(
    await runXmd(["workflow", "list"], { cwd: box.cwd, env: { HOME: home } }),
    `Cannot use the runs folder "${home}/.xmd/runs": cannot read it: not a directory (ENOTDIR). Set XMD_WORKFLOW_RUNS to a folder you can write`,
  );
});

Deno.test("WF-202: history --json of a journal longer than a page is the whole history's JSON, byte for byte; the table lists every event", async () => {
  const items = Array.from({ length: 600 }, (_, i) => i).join(", ");
  const box = await sandbox({
    "long.md": `<Let as="items" value={[${items}]} />\n\n<Each items={items} as="i">` +
      "<File path={`f/${i}.txt`}>{i}</File></Each>\n\ndone\n",
  });
  const started = await box.xmd("start", "--id=long", "long.md");
  assert.equal(started.code, 0, started.stderr);

  const streamed = await box.xmd("history", "long", "--json");
  assert.equal(streamed.code, 0, streamed.stderr);
  const history = JSON.parse(streamed.stdout);
  assert.equal(history.events.length, 602, "the props event, 600 writes and the root close");
  assert.deepEqual(history.events.map((event: { id: number }) => event.id), [
    ...Array.from({ length: 602 }, (_, i) => i + 1),
  ]);
  // The bytes `JSON.stringify` of the parsed whole gives: no page boundary shows in the text.
  assert.equal(streamed.stdout, JSON.stringify(history, null, 2) + "\n");
  assert.equal(await historyJson(box, "long"), streamed.stdout);

  // The host hands the events over a page at a time, and they are the whole history's.
  const host = new LocalWorkflowHost(box.runs);
  const pages: number[] = [];
  const events: unknown[] = [];
  await host.streamHistory("long", {
    inspection: (inspection) => assert.equal(inspection.record.eventCount, 602),
    events: (page) => {
      pages.push(page.length);
      events.push(...page);
    },
  });
  assert.deepEqual(pages, [256, 256, 90]);
  assert.deepEqual(events, (await host.history("long")).events);

  const asked = await sandbox({ "ask.md": ASK_DOC });
  assert.equal((await asked.xmd("start", "--id=r1", "--props-who=Ada", "ask.md")).code, 2);
  const short = await asked.xmd("history", "r1", "--json");
  assert.equal(JSON.parse(short.stdout).events.length, 2);
  assert.equal(short.stdout, JSON.stringify(JSON.parse(short.stdout), null, 2) + "\n");

  const human = await box.xmd("history", "long");
  assert.equal(human.code, 0, human.stderr);
  const table = human.stdout.split("\n\n").at(-1)!.trimEnd().split("\n");
  assert.equal(table.length, 603, "a header and every event");
  assertColumnsAligned(table);
  assert.match(table[602], /^602 +just now|^602 +\d+s ago/);
});
