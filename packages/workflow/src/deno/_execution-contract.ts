/**
 * The execution contract: one suite of documents (`<File>`, `<Glob>`,
 * `<Dir>`, shell blocks, answers, failures, Ctrl-C between effects and
 * during a block) run through any
 * `WorkflowHost` a factory makes, asserting what a user sees (the rendered
 * output, the committed status), the journal as `history --json` shows it
 * and the Workspace root after every event. Each root is checked against the
 * root of a Workspace built directly from the files the case expects, so
 * the figures are the root format's, not one host's.
 *
 * Every case runs twice, on two fresh hosts from the factory, and must give
 * the same events with the same root after each one: a run is a function of
 * its document, props and answers. `execution_contract_test.ts` runs it
 * on the local host and on the remote runner, each with its own factory.
 *
 * @module
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { type JournalEvent, type JsonValue, loadProgram } from "@xmd/core";
import type { ExecutionIo, ExecutionReport, WorkflowHost } from "../contracts/workflow-host.ts";
import { publishRoot } from "../workspace/publish-root.ts";
import { Workspace } from "../workspace/workspace.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";

/** A fresh host (empty: no run in it), disposed after its case. */
export interface ContractHost extends AsyncDisposable {
  /** The host under test. */
  host: WorkflowHost;
}

/** Makes a fresh, empty host for one run of one case. */
export type HostFactory = () => Promise<ContractHost>;

/** A committed event with the Workspace root current after it, as `history --json` shows them. */
export interface TracedEvent {
  /** The root after the event. */
  root: string;
  /** The event. */
  event: JournalEvent;
}

/** What a case observed, compared between its two runs. */
export interface CaseTrace {
  /** Each run id the case made, with its events. */
  runs: Record<string, TracedEvent[]>;
  /** Everything the case's commands printed on stdout, in order. */
  output: string;
}

/** One document (or a few), with what must hold after running it. */
export interface ExecutionCase {
  /** What is promised, as a sentence. */
  readonly name: string;
  /** Runs the case on `host`, asserting as it goes; returns what it observed. */
  run(host: WorkflowHost): Promise<CaseTrace>;
}

/** Runs `contractCase` on two fresh hosts from `factory` and checks they agree event by event. */
export async function runExecutionCase(
  factory: HostFactory,
  contractCase: ExecutionCase,
): Promise<void> {
  const traces: CaseTrace[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    await using fresh = await factory();
    traces.push(await contractCase.run(fresh.host));
  }
  const [first, second] = traces;
  assert.deepEqual(Object.keys(second.runs), Object.keys(first.runs));
  for (const [id, events] of Object.entries(first.runs)) {
    assert.deepEqual(
      second.runs[id].map(({ root }) => root),
      events.map(({ root }) => root),
      `run "${id}": the same document gives the same root after each event`,
    );
    assert.deepEqual(second.runs[id], events, `run "${id}": the same events`);
  }
  assert.equal(second.output, first.output);
}

// ---- support

/**
 * What the Workspace is expected to hold, by path: a file's text (mode
 * 0o644), `""` for a directory (a path ending in `/`, mode 0o755), a file
 * with another mode, or a symlink with its target.
 */
type Expected = Record<string, string | { text: string; mode: number } | { symlink: string }>;

const roots = new Map<string, string>();

/** The root id of a Workspace holding exactly `files` (regular files 0o644, directories 0o755). */
export function rootOf(files: Expected): string {
  const key = JSON.stringify(Object.entries(files).sort());
  const known = roots.get(key);
  if (known) return known;
  using seam = new NodeSqliteSeam(new DatabaseSync(":memory:"), "the expected Workspace");
  const root = seam.transaction(() => {
    Workspace.initialize(seam);
    const workspace = new Workspace(seam);
    const encoder = new TextEncoder();
    for (const [path, content] of Object.entries(files)) {
      if (path.endsWith("/")) workspace.mkdir(`/${path.slice(0, -1)}`, { recursive: true });
      else if (typeof content === "string") {
        workspace.writeFile(`/${path}`, encoder.encode(content));
      } else if ("symlink" in content) workspace.symlink(content.symlink, `/${path}`);
      else workspace.writeFile(`/${path}`, encoder.encode(content.text), { mode: content.mode });
    }
    return publishRoot(seam);
  });
  roots.set(key, root);
  return root;
}

