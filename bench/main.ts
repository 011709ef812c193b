/**
 * `deno task bench`: measures, in one run, the completed replay of journals
 * of 1,000 to 10,000 effects and its floor (reading and `JSON.parse` of the
 * same file), one durable effect on the local workflow host against a bare
 * SQLite commit on the same disk, the end-to-end startup of
 * `xmd workflow start` against `xmd run` and `deno eval`, and the Workspace:
 * incremental root publication against a full rehash, a `<File>` effect on a
 * 10,000-file Workspace against an empty one, a warm Worker Shell effect and
 * where its time goes, write/read throughput, and verification before resume
 * on a 10,000-event run, and the remote host against workerd (`remote.ts`:
 * a remote `<File>` effect against a local one, bytes sent for a one-file
 * change, acquisition of 1,000 and 10,000 files); then writes
 * `bench/results/latest.md` and `latest.json` and prints the tables.
 *
 * Invariant: ratios are taken between figures of the same run only, since
 * absolute times vary between machines (QUALITY.md, Benchmarks).
 *
 * @module
 */
import { type JournalFixture, recordJournal, temporaryDirectory } from "./_journal-fixture.ts";
import {
  fixed,
  type InterleavedBudget,
  markdownTable,
  quantile,
  sample,
  type SampleBudget,
  sampleInterleaved,
  summarize,
  type Summary,
} from "./_stats.ts";
import { openDurableEffectFixture, PAYLOAD_BYTES } from "./durable-effect.ts";
import { parseLinesOnce } from "./json-parse-floor.ts";
import { readJournalOnce, type ReplayLinearity, type ReplayRow, sampleReplays } from "./replay.ts";
import {
  createStartupFixture,
  LARGE as LARGE_DOCUMENT,
  largeDocumentChecks,
  parseLargeDocument,
  STARTUP,
  startupChecks,
} from "./startup.ts";
import {
  EFFECT_BYTES,
  LARGE,
  openFileEffectFixture,
  openPublicationFixture,
  openThroughputFixture,
  sampleTimed,
  THROUGHPUT,
} from "./workspace.ts";
import { LONG_STEPS, runStepPeers, type StepPeerRow, STEPS, TARGET_PEER_SPEEDUP } from "./peers.ts";
import { runStepCli, stepCliChecks, stepCliTable } from "./step-cli.ts";
import { STEP_BYTES } from "./workflow-steps.ts";
import { LOOP_COMMANDS, openWorkerShellFixture, SCRIPT } from "./worker-shell.ts";
import { BLOCK_FILES, runWorkspaceGate, workspaceGateTable } from "./workspace-gate.ts";
import { FILES, openVerifyRunFixture } from "./verify-run.ts";
import {
  contentSizes,
  runScale,
  SCALE_SAMPLES,
  scaleSizes,
  scaleTable,
  TARGET_SCALE_GROWTH,
  writeSizes,
} from "./scale.ts";
import { remoteTables, runRemote } from "./remote.ts";

const SIZES = [1_000, 2_500, 5_000, 10_000] as const;
const LARGEST = SIZES[SIZES.length - 1];
const SMALLEST = SIZES[0];
const TARGET_US_PER_EVENT = 20;

const BUDGET: SampleBudget = {
  warmupCalls: 5,
  warmupMs: 1_000,
  minSamples: 30,
  budgetMs: 5_000,
  maxSamples: 5_000,
};
const PEER_BUDGET: SampleBudget = { ...BUDGET, budgetMs: 3_000 };
/** Completed replays: one call of each size per round, 40 rounds at least. */
const REPLAY_BUDGET: InterleavedBudget = {
  warmupCalls: 5,
  blockSize: 1,
  minSamples: 40,
  budgetMs: 20_000,
  maxSamples: 400,
};
/** Durable effect vs bare commit: alternating blocks of 25, several hundred each. */
const EFFECT_BUDGET: InterleavedBudget = {
  warmupCalls: 50,
  blockSize: 25,
  minSamples: 500,
  budgetMs: 8_000,
  maxSamples: 2_000,
};
/** Startup: one subprocess of each in turn, 18 each. */
const STARTUP_BUDGET: InterleavedBudget = {
  warmupCalls: 2,
  blockSize: 1,
  minSamples: 18,
  budgetMs: 0,
  maxSamples: 18,
};
const TARGET_EFFECT_RATIO = 3;
/** The in-process `<File>` effect ÷ the bare commit (issue 12, target 1). */
const TARGET_FILE_EFFECT_RATIO = 1.7;
const TARGET_PUBLICATION_RATIO = 0.02;
/** "Close to 1×": the same bound as replay linearity. */
const TARGET_LARGE_WORKSPACE_RATIO = 1.25;
const TARGET_SHELL_P50_MS = 10;
/** Publication: a full rehash is slow, a one-file change fast; time-boxed each. */
const FULL_REHASH_BUDGET = { warmupCalls: 1, minSamples: 7, maxSamples: 30, budgetMs: 2_500 };
const INCREMENTAL_BUDGET = { warmupCalls: 20, minSamples: 200, maxSamples: 2_000, budgetMs: 2_000 };
/** `<File>` effects: large, empty and bare interleaved in blocks of 25. */
const FILE_EFFECT_BUDGET: InterleavedBudget = {
  warmupCalls: 25,
  blockSize: 25,
  minSamples: 300,
  budgetMs: 8_000,
  maxSamples: 1_500,
};
/** Worker Shell: the effect and its parts interleaved in blocks of 10. */
const SHELL_BUDGET: InterleavedBudget = {
  warmupCalls: 20,
  blockSize: 10,
  minSamples: 200,
  budgetMs: 10_000,
  maxSamples: 1_000,
};
/** Throughput: a few passes over 64 MiB. */
const THROUGHPUT_BUDGET: SampleBudget = {
  warmupCalls: 1,
  warmupMs: 0,
  minSamples: 3,
  budgetMs: 0,
  maxSamples: 3,
};

/** One timed function of an interleaved comparison. */
interface PeerRow {
  name: string;
  summary: Summary;
  /** Its median over the comparison's reference (the bare commit, or `deno eval`). */
  overReference: number;
  /**
   * The quartiles of its calls' ratios to the reference's calls of the same
   * round (interleaved, so each pair met the same machine): the ratio's
   * spread. Rows that were not sampled in rounds have none.
   */
  roundRatios?: { p25: number; p75: number };
}

