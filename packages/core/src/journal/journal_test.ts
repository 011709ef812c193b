import assert from "node:assert/strict";
import type { Program } from "../document/load-program.ts";
import {
  CallLog,
  createWorld,
  load,
  MemoryFileSystem,
  type ProviderCall,
  refusingProviders,
  run,
  type RunRecord,
  ScriptedShell,
  type ShellScript,
} from "../engine/_test-providers.ts";
import type { Providers } from "../engine/providers.ts";
import { runProgram } from "../engine/run-program.ts";
import type { JsonObject } from "../json/json-value.ts";
import { createSecretGate, disabledSecretGate, SecretDetectedError } from "../secret/mod.ts";
import type { DurableStream } from "./durable-stream.ts";
import type { JournalEvent } from "./events.ts";
import { DivergenceError, JournalFormatError, JournalStoppedError } from "./journal-errors.ts";
import { Journal } from "./journal.ts";
import { MemoryStream } from "./memory-stream.ts";

const STEP = "---\nprops:\n  label:\n    type: string\n---\n\n" +
  "Step {props.label}\n\n<Content />\n\n" +
  "```sh exec\nstep {props.label}\n```\n\n<Inner />\n";
const INNER = '<File path="log/inner.txt">inner</File>\n';

/** A document with every kind of effect, nested coroutines and streamed shell output. */
const MULTI = "# Build {props.name}\n\n" +
  '<File path="src/a.txt">alpha</File>\n\n' +
  "```sh exec\nbuild\n```\n\n" +
  '<Glob include="src/*.txt" as="sources" />\n\n' +
  "Sources: {sources}\n\n" +
  '<Step label="one">\n  content for {props.name}\n</Step>\n\n' +
  '```sh exec as="probe"\nprobe\n```\n\n' +
  '<Elicit as="go" schema={{ type: "boolean" }}>\nGo on after {probe.exitCode}?\n</Elicit>\n\n' +
  '<If condition={go}>\n  <File path="out/done.txt">\n    done {probe.stdout}\n  </File>\n</If>\n\n' +
  '<File path="out/done.txt" as="back" />\n\n' +
  "Back: {back}\n\n" +
  '<Step label="two" />\n\n' +
  "End.\n";
const MULTI_COMPONENTS = { "Step.md": STEP, "components/Inner.md": INNER };
const MULTI_FILES = { "src/b.txt": "beta" };
const MULTI_SHELL: Record<string, ShellScript> = {
  build: { stdout: ["built\n", "\n\n", "ok\n"], stderr: ["warn\n"] },
  "step one": { stdout: ["step ", "one\n"] },
  "step two": { stdout: ["step two\n"] },
  probe: { stdout: ["p"], stderr: ["probe err"], exitCode: 5 },
};
const MULTI_PROPS: JsonObject = { name: "xmd" };

function multiWorld(files: Record<string, string> = MULTI_FILES) {
  return createWorld({ files, shell: MULTI_SHELL, answers: { go: true } });
}

async function liveMulti(): Promise<
  { program: Program; record: RunRecord; calls: ProviderCall[] }
> {
  const program = await load(MULTI, MULTI_COMPONENTS);
  const world = multiWorld();
  const record = await run(program, world.providers, { props: MULTI_PROPS });
  return { program, record, calls: world.log.calls };
}

Deno.test("the multi-effect fixture runs live as expected", async () => {
  const { record, calls } = await liveMulti();
  assert.deepEqual(record.outcome, { status: "completed" });
  assert.equal(
    record.stdout,
    "# Build xmd\n\nbuilt\n\n\nok\n\n" +
      'Sources: ["src/a.txt","src/b.txt"]\n\n' +
      "Step one\n\ncontent for xmd\n\nstep one\n\n" +
      "Back: done p\n\n" +
      "Step two\n\nstep two\n\nEnd.\n",
  );
  assert.equal(record.stderr, "warn\n");
  assert.deepEqual(
    record.events.map((event) =>
      event.type === "yield"
        ? `${event.coroutineId} ${event.description.name}`
        : `${event.coroutineId} close`
    ),
    [
      "root props doc.md",
      "root File doc.md:3:1",
      "root exec doc.md:5:1",
      "root Glob doc.md:9:1",
      "root.0 exec Step.md:11:1",
      "root.0.0 File components/Inner.md:1:1",
      "root.0.0 close",
      "root.0 close",
      "root exec doc.md:17:1",
      "root Elicit doc.md:21:1",
      "root File doc.md:26:3",
      "root File doc.md:31:1",
      "root.1 exec Step.md:11:1",
      "root.1.0 File components/Inner.md:1:1",
      "root.1.0 close",
      "root.1 close",
      "root close",
    ],
  );
  assert.equal(calls.length, 11);
});