/** A run of documents on one host, with its output and an abort switch. */
class Session {
  readonly host: WorkflowHost;
  output = "";
  controller = new AbortController();
  /** Called with the output so far after each stdout write (to press Ctrl-C at a known point). */
  onOutput: (output: string, abort: () => void) => void = () => {};

  constructor(host: WorkflowHost) {
    this.host = host;
  }

  #io(): ExecutionIo {
    this.controller = new AbortController();
    const controller = this.controller;
    let seen = "";
    return {
      stdout: (text) => {
        this.output += text;
        seen += text;
        this.onOutput(seen, () => controller.abort());
      },
      stderr: () => {},
      onRun: () => {},
      signal: controller.signal,
    };
  }

  /** Starts run `id` of `text` (as `doc.md`). */
  async start(id: string, text: string): Promise<ExecutionReport> {
    const program = await loadProgram(
      { file: "doc.md", text },
      () => Promise.resolve(undefined),
    );
    return await this.host.start({ id, program, props: {} }, this.#io());
  }

  async resume(id: string): Promise<ExecutionReport> {
    return await this.host.resume(id, this.#io());
  }

  async answer(id: string, suspensionId: string, value: JsonValue): Promise<void> {
    await this.host.answer(id, suspensionId, value, true);
  }

  /** Run `id`'s events and the root after each, as `history --json` shows them. */
  async events(id: string): Promise<TracedEvent[]> {
    return (await this.host.history(id)).events.map(({ root, event }) => ({ root, event }));
  }

  /** The case's trace: every run's events, and the output. */
  async trace(...ids: string[]): Promise<CaseTrace> {
    const runs: Record<string, TracedEvent[]> = {};
    for (const id of ids) runs[id] = await this.events(id);
    return { runs, output: this.output };
  }
}

/** Each event as `<type> <path or coroutine> <status>`, e.g. `file.write a.txt ok`. */
function summary(events: TracedEvent[]): string[] {
  return events.map(({ event }) => {
    if (event.type === "close") return `close ${event.coroutineId} ${event.result.status}`;
    const { description, result } = event;
    const subject = typeof description.path === "string" ? ` ${description.path}` : "";
    const exit = description.type === "exec" && result.status === "ok"
      ? ` exit ${(result.value as { exitCode: number }).exitCode}`
      : "";
    return `${description.type}${subject} ${result.status}${exit}`;
  });
}

/** Asserts the root after each event, one expected Workspace per event. */
function assertRoots(events: TracedEvent[], expected: Expected[]): void {
  assert.equal(events.length, expected.length, "one expected Workspace per event");
  events.forEach(({ root, event }, index) => {
    const name = event.type === "yield" ? event.description.name : `close ${event.coroutineId}`;
    assert.equal(root, rootOf(expected[index]), `the root after event ${index + 1} (${name})`);
  });
}

/** A case's document, from lines. */
const doc = (...lines: string[]) => lines.join("\n") + "\n";

const FENCE = "```";

// ---- the cases

/** The suite, in order. */
export const EXECUTION_CONTRACT: readonly ExecutionCase[] = [
  {
    name:
      "files, globs and directories: writes under <Dir> move the root, a read and a glob keep it; a completed run replays its output and appends nothing",
    async run(host) {
      const session = new Session(host);
      const report = await session.start(
        "files",
        doc(
          '<Dir path="src">',
          '  <File path="a.txt">alpha</File>',
          "",
          '  <File path="b.txt">beta</File>',
          "</Dir>",
          "",
          '<File path="src/a.txt" as="a" />',
          "",
          '<Glob include="src/*.txt" as="paths" />',
          "",
          'A: {a}; paths: {paths.join(", ")}',
        ),
      );
      assert.equal(report.status, "completed");
      assert.equal(report.failure, null);
      assert.match(session.output, /A: alpha; paths: src\/a\.txt, src\/b\.txt/);
      const events = await session.events("files");
      assert.deepEqual(summary(events), [
        "props ok",
        "file.write src/a.txt ok",
        "file.write src/b.txt ok",
        "file.read src/a.txt ok",
        "glob ok",
        "close root ok",
      ]);
      const a = { "src/": "", "src/a.txt": "alpha" };
      const ab = { ...a, "src/b.txt": "beta" };
      assertRoots(events, [{}, a, ab, ab, ab, ab]);
      const first = session.output;
      session.output = "";
      const replay = await session.resume("files");
      assert.equal(replay.status, "completed");
      assert.equal(session.output, first, "a completed run prints its output again");
      assert.deepEqual(await session.events("files"), events, "and appends nothing");
      return await session.trace("files");
    },
  },
  {
    name:
      "shell blocks: a block's changes and output are kept on exit 0, and on a nonzero exit with as; a mode, a symlink and a hard link are in the root",
    async run(host) {
      const session = new Session(host);
      const report = await session.start(
        "shell",
        doc(
          "Before.",
          "",
          `${FENCE}sh exec`,
          "mkdir -p out",
          "printf 'one\\n' > out/one.txt",
          "echo hello from sh",
          FENCE,
          "",
          `${FENCE}sh exec as="r"`,
          "echo kept > out/kept.txt",
          "exit 3",
          FENCE,
          "",
          "Code {r.exitCode}.",
          "",
          `${FENCE}sh exec`,
          "printf 'run\\n' > tool.sh",
          "chmod 755 tool.sh",
          "ln -s tool.sh link",
          "ln tool.sh hard.sh",
          FENCE,
        ),
      );
      assert.equal(report.status, "completed");
      assert.match(session.output, /hello from sh\n/);
      assert.match(session.output, /Code 3\./);
      const events = await session.events("shell");
      assert.deepEqual(summary(events), [
        "props ok",
        "exec ok exit 0",
        "exec ok exit 3",
        "exec ok exit 0",
        "close root ok",
      ]);
      const one = { "out/": "", "out/one.txt": "one\n" };
      const kept = { ...one, "out/kept.txt": "kept\n" };
      const tool = { text: "run\n", mode: 0o755 };
      const linked = { ...kept, "tool.sh": tool, "hard.sh": tool, "link": { symlink: "tool.sh" } };
      assertRoots(events, [{}, one, kept, linked, linked]);
      return await session.trace("shell");
    },
  },
  {
    name:
      "answers: each question suspends the run, an answer and a resume go on from it, and what the answers write is kept",
    async run(host) {
      const session = new Session(host);
      const text = doc(
        '<Elicit as="name" schema={{ type: "string" }}>',
        "Your name?",
        "</Elicit>",
        "",
        '<File path="greeting.txt">Hello {name}</File>',
        "",
        '<Elicit as="go" schema={{ type: "boolean" }}>',
        "Go on?",
        "</Elicit>",
        "",
        "Done: {name} {go}",
      );
      let report = await session.start("answers", text);
      assert.equal(report.status, "suspended");
      assert.match(report.pendingSuspension!.question, /Your name\?/);
      await session.answer("answers", report.pendingSuspension!.suspensionId, "Ada");
      report = await session.resume("answers");
      assert.equal(report.status, "suspended");
      assert.match(report.pendingSuspension!.question, /Go on\?/);
      // Without an answer, resume only asks again.
      const asked = await session.resume("answers");
      assert.deepEqual(asked, report);
      await session.answer("answers", report.pendingSuspension!.suspensionId, true);
      session.output = "";
      report = await session.resume("answers");
      assert.equal(report.status, "completed");
      assert.match(session.output, /Done: Ada true/);
      const events = await session.events("answers");
      assert.deepEqual(summary(events), [
        "props ok",
        "suspension_request ok",
        "suspension_answer ok",
        "file.write greeting.txt ok",
        "suspension_request ok",
        "suspension_answer ok",
        "close root ok",
      ]);
      const greeted = { "greeting.txt": "Hello Ada" };
      assertRoots(events, [{}, {}, {}, greeted, greeted, greeted, greeted]);
      return await session.trace("answers");
    },
  },
  {
    name:
      "failures: a refused read and a failing block fail the run with a root Close, keep nothing of the block, and replay as the same failure",
    async run(host) {
      const session = new Session(host);
      const missing = await session.start(
        "missing",
        doc('<File path="missing.txt" as="m" />', "", "Never: {m}"),
      );
      assert.equal(missing.status, "failed");
      assert.match(missing.failure!, /missing\.txt/);
      const read = await session.events("missing");
      assert.deepEqual(summary(read), ["props ok", "file.read missing.txt err", "close root err"]);
      assertRoots(read, [{}, {}, {}]);
      assert.deepEqual((await host.inspect("missing")).record.stopReason, {
        kind: "journal",
        eventId: 3,
      });

      const block = await session.start(
        "block",
        doc(
          '<File path="kept.txt">kept</File>',
          "",
          `${FENCE}sh exec`,
          "echo lost > lost.txt",
          "exit 3",
          FENCE,
        ),
      );
      assert.equal(block.status, "failed");
      assert.match(block.failure!, /exited with code 3/);
      const failed = await session.events("block");
      assert.deepEqual(summary(failed), [
        "props ok",
        "file.write kept.txt ok",
        "exec ok exit 3",
        "close root err",
      ]);
      const kept = { "kept.txt": "kept" };
      assertRoots(failed, [{}, kept, kept, kept]);
      const again = await session.resume("block");
      assert.deepEqual(again, block, "a failed run replays as the same failure");
      assert.deepEqual(await session.events("block"), failed, "and appends nothing");
      return await session.trace("missing", "block");
    },
  },
  {
    name:
      "Ctrl-C: an abort between effects interrupts the run with nothing of the next effect, and resume runs it from there",
    async run(host) {
      const session = new Session(host);
      session.onOutput = (output, abort) => {
        if (output.includes("Copying.")) abort();
      };
      const text = doc(
        '<File path="in.txt">input</File>',
        "",
        "Copying.",
        "",
        `${FENCE}sh exec`,
        "cp in.txt out.txt",
        FENCE,
        "",
        "Done.",
      );
      const interrupted = await session.start("abort", text);
      assert.equal(interrupted.status, "interrupted");
      assert.deepEqual((await host.inspect("abort")).record.stopReason, {
        kind: "host",
        code: "interrupted",
      });
      const before = await session.events("abort");
      assert.deepEqual(summary(before), ["props ok", "file.write in.txt ok"]);
      const input = { "in.txt": "input" };
      assertRoots(before, [{}, input]);
      session.onOutput = () => {};
      session.output = "";
      const resumed = await session.resume("abort");
      assert.equal(resumed.status, "completed");
      assert.match(session.output, /Done\./);
      const events = await session.events("abort");
      assert.deepEqual(events.slice(0, 2), before, "what was committed stays as it was");
      assert.deepEqual(summary(events), [
        "props ok",
        "file.write in.txt ok",
        "exec ok exit 0",
        "close root ok",
      ]);
      const copied = { ...input, "out.txt": "input" };
      assertRoots(events, [{}, input, copied, copied]);
      return await session.trace("abort");
    },
  },
  {
    name:
      "Ctrl-C during a block: its Yield is cancelled and nothing it wrote is kept; resume runs it again",
    async run(host) {
      const session = new Session(host);
      // Pressed while the block runs (its first output): whenever the block
      // ends, the abort came first, so its result is `cancelled`.
      session.onOutput = (output, abort) => {
        if (output.includes("started")) abort();
      };
      const text = doc(
        `${FENCE}sh exec`,
        "echo started",
        "echo written > f.txt",
        FENCE,
        "",
        "Done.",
      );
      const interrupted = await session.start("block-abort", text);
      assert.equal(interrupted.status, "interrupted");
      const before = await session.events("block-abort");
      assert.deepEqual(summary(before), ["props ok", "exec cancelled"]);
      assertRoots(before, [{}, {}]);
      session.onOutput = () => {};
      session.output = "";
      const resumed = await session.resume("block-abort");
      assert.equal(resumed.status, "completed");
      assert.match(session.output, /started\n[\s\S]*Done\./);
      const events = await session.events("block-abort");
      assert.deepEqual(summary(events), [
        "props ok",
        "exec cancelled",
        "exec ok exit 0",
        "close root ok",
      ]);
      const written = { "f.txt": "written\n" };
      assertRoots(events, [{}, {}, written, written]);
      return await session.trace("block-abort");
    },
  },
];