async function compare(
  fns: readonly { name: string; fn: () => Promise<void> | void }[],
  reference: string,
  budget: InterleavedBudget,
): Promise<PeerRow[]> {
  const samples = await sampleInterleaved(fns.map((entry) => entry.fn), budget);
  const summaries = samples.map(summarize);
  const referenceIndex = fns.findIndex((entry) => entry.name === reference);
  const base = summaries[referenceIndex].medianMs;
  return fns.map((entry, index) => {
    const summary = summaries[index];
    console.error(
      `  ${entry.name}: median ${fixed(summary.medianMs, 3)} ms, p99 ${
        fixed(summary.p99Ms, 3)
      } ms, n=${summary.n}`,
    );
    const reference = samples[referenceIndex].ms;
    const ratios = samples[index].ms.map((ms, call) => ms / reference[call]);
    return {
      name: entry.name,
      summary,
      overReference: summary.medianMs / base,
      roundRatios: { p25: quantile(ratios, 0.25), p75: quantile(ratios, 0.75) },
    };
  });
}

/** A table of `compare` rows, each with its ratio to `reference`. */
function peerTable(peerRows: readonly PeerRow[], reference: string, percent = false): string {
  return markdownTable(
    [
      "what",
      "median ms",
      "p99 ms",
      "min ms",
      "samples",
      `${percent ? "% of" : "×"} ${reference} (median)`,
    ],
    peerRows.map((row) => [
      row.name,
      fixed(row.summary.medianMs, 3),
      fixed(row.summary.p99Ms, 3),
      fixed(row.summary.minMs, 3),
      String(row.summary.n),
      percent ? `${fixed(row.overReference * 100, 2)}%` : fixed(row.overReference, 2),
    ]),
    "lrrrrr",
  );
}

/** The peers table of one step count: xmd first, each engine's ratio to it. */
function stepPeersTable(rows: readonly StepPeerRow[]): string {
  return markdownTable(
    ["engine", "median ms / workflow", "p99 ms", "median ms / step", "samples", "× xmd (median)"],
    rows.map((row) => [
      row.name,
      fixed(row.summary.medianMs, 1),
      fixed(row.summary.p99Ms, 1),
      fixed(row.perStepMs, 2),
      String(row.summary.n),
      fixed(row.overXmd, 2),
    ]),
    "lrrrrr",
  );
}

/**
 * The peer checks: the 50-step workflow's speed-up over the fastest peer
 * (target), and each peer's ratio at 50 and 500 steps (context).
 */
function peerChecks(short: readonly StepPeerRow[], long: readonly StepPeerRow[]): string[][] {
  const fastest = Math.min(...short.slice(1).map((row) => row.overXmd));
  return [
    [
      `a ${STEPS}-step workflow: the fastest peer ÷ xmd, median`,
      `${fixed(fastest, 2)}×`,
      `≥ ${TARGET_PEER_SPEEDUP}×`,
      fastest >= TARGET_PEER_SPEEDUP ? "yes" : "no",
    ],
    ...[...short.slice(1), ...long.slice(1)].map((row, index) => [
      `${row.name} ÷ xmd, a ${index < short.length - 1 ? STEPS : LONG_STEPS}-step workflow, median`,
      `${fixed(row.overXmd, 2)}×`,
      "(context)",
      "",
    ]),
    [
      `xmd per step at ${LONG_STEPS} steps (median ÷ steps)`,
      `${fixed(long[0].perStepMs, 3)} ms`,
      "(context)",
      "",
    ],
  ];
}

/**
 * The in-process `<File>` effect's checks: its median ÷ the bare commit's, in
 * one comparison (target), and the same of their fastest calls (context: the
 * least disk wait, where CPU time shows).
 */
function fileEffectChecks(rows: readonly PeerRow[]): string[][] {
  const summary = (name: string) => rows.find((row) => row.name === name)!.summary;
  const ratio = summary(FILE_EFFECT.empty).medianMs / summary(FILE_EFFECT.bare).medianMs;
  return [
    [
      "<File> effect (1 KiB, Workspace, gate on) ÷ bare SQLite commit, median",
      `${fixed(ratio, 2)}×`,
      `≤ ${TARGET_FILE_EFFECT_RATIO}×`,
      ratio <= TARGET_FILE_EFFECT_RATIO ? "yes" : "no",
    ],
    [
      "<File> effect ÷ bare SQLite commit, fastest calls (least disk wait)",
      `${fixed(summary(FILE_EFFECT.empty).minMs / summary(FILE_EFFECT.bare).minMs, 2)}×`,
      "(context)",
      "",
    ],
  ];
}

interface Row {
  name: string;
  effects: number;
  /** Journal lines: the props Yield, the effects' Yields and the root Close. */
  events: number;
  summary: Summary;
  usPerEvent: number;
}

async function measure(
  name: string,
  fixture: JournalFixture,
  fn: (fixture: JournalFixture) => Promise<void>,
  budget: SampleBudget,
): Promise<Row> {
  const summary = summarize(await sample(() => fn(fixture), budget));
  const events = fixture.events;
  const row = {
    name,
    effects: fixture.effects,
    events,
    summary,
    usPerEvent: summary.medianMs * 1_000 / events,
  };
  console.error(
    `  ${name} (${fixture.effects}): ${fixed(row.usPerEvent, 2)} µs/event, n=${summary.n}`,
  );
  return row;
}

/** The completed replays (interleaved), the journal read alone and its floor. */
interface ReplayResult {
  replays: ReplayRow[];
  linearity: ReplayLinearity;
  /** The journal read alone and the floor, at the largest size. */
  rows: Row[];
  fixtures: JournalFixture[];
}

async function run(): Promise<ReplayResult> {
  await using dir = await temporaryDirectory();
  const fixtures: JournalFixture[] = [];
  for (const size of SIZES) fixtures.push(await recordJournal(dir.path, size));
  const largest = fixtures.find((fixture) => fixture.effects === LARGEST)!;
  const { rows: replays, linearity } = await sampleReplays(fixtures, REPLAY_BUDGET);
  for (const row of replays) {
    console.error(
      `  completed replay (${row.effects}): ${fixed(row.usPerEvent, 2)} µs/event, CPU ${
        fixed(row.cpuUsPerEvent, 2)
      }, n=${row.summary.n}`,
    );
  }
  const rows: Row[] = [];
  rows.push(
    await measure(
      "journal read only (read, JSON.parse, zod)",
      largest,
      readJournalOnce,
      PEER_BUDGET,
    ),
  );
  rows.push(
    await measure("floor: read + JSON.parse per line", largest, parseLinesOnce, PEER_BUDGET),
  );
  return { replays, linearity, rows, fixtures };
}