Deno.test("Journal.open: the three states", async () => {
  const { record } = await liveMulti();
  const state = async (events: readonly JournalEvent[]) =>
    (await Journal.open(new MemoryStream(events), disabledSecretGate)).state;
  assert.equal(await state([]), "empty");
  assert.equal(await state(record.events.slice(0, 1)), "truncated");
  assert.equal(await state(record.events.slice(0, 7)), "truncated", "ends with a child's close");
  assert.deepEqual(record.events[6], {
    type: "close",
    coroutineId: "root.0.0",
    result: { status: "ok", value: null },
  });
  assert.equal(await state(record.events.slice(0, -1)), "truncated");
  assert.equal(await state(record.events), "completed");
});

Deno.test("completed replay reproduces output and outcome without calling any provider", async () => {
  const { program, record } = await liveMulti();
  const stream = new MemoryStream(record.events);
  const { providers, attempts } = refusingProviders();
  const replayed = await run(program, providers, { props: MULTI_PROPS, stream });
  assert.deepEqual(attempts, []);
  assert.deepEqual(replayed.outcome, record.outcome);
  assert.equal(replayed.stdout, record.stdout);
  assert.equal(replayed.stderr, record.stderr);
  assert.deepEqual(stream.events, record.events, "nothing is appended");
});

Deno.test("completed replay of a failed run reproduces the failure without running anything", async () => {
  const program = await load(
    'Start\n\n<File path="a">a</File>\n\n```sh exec\nbreak\n```\n\n<File path="never">n</File>\n',
  );
  const world = createWorld({ shell: { break: { stdout: ["half\n"], exitCode: 7 } } });
  const live = await run(program, world.providers);
  assert.equal(live.outcome.status, "failed");
  const { providers, attempts } = refusingProviders();
  const replayed = await run(program, providers, { recorded: live.events });
  assert.deepEqual(attempts, []);
  assert.deepEqual(replayed.outcome, live.outcome);
  assert.equal(replayed.stdout, "Start\n\nhalf\n");
  assert.deepEqual(replayed.events, live.events);
});

/** The world at the moment a run was cut after `done` effects: the initial files plus those writes. */
function worldAfter(calls: readonly ProviderCall[], done: number) {
  const files: Record<string, string> = { ...MULTI_FILES };
  for (const call of calls.slice(0, done)) {
    if (call.provider === "fs" && call.op === "write") files[call.path] = call.content;
  }
  return multiWorld(files);
}

Deno.test("truncated replay at every prefix continues live and matches an uninterrupted run", async () => {
  const { program, record, calls } = await liveMulti();
  assert.ok(record.events.length > 10);
  for (let cut = 0; cut < record.events.length; cut++) {
    const prefix = record.events.slice(0, cut);
    // Every recorded Yield but the props digest stands for one provider call.
    const done = prefix.filter((event) =>
      event.type === "yield" && event.description.type !== "props"
    ).length;
    const world = worldAfter(calls, done);
    const journal = await Journal.open(new MemoryStream(prefix), disabledSecretGate);
    assert.equal(journal.state, cut === 0 ? "empty" : "truncated");
    const resumed = await run(program, world.providers, { props: MULTI_PROPS, recorded: prefix });
    const at = `cut at ${cut}`;
    assert.deepEqual(resumed.outcome, record.outcome, at);
    assert.equal(resumed.stdout, record.stdout, at);
    assert.equal(resumed.stderr, record.stderr, at);
    assert.deepEqual(resumed.events, record.events, at);
    assert.deepEqual(world.log.calls, calls.slice(done), `${at}: only the missing effects run`);
  }
});

