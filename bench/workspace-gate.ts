/**
 * The secret gate on what effects write into the Workspace, on against off,
 * through the executor's live effect path (`_workspace-effect.ts`: the held
 * transaction, the gate on the event and on the effect's new chunks and
 * names, `publishRoot`, `RunStore.append`, `COMMIT` with `synchronous=FULL`):
 *
 * - a `<File>` effect writing 1 KiB of new text;
 * - a `<File>` effect writing 1 MiB of new text (build-log lines);
 * - one exec effect whose block writes 10,000 small files, each a new name
 *   and a new chunk, into a new directory: the block's Workspace requests
 *   are served in the held transaction, one savepoint each, as Worker Shell's
 *   host serves them, without the Worker (its message round trips are the
 *   same with the gate on or off and would only dilute the difference).
 *
 * Each pair runs on two run databases in one folder, interleaved. `main.ts`
 * runs it with the other benchmarks; `deno task bench workspace-gate` runs it
 * alone and prints its table.
 *
 * Invariant: every call writes content and names no earlier call wrote (so
 * the gate scans them: repeated chunks and names are never scanned twice),
 * and each run is verified afterwards, so a call that did not commit fails
 * the benchmark instead of timing it.
 *
 * @module
 */
import { createSecretGate, type Description, disabledSecretGate, sha256Hex } from "@xmd/core";
import {
  fixed,
  type InterleavedBudget,
  markdownTable,
  sampleInterleaved,
  summarize,
  type Summary,
} from "./_stats.ts";
import { temporaryDirectory } from "./_journal-fixture.ts";
import { type EffectRun, openEffectRun } from "./_workspace-effect.ts";

/** Files the block writes. */
export const BLOCK_FILES = 10_000;

const KIB = 1024;
const MIB = 1024 * KIB;

/** One measured pair. */
export interface WorkspaceGateRow {
  /** What one call does. */
  name: string;
  /** With the gate on. */
  on: Summary;
  /** With the gate off (`--no-secret-detection`). */
  off: Summary;
  /** on ÷ off, medians. */
  ratio: number;
}

const SMALL_BUDGET: InterleavedBudget = {
  warmupCalls: 10,
  blockSize: 10,
  minSamples: 100,
  budgetMs: 6_000,
  maxSamples: 600,
};
const LARGE_BUDGET: InterleavedBudget = {
  warmupCalls: 3,
  blockSize: 5,
  minSamples: 20,
  budgetMs: 8_000,
  maxSamples: 100,
};
const BLOCK_BUDGET: InterleavedBudget = {
  warmupCalls: 1,
  blockSize: 1,
  minSamples: 5,
  budgetMs: 20_000,
  maxSamples: 15,
};

const encoder = new TextEncoder();

/** `bytes` of build-log text, different for each `call`. */
function logText(call: number, bytes: number): string {
  const line = (n: number) =>
    `[${String(n).padStart(7, "0")}] compiling module ${n % 97} of the build, call ${call}\n`;
  const lines: string[] = [];
  let length = 0;
  for (let n = 0; length < bytes; n++) {
    const next = line(n);
    lines.push(next);
    length += next.length;
  }
  return lines.join("").slice(0, bytes);
}

/** One `<File>` write effect of `bytes` new bytes on `run`. */
async function fileEffect(run: EffectRun, call: number, bytes: number): Promise<void> {
  const content = logText(call, bytes);
  const path = "out/build.log";
  const description: Description = {
    type: "file.write",
    name: "File bench.md:3:1",
    path,
    sha256: sha256Hex(content),
  };
  const settled = await run.journal.effect("root", description, async () => {
    await run.fs.writeText(path, content);
    return { status: "ok", value: null };
  });
  if (settled.replayed || settled.result.status !== "ok") {
    throw new Error("Cannot benchmark a <File> effect: it did not run live and succeed");
  }
}

/** One exec effect whose block writes `BLOCK_FILES` new files into `/b<call>/`. */
async function blockEffect(run: EffectRun, call: number): Promise<void> {
  const description: Description = {
    type: "exec",
    name: "exec bench.md:5:1",
    lang: "sh",
    script: `mkdir b${call} && for i in $(seq ${BLOCK_FILES}); do echo "$i" > b${call}/f$i; done`,
  };
  const sql = run.store.sql;
  const shell = run.wrapShell({
    run: () => {
      sql.transaction(() => run.workspace.mkdir(`/b${call}`));
      for (let i = 0; i < BLOCK_FILES; i++) {
        sql.transaction(() =>
          run.workspace.writeFile(`/b${call}/f${i}`, encoder.encode(`file ${call}/${i}\n`))
        );
      }
      return Promise.resolve({ exitCode: 0, stdout: "", stderr: "", timedOut: false });
    },
  });
  const settled = await run.journal.effect("root", description, async () => {
    const result = await shell.run({
      lang: "sh",
      script: String(description.script),
      cwd: ".",
      timeoutMs: 60_000,
      onStdout: () => {},
      onStderr: () => {},
      signal: new AbortController().signal,
    });
    return {
      status: "ok",
      value: { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr },
    };
  });
  if (settled.replayed || settled.result.status !== "ok") {
    throw new Error("Cannot benchmark a block effect: it did not run live and succeed");
  }
}

async function pair(
  dir: string,
  file: string,
  name: string,
  effect: (run: EffectRun, call: number) => Promise<void>,
  budget: InterleavedBudget,
): Promise<WorkspaceGateRow> {
  using on = await openEffectRun(`${dir}/${file}-on.sqlite`, createSecretGate());
  using off = await openEffectRun(`${dir}/${file}-off.sqlite`, disabledSecretGate);
  let calls = 0;
  const [onSamples, offSamples] = await sampleInterleaved(
    [() => effect(on, ++calls), () => effect(off, ++calls)],
    budget,
  );
  on.verify();
  off.verify();
  const row = { name, on: summarize(onSamples), off: summarize(offSamples), ratio: 0 };
  row.ratio = row.on.medianMs / row.off.medianMs;
  console.error(
    `  ${name}: gate on ${fixed(row.on.medianMs, 3)} ms, off ${fixed(row.off.medianMs, 3)} ms (${
      fixed(row.ratio, 2)
    }×), n=${row.on.n}`,
  );
  return row;
}

/** Runs the three pairs in a temporary folder. */
export async function runWorkspaceGate(): Promise<WorkspaceGateRow[]> {
  await using dir = await temporaryDirectory();
  return [
    await pair(
      dir.path,
      "kib",
      "<File> effect, 1 KiB of new text",
      (run, call) => fileEffect(run, call, KIB),
      SMALL_BUDGET,
    ),
    await pair(
      dir.path,
      "mib",
      "<File> effect, 1 MiB of new text (one chunk)",
      (run, call) => fileEffect(run, call, MIB),
      LARGE_BUDGET,
    ),
    await pair(
      dir.path,
      "block",
      `exec effect writing ${fixed(BLOCK_FILES, 0)} small files (new names and chunks)`,
      blockEffect,
      BLOCK_BUDGET,
    ),
  ];
}

/** The pairs as a Markdown table. */
export function workspaceGateTable(rows: readonly WorkspaceGateRow[]): string {
  return markdownTable(
    ["effect", "gate on, median ms", "gate off, median ms", "on − off ms", "on ÷ off", "samples"],
    rows.map((row) => [
      row.name,
      fixed(row.on.medianMs, 3),
      fixed(row.off.medianMs, 3),
      fixed(row.on.medianMs - row.off.medianMs, 3),
      `${fixed(row.ratio, 2)}×`,
      String(row.on.n),
    ]),
    "lrrrrr",
  );
}