/** The replay rows, the journal read and the floor, as one table. */
function replayTable({ replays, rows }: ReplayResult): string {
  const floor = rows[rows.length - 1];
  const overFloor = (summary: Summary, effects: number) =>
    effects === LARGEST ? fixed(summary.medianMs / floor.summary.medianMs, 1) : "";
  return markdownTable(
    [
      "what",
      "effects",
      "events",
      "median ms",
      "p99 ms",
      "µs/event (median)",
      "µs/event p25–p75",
      "CPU µs/event",
      "samples",
      "× floor",
    ],
    [
      ...replays.map((row) => [
        "completed replay",
        fixed(row.effects, 0),
        fixed(row.events, 0),
        fixed(row.summary.medianMs, 2),
        fixed(row.summary.p99Ms, 2),
        fixed(row.usPerEvent, 2),
        `${fixed(row.usPerEventQuartiles[0], 2)}–${fixed(row.usPerEventQuartiles[1], 2)}`,
        fixed(row.cpuUsPerEvent, 2),
        String(row.summary.n),
        overFloor(row.summary, row.effects),
      ]),
      ...rows.map((row) => [
        row.name,
        fixed(row.effects, 0),
        fixed(row.events, 0),
        fixed(row.summary.medianMs, 2),
        fixed(row.summary.p99Ms, 2),
        fixed(row.usPerEvent, 2),
        "",
        "",
        String(row.summary.n),
        overFloor(row.summary, row.effects),
      ]),
    ],
    "lrrrrrrrrr",
  );
}

/** The replay's checks: its cost per event at the largest size and its linearity. */
function replayChecks({ replays, linearity, rows }: ReplayResult): string[][] {
  const largest = replays.find((row) => row.effects === LARGEST)!;
  const floor = rows[rows.length - 1];
  return [
    [
      `completed replay, ${fixed(LARGEST, 0)} effects`,
      `${fixed(largest.usPerEvent, 2)} µs/event`,
      `< ${TARGET_US_PER_EVENT} µs/event`,
      largest.usPerEvent < TARGET_US_PER_EVENT ? "yes" : "no",
    ],
    [
      `linearity: µs/event at ${fixed(LARGEST, 0)} ÷ at ${fixed(SMALLEST, 0)} (interleaved)`,
      `${fixed(linearity.wall, 2)} (CPU ${fixed(linearity.cpu, 2)}; round by round p10–p90 ${
        fixed(linearity.rounds[0], 2)
      }–${fixed(linearity.rounds[1], 2)})`,
      "≈ 1.0 (< 1.25)",
      linearity.wall < 1.25 ? "yes" : "no",
    ],
    [
      `replay ÷ floor at ${fixed(LARGEST, 0)}`,
      `${fixed(largest.summary.medianMs / floor.summary.medianMs, 1)}×`,
      "(context)",
      "",
    ],
  ];
}

const EFFECT = {
  gated: "xmd effect: Journal.effect → secret gate → RunStore.append",
  ungated: "xmd effect, secret gate off: Journal.effect → RunStore.append",
  gate: "secret gate check only (no I/O)",
  bare: "peer: bare node:sqlite BEGIN IMMEDIATE + INSERT + COMMIT",
} as const;

async function runDurableEffect(): Promise<{ rows: PeerRow[]; eventBytes: number }> {
  await using dir = await temporaryDirectory();
  using fixture = await openDurableEffectFixture(dir.path);
  const rows = await compare(
    [
      { name: EFFECT.gated, fn: fixture.effectWithGate },
      { name: EFFECT.ungated, fn: fixture.effectWithoutGate },
      { name: EFFECT.gate, fn: fixture.gateOnly },
      { name: EFFECT.bare, fn: fixture.bareCommit },
    ],
    EFFECT.bare,
    EFFECT_BUDGET,
  );
  fixture.verify();
  return { rows, eventBytes: fixture.eventBytes };
}

async function runStartup(): Promise<PeerRow[]> {
  await using dir = await temporaryDirectory();
  const fixture = await createStartupFixture(dir.path);
  return await compare(
    [
      { name: STARTUP.workflow, fn: fixture.workflowStart },
      { name: STARTUP.run, fn: fixture.run },
      { name: STARTUP.runHello, fn: fixture.runHello },
      { name: STARTUP.workflowHello, fn: fixture.workflowStartHello },
      { name: STARTUP.help, fn: fixture.help },
      { name: STARTUP.list, fn: fixture.list },
      { name: STARTUP.status, fn: fixture.status },
      { name: STARTUP.eval, fn: fixture.denoEval },
    ],
    STARTUP.eval,
    STARTUP_BUDGET,
  );
}

/**
 * The large document: `xmd run` and `xmd workflow start` of it in turn, 24 each (8 left the
 * ratio of medians moving by ±0.05 between runs on this 2-CPU machine), and its parse.
 */
async function runLargeDocument() {
  await using dir = await temporaryDirectory();
  const fixture = await createStartupFixture(dir.path);
  const rows = await compare(
    [
      { name: LARGE_DOCUMENT.run, fn: fixture.runLarge },
      { name: LARGE_DOCUMENT.workflow, fn: fixture.workflowStartLarge },
    ],
    LARGE_DOCUMENT.run,
    { warmupCalls: 1, blockSize: 1, minSamples: 24, budgetMs: 0, maxSamples: 24 },
  );
  return { rows, parse: await parseLargeDocument() };
}

const PUBLICATION = {
  incremental: "publishRoot after changing one file",
  full: "publishRoot after forgetHashes (full rehash)",
} as const;

function runPublication(): { rows: PeerRow[]; files: number } {
  using fixture = openPublicationFixture();
  const full = summarize(sampleTimed(fixture.full, FULL_REHASH_BUDGET));
  const incremental = summarize(sampleTimed(fixture.incremental, INCREMENTAL_BUDGET));
  const rows = [
    { name: PUBLICATION.incremental, summary: incremental },
    { name: PUBLICATION.full, summary: full },
  ].map((row) => ({ ...row, overReference: row.summary.medianMs / full.medianMs }));
  for (const row of rows) {
    console.error(
      `  ${row.name}: median ${fixed(row.summary.medianMs, 3)} ms, n=${row.summary.n}`,
    );
  }
  return { rows, files: fixture.files };
}