/** Runs `edited` over the journal `original` wrote and expects a DivergenceError that appends nothing. */
async function assertDivergence(
  original: { text: string; components?: Record<string, string>; cut?: number },
  edited: { text: string; components?: Record<string, string> },
  expected: { kind: DivergenceError["kind"]; eventNumber: number },
): Promise<DivergenceError> {
  const files = { "in.txt": "in" };
  const shell = (script: string): ShellScript => ({ stdout: [`ran ${script}\n`] });
  const live = await run(
    await load(original.text, original.components),
    createWorld({ files, shellFallback: shell }).providers,
  );
  const recorded = live.events.slice(0, original.cut ?? live.events.length);
  const stream = new MemoryStream(recorded);
  const world = createWorld({ files, shellFallback: shell });
  const program = await load(edited.text, edited.components);
  let caught: unknown;
  try {
    await run(program, world.providers, { stream });
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof DivergenceError, `expected a DivergenceError, got ${caught}`);
  assert.equal(caught.kind, expected.kind);
  assert.equal(caught.eventNumber, expected.eventNumber);
  assert.match(
    caught.message,
    new RegExp(`^Cannot replay the journal: event ${expected.eventNumber} `),
  );
  assert.deepEqual(stream.events, recorded, "nothing is appended");
  assert.deepEqual(world.log.calls, [], "no provider is called");
  return caught;
}

Deno.test("divergence: coroutine (a component's effect inlined into the caller)", async () => {
  const writer = { "Writer.md": '<File path="out.txt">x</File>\n' };
  const error = await assertDivergence(
    { text: "<Writer />\n", components: writer },
    { text: '<File path="out.txt">x</File>\n' },
    { kind: "coroutine", eventNumber: 2 },
  );
  assert.match(error.message, /belongs to coroutine root\.0/);
});

Deno.test("divergence: coroutine (a removed component's close)", async () => {
  await assertDivergence(
    { text: "Intro\n\n<Quiet />\n", components: { "Quiet.md": "quiet\n" } },
    { text: "Intro\n" },
    { kind: "coroutine", eventNumber: 2 },
  );
});

Deno.test("divergence: type (a write turned into a read at the same place)", async () => {
  await assertDivergence(
    { text: '<File path="notes.txt">draft</File>\n' },
    { text: '<File path="notes.txt" as="notes" />\n' },
    { kind: "type", eventNumber: 2 },
  );
});

Deno.test("divergence: name (a line inserted above moves the effect)", async () => {
  const error = await assertDivergence(
    { text: '# Notes\n\n<File path="a.txt">a</File>\n\n<File path="b.txt">b</File>\n' },
    {
      text:
        '# Notes\n\n<File path="a.txt">a</File>\n\nNew paragraph.\n\n<File path="b.txt">b</File>\n',
    },
    { kind: "name", eventNumber: 3 },
  );
  assert.match(
    error.message,
    /records "File doc\.md:5:1", but the document asks for "File doc\.md:7:1"/,
  );
});

Deno.test("divergence: input (same block, edited script or path)", async () => {
  await assertDivergence(
    { text: "```sh exec\necho one\n```\n" },
    { text: "```sh exec\necho two\n```\n" },
    { kind: "input", eventNumber: 2 },
  );
  await assertDivergence(
    { text: '<File path="in.txt" as="x" />\n\n<Glob include="*.md" as="g" />\n' },
    { text: '<File path="in.txt" as="x" />\n\n<Glob include="*.txt" as="g" />\n' },
    { kind: "input", eventNumber: 3 },
  );
});

Deno.test("divergence: ended-early (the last effect was deleted)", async () => {
  await assertDivergence(
    { text: '<File path="a.txt">a</File>\n\n```sh exec\nls\n```\n', cut: 3 },
    { text: '<File path="a.txt">a</File>\n' },
    { kind: "ended-early", eventNumber: 3 },
  );
});

