/**
 * Test support for the crash, corruption and concurrency matrices: the real
 * `xmd workflow` CLI as a subprocess over a runs folder, the fixture
 * document, an uninterrupted reference run with snapshots of its database
 * between commands, and byte-level views of a run database.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type JournalEvent, type JsonValue, loadProgram, type Program } from "@xmd/core";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnXmd } from "../../../cli/src/deno/_run-xmd.ts";
import type { ExecutionIo } from "../contracts/workflow-host.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";

/** The fixture folder (the cwd of every `start`). */
export const TESTDATA = fileURLToPath(new URL("../../testdata/", import.meta.url));

/** Two questions, a component, `<Let>`, `<If>` and `<Each>`. */
export const DOCUMENT = "ok.two-questions.md";

/** The run id every matrix uses (each case has its own runs folder). */
export const RUN = "matrix";

/** What one `xmd workflow` subprocess did. */
export interface Outcome {
  /** Exit code (137 after SIGKILL). */
  code: number;
  /** The signal that ended it, if any. */
  signal: Deno.Signal | null;
  /** Everything on stdout. */
  stdout: string;
  /** Everything on stderr. */
  stderr: string;
}

/** Runs `xmd workflow <args>` over `runs`, with `env` added (e.g. `XMD_FAILPOINT`). */
export async function workflow(
  runs: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<Outcome> {
  return await outcomeOf(startWorkflow(runs, args, env));
}

/** Starts `xmd workflow <args>` over `runs` without waiting for it. */
export function startWorkflow(
  runs: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Deno.ChildProcess {
  return spawnXmd(["workflow", ...args], {
    cwd: TESTDATA,
    env: { XMD_WORKFLOW_RUNS: runs, ...env },
  });
}

/** Waits for a started subprocess. */
export async function outcomeOf(child: Deno.ChildProcess): Promise<Outcome> {
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    signal: output.signal,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** `start --id=matrix ok.two-questions.md`. */
export const START = ["start", `--id=${RUN}`, DOCUMENT] as const;

/** The answer the reference run gives to a suspension (ids are `first-…`, `second-…`). */
export function answerFor(suspensionId: string): JsonValue {
  if (suspensionId.startsWith("first-")) return { ok: true };
  if (suspensionId.startsWith("second-")) return "hi";
  throw new Error(`Unexpected suspension ${suspensionId}`);
}

/** `answer matrix <id> <json>` with the reference answer. */
export function answerArgs(suspensionId: string): string[] {
  return ["answer", RUN, suspensionId, JSON.stringify(answerFor(suspensionId))];
}

/** Asserts a refusal as a user sees it: exit 1, one `xmd: …` line, no stack trace. */
export function assertRefused(outcome: Outcome, message: RegExp): void {
  assert.equal(outcome.signal, null, outcome.stderr);
  assert.equal(outcome.code, 1, outcome.stderr);
  assert.ok(!/internal error|\n\s+at /.test(outcome.stderr), `stack trace:\n${outcome.stderr}`);
  const lines = outcome.stderr.split("\n").filter((line) => line.startsWith("xmd: "));
  assert.equal(lines.length, 1, outcome.stderr);
  assert.ok(message.test(lines[0]), `${lines[0]} does not match ${message}`);
}

/** The run database's files: the main file, the WAL and the wal-index (empty when absent). */
export interface DatabaseFiles {
  /** The main file. */
  main: Uint8Array;
  /** The `-wal` file, or an empty array when there is none. */
  wal: Uint8Array;
  /** The `-shm` file (the wal-index), or an empty array when there is none. */
  shm: Uint8Array;
}

/** The database path of `RUN` under `runs`. */
export function runPath(runs: string): string {
  return new LocalWorkflowHost(runs).pathOf(RUN);
}

/** Reads the run database's files. */
export async function readDatabase(runs: string): Promise<DatabaseFiles> {
  return await readDatabaseAt(runPath(runs));
}

/** Reads the files of the run database at `path`. */
export async function readDatabaseAt(path: string): Promise<DatabaseFiles> {
  return {
    main: await readOrEmpty(path),
    wal: await readOrEmpty(`${path}-wal`),
    shm: await readOrEmpty(`${path}-shm`),
  };
}

/** Which of a run database's side files exist (`-wal`, `-shm`, `-journal`). */
export async function sideFiles(path: string): Promise<string[]> {
  const present: string[] = [];
  for (const suffix of ["-wal", "-shm", "-journal"]) {
    try {
      await Deno.stat(`${path}${suffix}`);
      present.push(suffix);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return present;
}

/** Writes `files` as the run database of a fresh runs folder and returns the folder. */
export async function restoreDatabase(files: DatabaseFiles): Promise<string> {
  const runs = await Deno.makeTempDir({ prefix: "xmd-matrix-" });
  const path = runPath(runs);
  await Deno.writeFile(path, files.main);
  if (files.wal.length > 0) await Deno.writeFile(`${path}-wal`, files.wal);
  if (files.shm.length > 0) await Deno.writeFile(`${path}-shm`, files.shm);
  return runs;
}

/**
 * The files that differ between two database snapshots, byte for byte; with
 * `shm: false` the wal-index is left out.
 */
export function sameFiles(
  a: DatabaseFiles,
  b: DatabaseFiles,
  { shm = true }: { shm?: boolean } = {},
): string[] {
  const differs: string[] = [];
  if (!equalBytes(a.main, b.main)) differs.push("main file");
  if (!equalBytes(a.wal, b.wal)) differs.push("-wal");
  if (shm && !equalBytes(a.shm, b.shm)) differs.push("-shm");
  return differs;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

async function readOrEmpty(path: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return new Uint8Array();
    throw error;
  }
}

/** A journal event without its id and commit time, as compared across runs. */
export function eventsOf(history: { events: { event: JournalEvent }[] }): JournalEvent[] {
  return history.events.map((entry) => entry.event);
}

/** The uninterrupted reference run and its database after each command. */
export interface Reference {
  /** After `start` (suspended at the first question). */
  suspendedFirst: DatabaseFiles;
  /** After answering the first question. */
  answeredFirst: DatabaseFiles;
  /** After the first `resume` (suspended at the second question). */
  suspendedSecond: DatabaseFiles;
  /** After answering the second question. */
  answeredSecond: DatabaseFiles;
  /** After the `resume` that completed the run. */
  completed: DatabaseFiles;
  /** The suspension ids, in order. */
  suspensions: [string, string];
  /** stdout of the `resume` that completed the run. */
  output: string;
  /** The completed journal. */
  events: JournalEvent[];
}

let reference: Promise<Reference> | undefined;

/** Runs the reference once per test process (every command a real subprocess). */
export function referenceRun(): Promise<Reference> {
  reference ??= buildReference();
  return reference;
}

async function buildReference(): Promise<Reference> {
  const runs = await Deno.makeTempDir({ prefix: "xmd-reference-" });
  const host = new LocalWorkflowHost(runs);
  const pendingId = async () => (await host.inspect(RUN)).pendingSuspension!.suspensionId;

  assert.equal((await workflow(runs, START)).code, 2);
  const suspendedFirst = await readDatabase(runs);
  const first = await pendingId();
  assert.equal((await workflow(runs, answerArgs(first))).code, 0);
  const answeredFirst = await readDatabase(runs);
  assert.equal((await workflow(runs, ["resume", RUN])).code, 2);
  const suspendedSecond = await readDatabase(runs);
  const second = await pendingId();
  assert.equal((await workflow(runs, answerArgs(second))).code, 0);
  const answeredSecond = await readDatabase(runs);
  const done = await workflow(runs, ["resume", RUN]);
  assert.equal(done.code, 0, done.stderr);
  const completed = await readDatabase(runs);
  const replay = await workflow(runs, ["resume", RUN]);
  assert.equal(replay.code, 0, replay.stderr);
  assert.equal(replay.stdout, done.stdout, "a completed replay prints the same output");
  assert.ok(done.stdout.includes("Done: hi."), done.stdout);
  for (const files of [suspendedFirst, answeredFirst, suspendedSecond, answeredSecond, completed]) {
    assert.equal(files.wal.length, 0, "a cleanly closed database leaves no WAL");
    assert.equal(files.shm.length, 0, "a cleanly closed database leaves no wal-index");
  }
  const events = eventsOf(await host.history(RUN));
  await Deno.remove(runs, { recursive: true });
  return {
    suspendedFirst,
    answeredFirst,
    suspendedSecond,
    answeredSecond,
    completed,
    suspensions: [first, second],
    output: done.stdout,
    events,
  };
}

/**
 * Run databases whose committed state lives partly in a write-ahead log: each
 * is what a command killed (SIGKILL) right after a commit leaves, before any
 * checkpoint, with its wal-index.
 */
export interface WalReference {
  /** `start` killed right after creating the run: the creation is the log's one transaction. */
  created: DatabaseFiles;
  /** `start` killed right after settling `suspended`: the whole run is in the log. */
  suspendedFirst: DatabaseFiles;
  /** `answer` killed right after storing the answer to a run at rest (`suspendedFirst`). */
  answeredFirst: DatabaseFiles;
}

let walReference: Promise<WalReference> | undefined;

/** Builds the WAL reference once per test process (every command a real, killed subprocess). */
export function walReferenceRun(): Promise<WalReference> {
  walReference ??= buildWalReference();
  return walReference;
}

async function buildWalReference(): Promise<WalReference> {
  const reference = await referenceRun();
  const killed = async (from: DatabaseFiles | null, args: readonly string[], point: string) => {
    const runs = from
      ? await restoreDatabase(from)
      : await Deno.makeTempDir({ prefix: "xmd-wal-" });
    const outcome = await workflow(runs, args, { XMD_FAILPOINT: point });
    assert.equal(outcome.signal, "SIGKILL", `${point} did not fire:\n${outcome.stderr}`);
    const files = await readDatabase(runs);
    assert.ok(files.wal.length > 0 && files.shm.length > 0, `${point} left no WAL`);
    await Deno.remove(runs, { recursive: true });
    return files;
  };
  return {
    created: await killed(null, START, "create:after"),
    suspendedFirst: await killed(null, START, "settle:after"),
    answeredFirst: await killed(
      reference.suspendedFirst,
      answerArgs(reference.suspensions[0]),
      "store-answer:after",
    ),
  };
}

/** The fixture document loaded as `start` loads it. */
export async function fixtureProgram(): Promise<Program> {
  return await loadProgram(
    { file: DOCUMENT, text: await Deno.readTextFile(join(TESTDATA, DOCUMENT)) },
    async (label) => {
      try {
        return await Deno.readTextFile(join(TESTDATA, label));
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return undefined;
        throw error;
      }
    },
  );
}

/** Execution io that discards everything. */
export function quietIo(): ExecutionIo {
  return {
    stdout: () => {},
    stderr: () => {},
    onRun: () => {},
    signal: new AbortController().signal,
  };
}

/** Runs `task` over `items`, at most `limit` at once; every failure is reported with its item's name. */
export async function eachConcurrently<T>(
  items: readonly T[],
  limit: number,
  name: (item: T) => string,
  task: (item: T) => Promise<void>,
): Promise<void> {
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      try {
        await task(item);
      } catch (error) {
        failures.push(`${name(item)}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.length > 0) {
    throw new Error(`${failures.length} of ${items.length} failed:\n\n${failures.join("\n\n")}`);
  }
}