const FILE_EFFECT = {
  large: `<File> write effect, ${fixed(LARGE.dirs * LARGE.files, 0)}-file Workspace`,
  empty: "<File> write effect, Workspace holding only that file",
  bare: "peer: bare node:sqlite BEGIN IMMEDIATE + INSERT + COMMIT",
} as const;

async function runFileEffect(): Promise<PeerRow[]> {
  await using dir = await temporaryDirectory();
  using fixture = await openFileEffectFixture(dir.path);
  const rows = await compare(
    [
      { name: FILE_EFFECT.large, fn: fixture.writeLarge },
      { name: FILE_EFFECT.empty, fn: fixture.writeEmpty },
      { name: FILE_EFFECT.bare, fn: fixture.bareCommit },
    ],
    FILE_EFFECT.empty,
    FILE_EFFECT_BUDGET,
  );
  fixture.verify();
  return rows;
}

const SHELL = {
  effect: `Worker Shell effect \`${SCRIPT}\`, warm, committed (FULL)`,
  held: `WorkerShell.run(\`${SCRIPT}\`) in a held transaction on the run, rolled back`,
  alone: `WorkerShell.run(\`${SCRIPT}\`) alone, in-memory Workspace`,
  fileEffect: "<File> write effect on the same run (the effect path without the shell)",
  bare: "peer: bare node:sqlite BEGIN IMMEDIATE + INSERT + COMMIT",
  noFs: "WorkerShell.run(`:`) alone (no filesystem request)",
  roundTrip: "one frame round trip, bare permission-less interpreter process (echo)",
  newBash: "just-bash in this thread: new Bash()",
  bashExec:
    `just-bash in this thread: new Bash() + exec(\`${SCRIPT}\`), in-memory fs, defense-in-depth off`,
  bashDefense: "the same with just-bash's default defense-in-depth (on)",
  loop:
    `WorkerShell.run of ${LOOP_COMMANDS} × \`basename /a/b >/dev/null\` alone, in-memory Workspace`,
  bashLoop:
    `just-bash in this thread: new Bash() + exec of the same ${LOOP_COMMANDS} commands, defense-in-depth off`,
} as const;

async function runWorkerShell(): Promise<
  { rows: PeerRow[]; requests: { messages: number; operations: Record<string, number> } }
> {
  await using dir = await temporaryDirectory();
  await using fixture = await openWorkerShellFixture(dir.path);
  const rows = await compare(
    [
      { name: SHELL.effect, fn: fixture.effect },
      { name: SHELL.fileEffect, fn: fixture.fileEffect },
      { name: SHELL.bare, fn: fixture.bareCommit },
      { name: SHELL.held, fn: fixture.runHeld },
      { name: SHELL.alone, fn: fixture.runAlone },
      { name: SHELL.noFs, fn: fixture.runNoFs },
      { name: SHELL.roundTrip, fn: fixture.roundTrip },
      { name: SHELL.newBash, fn: fixture.newBash },
      { name: SHELL.bashExec, fn: fixture.bashExec },
      { name: SHELL.bashDefense, fn: fixture.bashExecDefense },
      { name: SHELL.loop, fn: fixture.runLoop },
      { name: SHELL.bashLoop, fn: fixture.bashLoop },
    ],
    SHELL.effect,
    SHELL_BUDGET,
  );
  fixture.verify();
  return { rows, requests: fixture.requests };
}

const THROUGHPUT_ROWS = {
  write: "Workspace.writeFile, 1 MiB files, each committed (FULL)",
  read: "Workspace.readFile, 1 MiB files",
  hashCore: "floor: sha256Hex (@xmd/core, JavaScript) of the same bytes",
  hashNative: "peer: node:crypto SHA-256 of the same bytes",
  bare: "floor: bare node:sqlite INSERT of the same blobs, each committed (FULL)",
} as const;

interface ThroughputRow {
  name: string;
  summary: Summary;
  /** 10^6 bytes per second, at the median. */
  mbPerSecond: number;
}

const VERIFY = {
  verify: "resume's verification: open read-only, verify the whole run (WF-45)",
  parse: "floor: open read-only, parse the journal only",
} as const;

async function runVerification(): Promise<{ rows: PeerRow[]; events: number }> {
  await using dir = await temporaryDirectory();
  const fixture = await openVerifyRunFixture(dir.path, LARGEST - 2);
  const rows = await compare(
    [
      { name: VERIFY.verify, fn: fixture.verifyOnce },
      { name: VERIFY.parse, fn: fixture.parseOnce },
    ],
    VERIFY.parse,
    { warmupCalls: 2, blockSize: 3, minSamples: 15, budgetMs: 10_000, maxSamples: 60 },
  );
  return { rows, events: fixture.events };
}

async function runPeers(steps = STEPS): Promise<StepPeerRow[]> {
  await using dir = await temporaryDirectory();
  return await runStepPeers(dir.path, steps);
}

async function runThroughput(): Promise<{ rows: ThroughputRow[]; bytes: number }> {
  await using dir = await temporaryDirectory();
  using fixture = await openThroughputFixture(dir.path);
  const rows: ThroughputRow[] = [];
  for (
    const [name, fn] of [
      [THROUGHPUT_ROWS.write, fixture.write],
      [THROUGHPUT_ROWS.read, fixture.read],
      [THROUGHPUT_ROWS.hashCore, fixture.hashCore],
      [THROUGHPUT_ROWS.hashNative, fixture.hashNative],
      [THROUGHPUT_ROWS.bare, fixture.bareInsert],
    ] as const
  ) {
    const summary = summarize(await sample(fn, THROUGHPUT_BUDGET));
    const mbPerSecond = fixture.bytes / 1e6 / (summary.medianMs / 1_000);
    console.error(`  ${name}: ${fixed(mbPerSecond, 0)} MB/s, n=${summary.n}`);
    rows.push({ name, summary, mbPerSecond });
  }
  return { rows, bytes: fixture.bytes };
}

if (Deno.args[0] === "replay") {
  // `deno task bench replay`: only the completed replay rows, printed, not saved.
  const result = await run();
  console.log(replayTable(result));
  console.log(markdownTable(["check", "measured", "target", "met"], replayChecks(result), "lrrl"));
  Deno.exit(0);
}

if (Deno.args[0] === "scale") {
  // `deno task bench scale`: only the scale rows, printed, not saved.
  console.log(scaleTable(await runScale()));
  Deno.exit(0);
}

if (Deno.args[0] === "workspace-gate") {
  // `deno task bench workspace-gate`: only the secret gate on Workspace writes, printed, not saved.
  console.log(workspaceGateTable(await runWorkspaceGate()));
  Deno.exit(0);
}