Deno.test("divergence: past-close (an effect appended after a completed run, or in a component)", async () => {
  await assertDivergence(
    { text: '<File path="a.txt">a</File>\n' },
    { text: '<File path="a.txt">a</File>\n\n<File path="b.txt">b</File>\n' },
    { kind: "past-close", eventNumber: 3 },
  );
  await assertDivergence(
    { text: "<Part />\n\ntail\n", components: { "Part.md": '<File path="p1">1</File>\n' }, cut: 3 },
    {
      text: "<Part />\n\ntail\n",
      components: { "Part.md": '<File path="p1">1</File>\n\n<File path="p2">2</File>\n' },
    },
    { kind: "past-close", eventNumber: 3 },
  );
});

Deno.test("divergence: outcome (the document now fails where it succeeded, and back)", async () => {
  await assertDivergence(
    { text: '<File path="a.txt">a</File>\n' },
    { text: '<File path="a.txt">a</File>\n\n<Fail message="not yet" />\n' },
    { kind: "outcome", eventNumber: 3 },
  );
  await assertDivergence(
    { text: '<File path="a.txt">a</File>\n\n<Fail message="not yet" />\n' },
    { text: '<File path="a.txt">a</File>\n' },
    { kind: "outcome", eventNumber: 3 },
  );
});

/** A MemoryStream whose append number `failAt` (0-based) rejects, once. */
class FlakyStream implements DurableStream {
  readonly inner = new MemoryStream();
  attempts = 0;

  constructor(readonly failAt: number) {}

  readAll(): Promise<JournalEvent[]> {
    return this.inner.readAll();
  }

  append(event: JournalEvent): Promise<void> {
    if (this.attempts++ === this.failAt) return Promise.reject(new Error("disk full"));
    return this.inner.append(event);
  }
}

Deno.test("fail-stop: after one failed append no later effect runs and nothing more is appended", async () => {
  const program = await load(
    '<File path="one">1</File>\n\n```sh exec\nsecond\n```\n\n<File path="three">3</File>\n',
  );
  const world = createWorld({ shell: { second: { stdout: ["2\n"] } } });
  const stream = new FlakyStream(2);
  const journal = await Journal.open(stream, disabledSecretGate);
  const options = {
    program,
    props: {},
    providers: world.providers,
    journal,
    stdout: () => {},
    stderr: () => {},
    signal: new AbortController().signal,
  };
  await assert.rejects(runProgram(options), { message: "disk full" });
  assert.deepEqual(world.log.summary, ["fs.write one", "shell second"]);
  assert.deepEqual(
    stream.inner.events.map((event) => event.type === "yield" && event.description.name),
    ["props doc.md", "File doc.md:1:1"],
  );

  let called = false;
  const effect = journal.effect("root", { type: "file.write", name: "File doc.md:7:1" }, () => {
    called = true;
    return Promise.resolve({ status: "ok", value: null });
  });
  const stopped = await effect.then(() => undefined, (error) => error);
  assert.ok(stopped instanceof JournalStoppedError);
  assert.equal((stopped.cause as Error).message, "disk full");
  assert.equal(called, false);
  await assert.rejects(journal.close("root", { status: "ok", value: null }), JournalStoppedError);
  await assert.rejects(runProgram(options), JournalStoppedError);
  assert.deepEqual(world.log.summary, ["fs.write one", "shell second"], "no provider called again");
  assert.equal(stream.attempts, 3, "no append was even attempted after the failure");
  assert.equal(stream.inner.events.length, 2);
});

