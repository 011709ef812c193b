/**
 * Test support for the Workspace crash and corruption matrices: the fixture
 * whose effects change the Workspace (`<File>` writes, sh blocks that write
 * several files, a `<File as>` read, a `<Glob>`, an `<Elicit>` between them),
 * and its uninterrupted reference run with the database after each command.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { JournalEvent } from "@xmd/core";
import {
  type DatabaseFiles,
  type Outcome,
  readDatabase,
  RUN,
  workflow,
} from "./_test-workflow-cli.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";

/**
 * `start --id=matrix ok.workspace-effects.md`: two `<File>` writes and a block
 * writing three files, a question, then a write, a block, a read and a glob.
 */
export const START_EFFECTS = ["start", `--id=${RUN}`, "ok.workspace-effects.md"] as const;

/** The answer every run of the fixture gets. */
export const ANSWER = { ok: true };

/** A committed event and the Workspace root current after it. */
export interface RootedEvent {
  /** The Workspace root id after the event. */
  root: string;
  /** The event. */
  event: JournalEvent;
}

/** The uninterrupted reference run of the fixture. */
export interface WorkspaceReference {
  /** Suspended at the question after three Workspace effects, and answered. */
  answered: DatabaseFiles;
  /** After the `resume` that completed the run. */
  completed: DatabaseFiles;
  /** The question's suspension id. */
  suspensionId: string;
  /** stdout of the completing `resume`. */
  output: string;
  /** The completed journal with the root after each event. */
  events: RootedEvent[];
  /** The run's final root. */
  root: string;
}

/** The journal of a run with the root after each event. */
export async function rootedEvents(runs: string): Promise<RootedEvent[]> {
  const history = await new LocalWorkflowHost(runs).history(RUN);
  return history.events.map(({ root, event }) => ({ root, event }));
}

/** Asserts a command exited with `code` on its own (not killed). */
export function assertExit(outcome: Outcome, code: number): void {
  assert.equal(outcome.signal, null, outcome.stderr);
  assert.equal(outcome.code, code, outcome.stderr);
}

let reference: Promise<WorkspaceReference> | undefined;

/** Runs the reference once per test module (every command a real subprocess). */
export function workspaceReference(): Promise<WorkspaceReference> {
  reference ??= buildReference();
  return reference;
}

async function buildReference(): Promise<WorkspaceReference> {
  const runs = await Deno.makeTempDir({ prefix: "xmd-ws-reference-" });
  try {
    const host = new LocalWorkflowHost(runs);
    assertExit(await workflow(runs, START_EFFECTS), 2);
    const suspensionId = (await host.inspect(RUN)).pendingSuspension!.suspensionId;
    assertExit(await workflow(runs, ["answer", RUN, suspensionId, JSON.stringify(ANSWER)]), 0);
    const answered = await readDatabase(runs);
    const done = await workflow(runs, ["resume", RUN]);
    assertExit(done, 0);
    const completed = await readDatabase(runs);
    for (const files of [answered, completed]) {
      assert.equal(files.wal.length, 0, "a cleanly closed database leaves no WAL");
    }
    const events = await rootedEvents(runs);
    const { record } = await host.inspect(RUN);
    assert.equal(record.root, events.at(-1)!.root);
    // The fixture changes the Workspace before and after the question.
    assert.ok(new Set(events.map((entry) => entry.root)).size > 4);
    assert.ok(done.stdout.includes("AB: alphabetathree\ngamma true"), done.stdout);
    return {
      answered,
      completed,
      suspensionId,
      output: done.stdout,
      events,
      root: record.root,
    };
  } finally {
    await Deno.remove(runs, { recursive: true });
  }
}