if (Deno.args[0] === "remote") {
  // `deno task bench remote`: only the remote host's rows, printed, not saved.
  console.log(remoteTables(await runRemote()));
  Deno.exit(0);
}

if (Deno.args[0] === "startup") {
  // `deno task bench startup`: only the startup rows, printed, not saved.
  const rows = await runStartup();
  for (const row of rows) {
    console.log(
      `${row.name}: median ${fixed(row.summary.medianMs, 1)} ms, p99 ${
        fixed(row.summary.p99Ms, 1)
      } ms, n=${row.summary.n}, ${fixed(row.overReference, 2)}× deno eval`,
    );
  }
  console.log(markdownTable(["check", "measured", "target", "met"], startupChecks(rows), "lrrl"));
  Deno.exit(0);
}

if (Deno.args[0] === "large-document") {
  // `deno task bench large-document`: only the large-document rows, printed, not saved.
  const large = await runLargeDocument();
  console.log(
    markdownTable(
      ["check", "measured", "target", "met"],
      largeDocumentChecks(large.rows, large.parse),
      "lrrl",
    ),
  );
  Deno.exit(0);
}

if (Deno.args[0] === "step") {
  // `deno task bench step`: only the per-step rows (through the CLI, and the in-process
  // `<File>` effect against the bare commit), printed, not saved.
  const cli = await (async () => {
    await using dir = await temporaryDirectory();
    return await runStepCli(dir.path);
  })();
  const effectRows = await runFileEffect();
  console.log(stepCliTable(cli));
  console.log(peerTable(effectRows, "empty Workspace"));
  console.log(
    markdownTable(
      ["check", "measured", "target", "met"],
      [...stepCliChecks(cli), ...fileEffectChecks(effectRows)],
      "lrrl",
    ),
  );
  Deno.exit(0);
}

if (Deno.args[0] === "file-effect") {
  // `deno task bench file-effect`: only the in-process `<File>` effect against the bare commit
  // (the second half of `step`), printed, not saved.
  const effectRows = await runFileEffect();
  console.log(peerTable(effectRows, "empty Workspace"));
  console.log(
    markdownTable(["check", "measured", "target", "met"], fileEffectChecks(effectRows), "lrrl"),
  );
  Deno.exit(0);
}

if (Deno.args[0] === "peers") {
  // `deno task bench peers`: only the peers, 50 and 500 steps, printed, not saved.
  const short = await runPeers();
  const long = await runPeers(LONG_STEPS);
  console.log(stepPeersTable(short));
  console.log(stepPeersTable(long));
  console.log(
    markdownTable(["check", "measured", "target", "met"], peerChecks(short, long), "lrrl"),
  );
  Deno.exit(0);
}

const started = performance.now();
console.error("xmd bench: durable effect vs bare SQLite commit");
const effect = await runDurableEffect();
console.error("xmd bench: xmd workflow start, end to end");
const startup = await runStartup();
console.error("xmd bench: a 220 KB document, xmd run and xmd workflow start");
const large = await runLargeDocument();
console.error("xmd bench: completed replay");
const replayResult = await run();
const { fixtures } = replayResult;
console.error("xmd bench: Workspace root publication");
const publication = runPublication();
console.error("xmd bench: <File> effect on a large and an empty Workspace");
const fileEffect = await runFileEffect();
console.error("xmd bench: Worker Shell effect, warm");
const shell = await runWorkerShell();
console.error("xmd bench: Workspace throughput");
const throughput = await runThroughput();
console.error("xmd bench: the secret gate on Workspace writes, on vs off");
const workspaceGate = await runWorkspaceGate();
console.error("xmd bench: verification before resume");
const verification = await runVerification();
console.error("xmd bench: scale, each operation in a fresh process");
const scale = await runScale();
console.error("xmd bench: the remote host against workerd");
const remote = await runRemote();
console.error(`xmd bench: peers, a workflow of ${STEPS} durable steps`);
const peers = await runPeers();
console.error(`xmd bench: peers, a workflow of ${LONG_STEPS} durable steps`);
const longPeers = await runPeers(LONG_STEPS);
console.error("xmd bench: the marginal <File> step through the CLI");
const stepCli = await (async () => {
  await using dir = await temporaryDirectory();
  return await runStepCli(dir.path);
})();
const effectRow = (name: string) => effect.rows.find((row) => row.name === name)!;
const startupRow = (name: string) => startup.find((row) => row.name === name)!;
const effectRatio = effectRow(EFFECT.gated).overReference;
const effectRatioUngated = effectRow(EFFECT.ungated).overReference;
const effectP99Ratio = effectRow(EFFECT.gated).summary.p99Ms / effectRow(EFFECT.bare).summary.p99Ms;
const startupOverRun = startupRow(STARTUP.workflow).summary.medianMs /
  startupRow(STARTUP.run).summary.medianMs;
const startupOverEval = startupRow(STARTUP.workflow).overReference;
const runOverEval = startupRow(STARTUP.run).overReference;
const replay = (effects: number) => replayResult.replays.find((row) => row.effects === effects)!;
const floor = replayResult.rows[replayResult.rows.length - 1];
const linearity = replayResult.linearity.wall;
const overFloor = replay(LARGEST).summary.medianMs / floor.summary.medianMs;
const publicationRatio = publication.rows[0].overReference;
const fileEffectRow = (name: string) => fileEffect.find((row) => row.name === name)!;
const largeOverEmpty = fileEffectRow(FILE_EFFECT.large).overReference;
const largeOverEmptyP99 = fileEffectRow(FILE_EFFECT.large).summary.p99Ms /
  fileEffectRow(FILE_EFFECT.empty).summary.p99Ms;
const largeOverEmptyMin = fileEffectRow(FILE_EFFECT.large).summary.minMs /
  fileEffectRow(FILE_EFFECT.empty).summary.minMs;
const fileEffectOverBare = fileEffectRow(FILE_EFFECT.empty).summary.medianMs /
  fileEffectRow(FILE_EFFECT.bare).summary.medianMs;
const shellEffect = shell.rows.find((row) => row.name === SHELL.effect)!.summary;
const throughputRow = (name: string) => throughput.rows.find((row) => row.name === name)!;
const pass = {
  underTarget: replay(LARGEST).usPerEvent < TARGET_US_PER_EVENT,
  linear: linearity < 1.25,
  durableEffect: effectRatio < TARGET_EFFECT_RATIO,
  publication: publicationRatio < TARGET_PUBLICATION_RATIO,
  largeWorkspace: largeOverEmpty < TARGET_LARGE_WORKSPACE_RATIO,
  fileEffect: fileEffectOverBare <= TARGET_FILE_EFFECT_RATIO,
  workerShell: shellEffect.medianMs < TARGET_SHELL_P50_MS,
  remoteEffect: remote.effect.met,
  remoteBytes: remote.bytes.met,
  remoteAcquisition: remote.acquisition.met,
};