Deno.test("cancellation: a cancelled Yield is recorded, then re-run on replay", async () => {
  const program = await load(
    'Intro\n\n<File path="a">a</File>\n\n```sh exec\nwork\n```\n\n<File path="b">b</File>\n',
  );
  const controller = new AbortController();
  const log = new CallLog();
  const shell = new ScriptedShell({}, log, () => {
    controller.abort();
    return { stdout: ["interrupted\n"], exitCode: 130 };
  });
  const providers: Providers = {
    fs: new MemoryFileSystem({}, log),
    shell,
    elicit: createWorld().providers.elicit,
  };
  const cancelled = await run(program, providers, { signal: controller.signal });
  assert.deepEqual(cancelled.outcome, { status: "cancelled" });
  assert.deepEqual(cancelled.events.map((event) => event.type === "yield" && event.result), [
    { status: "ok", value: null },
    { status: "ok", value: null },
    { status: "cancelled" },
  ]);

  const uninterrupted = await run(
    program,
    createWorld({ shell: { work: { stdout: ["worked\n"] } } }).providers,
  );
  const world = createWorld({ shell: { work: { stdout: ["worked\n"] } } });
  const resumed = await run(program, world.providers, { recorded: cancelled.events });
  assert.deepEqual(resumed.outcome, { status: "completed" });
  assert.equal(resumed.stdout, uninterrupted.stdout);
  assert.deepEqual(world.log.summary, ["shell work", "fs.write b"]);
  assert.deepEqual(resumed.events, [
    ...cancelled.events,
    ...uninterrupted.events.slice(2),
  ]);

  const { providers: refusing, attempts } = refusingProviders();
  const replayed = await run(program, refusing, { recorded: resumed.events });
  assert.deepEqual(attempts, [], "a completed journal skips the cancelled attempt without running");
  assert.equal(replayed.stdout, uninterrupted.stdout);
});

/** A stream whose appends stay pending until the test releases them. */
class GatedStream implements DurableStream {
  readonly events: JournalEvent[] = [];
  readonly #waiting: (() => void)[] = [];
  #onAppend: (() => void) | undefined;

  constructor(readonly order: string[]) {}

  readAll(): Promise<JournalEvent[]> {
    return Promise.resolve([]);
  }