const effectTable = peerTable(effect.rows, "bare");
const startupTable = peerTable(startup, "deno eval");
const publicationTable = peerTable(publication.rows, "full rehash", true);
const fileEffectTable = peerTable(fileEffect, "empty Workspace");
const shellTable = peerTable(shell.rows, "effect");
const verificationTable = peerTable(verification.rows, "journal parse");
const shellRequests = Object.entries(shell.requests.operations).map(([op, n]) => `${op} × ${n}`)
  .join(", ");
const shellMedian = (name: string) => shell.rows.find((row) => row.name === name)!.summary.medianMs;
/** What one more command costs in a running block: the loop's row less the empty block's, per command. */
const shellPerCommand = (shellMedian(SHELL.loop) - shellMedian(SHELL.noFs)) / LOOP_COMMANDS;
const bashPerCommand = shellMedian(SHELL.bashLoop) / LOOP_COMMANDS;
const throughputTable = markdownTable(
  ["what", "median ms / 64 MiB", "p99 ms", "MB/s (median)", "passes"],
  throughput.rows.map((row) => [
    row.name,
    fixed(row.summary.medianMs, 1),
    fixed(row.summary.p99Ms, 1),
    fixed(row.mbPerSecond, 0),
    String(row.summary.n),
  ]),
  "lrrrr",
);

const table = replayTable(replayResult);
const summaryTable = markdownTable(
  ["check", "measured", "target", "met"],
  [
    [
      "durable effect (secret gate on) ÷ bare SQLite commit, median",
      `${fixed(effectRatio, 2)}×`,
      `< ${TARGET_EFFECT_RATIO}×`,
      pass.durableEffect ? "yes" : "no",
    ],
    [
      "durable effect, secret gate off ÷ bare SQLite commit, median",
      `${fixed(effectRatioUngated, 2)}×`,
      "(context)",
      "",
    ],
    [
      "durable effect (secret gate on) ÷ bare SQLite commit, p99",
      `${fixed(effectP99Ratio, 2)}×`,
      "(context)",
      "",
    ],
    [
      "xmd workflow start ÷ xmd run, median",
      `${fixed(startupOverRun, 2)}×`,
      "(context)",
      "",
    ],
    [
      "xmd workflow start ÷ deno eval '0', median",
      `${fixed(startupOverEval, 2)}×`,
      "(context)",
      "",
    ],
    [
      "xmd run ÷ deno eval '0', median",
      `${fixed(runOverEval, 2)}×`,
      "(context)",
      "",
    ],
    ...startupChecks(startup),
    ...largeDocumentChecks(large.rows, large.parse),
    ...replayChecks(replayResult),
    [
      `root publication after a one-file change ÷ full rehash, ${
        fixed(publication.files, 0)
      } files, median`,
      `${fixed(publicationRatio * 100, 2)}%`,
      `< ${fixed(TARGET_PUBLICATION_RATIO * 100, 0)}%`,
      pass.publication ? "yes" : "no",
    ],
    [
      `<File> effect, ${fixed(LARGE.dirs * LARGE.files, 0)}-file ÷ empty Workspace, median`,
      `${fixed(largeOverEmpty, 2)}×`,
      `≈ 1× (< ${fixed(TARGET_LARGE_WORKSPACE_RATIO, 2)}×)`,
      pass.largeWorkspace ? "yes" : "no",
    ],
    [
      `<File> effect, ${fixed(LARGE.dirs * LARGE.files, 0)}-file ÷ empty Workspace, p99`,
      `${fixed(largeOverEmptyP99, 2)}×`,
      "(context)",
      "",
    ],
    [
      `<File> effect, ${
        fixed(LARGE.dirs * LARGE.files, 0)
      }-file ÷ empty Workspace, min (least disk wait)`,
      `${fixed(largeOverEmptyMin, 2)}×`,
      "(context)",
      "",
    ],
    ...fileEffectChecks(fileEffect),
    ...stepCliChecks(stepCli),
    [
      `Worker Shell \`${SCRIPT}\` effect, warm, p50`,
      `${fixed(shellEffect.medianMs, 2)} ms`,
      `< ${TARGET_SHELL_P50_MS} ms`,
      pass.workerShell ? "yes" : "no",
    ],
    [
      `Worker Shell \`${SCRIPT}\` effect, warm, p99`,
      `${fixed(shellEffect.p99Ms, 2)} ms`,
      "(context)",
      "",
    ],
    [
      "Workspace write throughput (1 MiB files, each committed, FULL)",
      `${fixed(throughputRow(THROUGHPUT_ROWS.write).mbPerSecond, 0)} MB/s`,
      "(context)",
      "",
    ],
    [
      "Workspace read throughput (1 MiB files)",
      `${fixed(throughputRow(THROUGHPUT_ROWS.read).mbPerSecond, 0)} MB/s`,
      "(context)",
      "",
    ],
    ...peerChecks(peers, longPeers),
  ],
  "lrrl",
);
const environment = {
  deno: Deno.version.deno,
  v8: Deno.version.v8,
  os: Deno.build.os,
  arch: Deno.build.arch,
  cpus: navigator.hardwareConcurrency,
};
const date = new Date().toISOString();
const markdown = [
  "# xmd benchmarks",
  "",
  `Run ${date} on Deno ${environment.deno} (${environment.os}/${environment.arch}, ${environment.cpus} CPUs), ${
    fixed((performance.now() - started) / 1_000, 1)
  } s. Generated by \`deno task bench\`; do not edit.`,
  "",
  "Durable effect: a run database opened with `openRunDatabase` (WAL, `synchronous=FULL`), a",
  "`RunStore` with a running run, and `Journal.effect` over a `DurableStream` whose append is",
  "`store.append(execution, event)`, as `executeRun` wires it; the effect returns a",
  `${
    fixed(PAYLOAD_BYTES, 0)
  }-byte text result at once, so each call is the secret gate on the event's JSON (${
    fixed(effect.eventBytes, 0)
  } bytes)`,
  "and the append transaction. The peer is a bare `node:sqlite` database in the same temporary folder",
  `(WAL, \`synchronous=FULL\`): \`BEGIN IMMEDIATE\`, one INSERT of a ${
    fixed(PAYLOAD_BYTES, 0)
  }-byte blob, \`COMMIT\`. All four`,
  `run in alternating blocks of ${EFFECT_BUDGET.blockSize} calls after ${EFFECT_BUDGET.warmupCalls} warm-up calls each.`,
  "",
  effectTable,
  "",
  "Startup: real subprocesses, one of each in turn, on a document of prose and one `<Let>` that",
  "completes; `workflow start` gets a new `--id` (a new run database) each call, with",
  "`XMD_WORKFLOW_RUNS` in a temporary folder, started in the document's folder.",
  "",
  startupTable,
  "",
  "Large document: a heading and 220 `<File>` elements of 1 KB of prose (about 220 KB), `xmd run`",
  "and `xmd workflow start` of it as real subprocesses in turn; the parse row is `loadProgram` of the",
  "same text in the bench's process.",
  "",
  peerTable(large.rows, "xmd run"),
  "",
  "Completed replay: `new JsonlStream(path)` → `Journal.open` → `runProgram` with refusing providers",
  "(none called) and a discarding sink; the document is loaded once, outside the timed call. Each",
  `journal holds the props Yield, one \`file.write\` Yield per effect and the root Close (${
    fixed(fixtures.find((fixture) => fixture.effects === LARGEST)!.bytes / 1_024, 0)
  } KiB at ${fixed(LARGEST, 0)}).`,
  "",
  table,
  "",
  "Root publication: a Workspace of 10,000 files (100 directories × 100 files of a few bytes) in an",
  "in-memory `NodeSqliteSeam`. Incremental: one file's content changes (a different file each",
  "call), then `publishRoot` alone is timed. Full: `forgetHashes`, then `publishRoot` alone is timed,",
  "and must find the same root. Each call is one transaction, hashed with `node:crypto`",
  "and without the connection's change records (directories are rebuilt from all their entries).",
  "",
  publicationTable,
  "",
  "`<File>` effect: the executor's live Workspace effect path (`bench/_workspace-effect.ts`):",
  "`Journal.effect` (secret gate on) → `WorkspaceFileSystem.writeText` inside the held transaction",
  "(`BEGIN IMMEDIATE`, savepoint) → `publishRoot` → `RunStore.append` with the root → `COMMIT`, each",
  `run database opened with \`openRunDatabase\` (WAL, \`synchronous=FULL\`) in one temporary folder.`,
  `Each call overwrites a file two directories deep with ${
    fixed(EFFECT_BYTES, 0)
  } bytes of new text; the large run's`,
  `Workspace holds ${
    fixed(LARGE.dirs * LARGE.files, 0)
  } files (100 × 100), the other only the file written. Interleaved in blocks of ${FILE_EFFECT_BUDGET.blockSize}.`,
  "As in the local provider, objects are hashed with `node:crypto`, and after the first commit a",
  "changed directory is rebuilt from its previous tree and stored as a delta against it.",
  "",
  fileEffectTable,
  "",
  `Worker Shell: an \`sh\` block \`${SCRIPT}\` on a warm interpreter process through the same effect path`,
  "(`WorkerShell.run` inside the held transaction, then gate, publication, append, `COMMIT` with",
  "`synchronous=FULL`), interleaved with its parts. One run of the block makes",
  `${shell.requests.messages} Workspace requests, each one message round trip; the Workspace calls serving them, with`,
  `the host's checks of /usr/bin and /bin after each change: ${shellRequests}.`,
  `Interleaved in blocks of ${SHELL_BUDGET.blockSize}; the last column is each row's median over the effect's.`,
  "",
  shellTable,
  "",
  `A command in a running block costs ${
    fixed(shellPerCommand, 3)
  } ms through Worker Shell (the ${LOOP_COMMANDS}-command`,
  `block less the empty one, per command), against ${
    fixed(bashPerCommand, 3)
  } ms in just-bash in this thread (its row per command, with \`new Bash()\`; both with`,
  "just-bash's defense-in-depth off, as Worker Shell runs it: WS-117).",
  "",
  `Throughput: ${fixed(THROUGHPUT.files, 0)} files of ${
    fixed(THROUGHPUT.bytes / 1_024, 0)
  } KiB (one chunk each, random bytes, restamped each pass so`,
  "nothing is deduplicated) written with `Workspace.writeFile`, one committed transaction per file, to",
  "a run database (WAL, `synchronous=FULL`), then read back with `Workspace.readFile`; floors on the",
  "same bytes. One warm-up pass each.",
  "",
  throughputTable,
  "",
  "Secret gate on Workspace writes (`bench/workspace-gate.ts`): the same effect path, on a run with the",
  "gate on and one with it off (`--no-secret-detection`), interleaved; each call writes bytes and names",
  `no earlier call wrote. The block's ${
    fixed(BLOCK_FILES, 0)
  } file writes are served in the held transaction as Worker Shell's host`,
  "serves them, without the Worker.",
  "",
  workspaceGateTable(workspaceGate),
  "",
  `Verification before resume: a suspended run of ${fixed(verification.events, 0)} events`,
  `(\`<File>\` writes over ${FILES} files, then an \`<Elicit>\`, run by \`LocalWorkflowHost.start\`);`,
  "each call recognizes the files, opens them read-only and reads in one transaction.",
  "",
  verificationTable,
  "",
  `Scale (\`bench/scale.ts\`): a run of N \`<File>\` writes (N events, N files in folders of 100, then`,
  "an `<Elicit>`), built once per size; each operation then runs through `LocalWorkflowHost` in a",
  `fresh process (${SCALE_SAMPLES} each), which also reports its CPU time and peak resident memory. \`resume\` answers a copy of`,
  "the run and resumes it to completion (verification, replay of every event, one effect); `list` reads",
  "folders of small runs. The content rows: runs whose Workspace holds files of just under 1 MiB, timed",
  "per MiB, and one file written through `Workspace.writeFileFrom` from 64 KiB pieces and committed",
  "(its peak memory is not the file's size). The floor row writes the files `export` writes with bare",
  "host calls: on a file system that scans recently freed inodes at each create (ext4 without a journal),",
  "it grows with the files deleted shortly before, so every export is kept until the section ends.",
  `The last columns: cost per item ÷ the same operation's at`,
  `the next size down, about a tenth (target ≤ ${TARGET_SCALE_GROWTH}×). Sizes: ${
    scaleSizes().map((size) => fixed(size, 0)).join(", ")
  } events (\`XMD_BENCH_SCALE_MAX=100000\` adds 100,000); ${
    contentSizes().map((size) => fixed(size, 0)).join(", ")
  } MiB of content and one file of ${
    writeSizes().map((size) => fixed(size, 0)).join(", ")
  } MiB (\`XMD_BENCH_SCALE_GIB=1\`: 1 GiB).`,
  "",
  scaleTable(scale),
  "",
  "Remote host (`bench/remote.ts`): the `WorkflowRun` Durable Object in workerd under miniflare (the",
  "test Worker), the runner's side built as `RemoteWorkflowHost` builds it: an executor connection,",
  "`create`, the working copy (`fetchRoot`, `writeWorkingCopy`) and the executor's effect path",
  "committing through `RemoteRunCommits`. The `<File>` rows write 1 KiB on a run whose Workspace",
  "holds only that file, remote and local interleaved. Bytes sent: each of 30 one-file changes on a",
  "run of 10,000 files (100 directories of 100, written by 100 effects), counted on the socket by a",
  "TCP proxy, against 2 × (1 KiB + the full text of the new root and directory trees). Acquisition:",
  "a reader connection, `read-run` and the journal, `fetchRoot` and `writeWorkingCopy` into a new",
  "run database (WAL, `synchronous=FULL`), bytes received counted by the proxy; its floor is",
  "`verifyRoot` + `liveRootOf` of the copy it built.",
  "",
  remoteTables(remote),
  "",
  `Peers: one new workflow of ${STEPS} sequential durable steps, each producing ${
    fixed(STEP_BYTES, 0)
  } bytes, timed from`,
  "its start until its result is back, the engines interleaved in rotating blocks of 3 on the same disk",
  "(`bench/peers.ts`). xmd: `LocalWorkflowHost.start` (what `xmd workflow start` calls) of a new run",
  "whose document is that many `<File>` writes, each a Workspace effect committed with its journal",
  "event (WAL, `synchronous=FULL`). Restate: a `restate-server` subprocess with its default",
  "durability (its log fsynced per step) and a service of `ctx.run` actions served over HTTP/2 in",
  "this process. Cloudflare Workflows: `step.do` calls in workerd under miniflare, each instance a",
  "SQLite-backed Durable Object persisted to disk, completion awaited inside the Worker.",
  `The same again with ${LONG_STEPS} steps, in blocks of 1, so the per-step cost shows apart from start-up.`,
  "",
  stepPeersTable(peers),
  "",
  stepPeersTable(longPeers),
  "",
  "The marginal `<File>` step through the CLI (`bench/step-cli.ts`): the installed `xmd workflow start`",
  "of a document whose `<Each>` writes N files of 1 KiB (each its own content), N = 20 and N = 220, as",
  "real subprocesses under `/usr/bin/time` (CPU: user + system); the marginal step is the difference",
  "of their medians over 200 steps. The floor is a bare `node:sqlite` commit of 1 KiB (WAL, FULL) in",
  "the same folder, in blocks of 25 between the subprocesses, in rotating order.",
  "",
  stepCliTable(stepCli),
  "",
  summaryTable,
  "",
].join("\n");