  append(event: JournalEvent): Promise<void> {
    const label = event.type === "yield" ? event.description.name : `close ${event.coroutineId}`;
    this.order.push(`append ${label}`);
    return new Promise((resolve) => {
      this.#waiting.push(() => {
        this.events.push(event);
        this.order.push(`durable ${label}`);
        resolve();
      });
      this.#onAppend?.();
    });
  }

  /** Resolves once an append is waiting. */
  waitForAppend(): Promise<void> {
    if (this.#waiting.length) return Promise.resolve();
    return new Promise((resolve) => this.#onAppend = resolve);
  }

  /** Makes the oldest waiting append durable. */
  release(): void {
    this.#onAppend = undefined;
    this.#waiting.shift()!();
  }
}

/** Lets every queued promise job and timer settle. */
async function settle(): Promise<void> {
  for (let round = 0; round < 5; round++) await new Promise((resolve) => setTimeout(resolve, 0));
}

Deno.test("persist before resume: effect N+1 starts only after effect N's append resolved", async () => {
  const order: string[] = [];
  const program = await load(
    '<File path="one">1</File>\n\n```sh exec\ntwo\n```\n\n<File path="three">3</File>\n',
  );
  const fs = new MemoryFileSystem();
  const providers: Providers = {
    fs: {
      readText: (path) => fs.readText(path),
      writeText: (path, content) => {
        order.push(`write ${path}`);
        return fs.writeText(path, content);
      },
      glob: (cwd, include, exclude) => fs.glob(cwd, include, exclude),
    },
    shell: {
      run: (request) => {
        order.push(`shell ${request.script}`);
        return Promise.resolve({ exitCode: 0, stdout: "", stderr: "", timedOut: false });
      },
    },
    elicit: createWorld().providers.elicit,
  };
  const stream = new GatedStream(order);
  const journal = await Journal.open(stream, disabledSecretGate);
  const done = runProgram({
    program,
    props: {},
    providers,
    journal,
    stdout: () => {},
    stderr: () => {},
    signal: new AbortController().signal,
  });
  for (let append = 0; append < 5; append++) {
    await stream.waitForAppend();
    await settle();
    const before = order.length;
    assert.match(order[before - 1], /^append /, `nothing runs while append ${append} is pending`);
    stream.release();
  }
  assert.deepEqual(await done, { status: "completed" });
  assert.deepEqual(order, [
    "append props doc.md",
    "durable props doc.md",
    "write one",
    "append File doc.md:1:1",
    "durable File doc.md:1:1",
    "shell two",
    "append exec doc.md:3:1",
    "durable exec doc.md:3:1",
    "write three",
    "append File doc.md:7:1",
    "durable File doc.md:7:1",
    "append close root",
    "durable close root",
  ]);
  assert.equal(stream.events.length, 5);
});

const AWS_KEY = "AKIA" + "QYLPMN5HHHFPZAM2";

Deno.test("secret gate: a Yield holding a secret is refused, nothing is appended, the run stops", async () => {
  const gate = createSecretGate();
  await assert.rejects(
    gate.check(JSON.stringify({ stdout: AWS_KEY }), "probe"),
    SecretDetectedError,
  );
  await gate.check(JSON.stringify({ stdout: "AKIA-not-a-key" }), "probe");

  const program = await load(
    '<File path="a">a</File>\n\n```sh exec as="creds"\nprint-creds\n```\n\n<File path="b">b</File>\n',
  );
  const world = createWorld({ shell: { "print-creds": { stdout: [`${AWS_KEY}\n`] } } });
  const stream = new MemoryStream();
  const journal = await Journal.open(stream, gate);
  let stdout = "";
  const rejected = await runProgram({
    program,
    props: {},
    providers: world.providers,
    journal,
    stdout: (text) => stdout += text,
    stderr: () => {},
    signal: new AbortController().signal,
  }).then(() => undefined, (error) => error);
  assert.ok(rejected instanceof SecretDetectedError);
  assert.ok(!rejected.message.includes(AWS_KEY), "the error never holds the secret");
  assert.ok(!JSON.stringify(rejected).includes(AWS_KEY));
  assert.match(rejected.message, /exec doc\.md:3:1/);
  assert.deepEqual(stream.events.map((event) => event.type === "yield" && event.description.name), [
    "props doc.md",
    "File doc.md:1:1",
  ]);
  assert.deepEqual(world.log.summary, ["fs.write a", "shell print-creds"]);
  assert.ok(!stdout.includes(AWS_KEY));
  await assert.rejects(journal.close("root", { status: "ok", value: null }), JournalStoppedError);
  assert.equal(stream.events.length, 2);
});

Deno.test("Journal.open refuses a history with events after the root close", async () => {
  const { record } = await liveMulti();
  const cases: JournalEvent[][] = [
    [...record.events, record.events[0]],
    [record.events[record.events.length - 1], ...record.events.slice(0, 3)],
    [...record.events, {
      type: "close",
      coroutineId: "root.9",
      result: { status: "ok", value: null },
    }],
  ];
  for (const events of cases) {
    const stream = new MemoryStream(events);
    const index = events.findIndex((event) =>
      event.type === "close" && event.coroutineId === "root"
    );
    await assert.rejects(Journal.open(stream, disabledSecretGate), (error: unknown) => {
      assert.ok(error instanceof JournalFormatError);
      assert.equal(
        error.message,
        `Cannot read the journal: event ${index + 2} follows the root close, which must be last`,
      );
      return true;
    });
    assert.deepEqual(stream.events, events, "the stream is untouched");
  }
});

Deno.test("Journal.effect: a recorded result is returned without running; the frontier runs live", async () => {
  const recorded: JournalEvent[] = [{
    type: "yield",
    coroutineId: "root",
    description: { type: "file.read", name: "File doc.md:1:1", path: "a" },
    result: { status: "ok", value: "recorded" },
  }];
  const stream = new MemoryStream(recorded);
  const journal = await Journal.open(stream, disabledSecretGate);
  let runs = 0;
  const first = await journal.effect(
    "root",
    { type: "file.read", name: "File doc.md:1:1", path: "a" },
    () => {
      runs++;
      return Promise.resolve({ status: "ok", value: "live" });
    },
  );
  assert.deepEqual(first, { result: { status: "ok", value: "recorded" }, replayed: true });
  assert.equal(runs, 0);
  assert.equal(journal.replaying, false);
  const second = await journal.effect(
    "root",
    { type: "file.read", name: "File doc.md:2:1", path: "b" },
    () => {
      runs++;
      return Promise.resolve({ status: "ok", value: "live" });
    },
  );
  assert.deepEqual(second, { result: { status: "ok", value: "live" }, replayed: false });
  assert.equal(runs, 1);
  assert.equal(journal.position, 2);
  assert.equal(stream.events.length, 2);
});