const results = new URL("./results/", import.meta.url);
await Deno.mkdir(results, { recursive: true });
await Deno.writeTextFile(new URL("latest.md", results), markdown);
await Deno.writeTextFile(
  new URL("latest.json", results),
  JSON.stringify(
    {
      date,
      environment,
      targetUsPerEvent: TARGET_US_PER_EVENT,
      targetEffectRatio: TARGET_EFFECT_RATIO,
      rows: replayResult.rows,
      replay: { replays: replayResult.replays, linearity: replayResult.linearity },
      durableEffect: {
        payloadBytes: PAYLOAD_BYTES,
        eventBytes: effect.eventBytes,
        rows: effect.rows,
      },
      startup: { rows: startup },
      largeDocument: large,
      workspace: {
        publication: { files: publication.files, rows: publication.rows },
        fileEffect: { bytes: EFFECT_BYTES, rows: fileEffect },
        workerShell: { script: SCRIPT, requests: shell.requests, rows: shell.rows },
        throughput: { bytes: throughput.bytes, rows: throughput.rows },
        secretGate: { blockFiles: BLOCK_FILES, rows: workspaceGate },
      },
      verification: { events: verification.events, files: FILES, rows: verification.rows },
      scale: { samples: SCALE_SAMPLES, targetGrowth: TARGET_SCALE_GROWTH, rows: scale },
      remote,
      peers: { steps: STEPS, stepBytes: STEP_BYTES, rows: peers },
      longPeers: { steps: LONG_STEPS, stepBytes: STEP_BYTES, rows: longPeers },
      stepCli,
      ratios: {
        linearity,
        linearityCpu: replayResult.linearity.cpu,
        replayOverFloor: overFloor,
        effectOverBareCommit: effectRatio,
        effectWithoutGateOverBareCommit: effectRatioUngated,
        effectOverBareCommitP99: effectP99Ratio,
        workflowStartOverRun: startupOverRun,
        workflowStartOverDenoEval: startupOverEval,
        runOverDenoEval: runOverEval,
        publicationOverFullRehash: publicationRatio,
        fileEffectLargeOverEmpty: largeOverEmpty,
        fileEffectLargeOverEmptyP99: largeOverEmptyP99,
        fileEffectLargeOverEmptyMin: largeOverEmptyMin,
        fileEffectOverBareCommit: fileEffectOverBare,
        workerShellEffectP50Ms: shellEffect.medianMs,
      },
      targets: {
        publicationOverFullRehash: TARGET_PUBLICATION_RATIO,
        fileEffectLargeOverEmpty: TARGET_LARGE_WORKSPACE_RATIO,
        fileEffectOverBareCommit: TARGET_FILE_EFFECT_RATIO,
        peerSpeedup: TARGET_PEER_SPEEDUP,
        workerShellEffectP50Ms: TARGET_SHELL_P50_MS,
      },
      pass,
    },
    null,
    2,
  ) + "\n",
);
console.log(
  [
    effectTable,
    startupTable,
    table,
    publicationTable,
    fileEffectTable,
    shellTable,
    throughputTable,
    workspaceGateTable(workspaceGate),
    verificationTable,
    scaleTable(scale),
    remoteTables(remote),
    stepPeersTable(peers),
    stepPeersTable(longPeers),
    stepCliTable(stepCli),
  ]
    .concat(summaryTable).map((text) => `\n${text}`).join("\n"),
);
