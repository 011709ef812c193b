/**
 * `deno task bench`: measures, in one run, the completed replay of journals
 * of 1,000 to 10,000 effects and its floor (reading and `JSON.parse` of the
 * same file), one durable effect on the local workflow host against a bare
 * SQLite commit on the same disk, and the end-to-end startup of
 * `xmd workflow start` against `xmd run` and `deno eval`; then writes
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
  sample,
  type SampleBudget,
  sampleInterleaved,
  summarize,
  type Summary,
} from "./_stats.ts";
import { openDurableEffectFixture, PAYLOAD_BYTES } from "./durable-effect.ts";
import { parseLinesOnce } from "./json-parse-floor.ts";
import { readJournalOnce, replayOnce } from "./replay.ts";
import { createStartupFixture } from "./startup.ts";

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

/** One timed function of an interleaved comparison. */
interface PeerRow {
  name: string;
  summary: Summary;
  /** Its median over the comparison's reference (the bare commit, or `deno eval`). */
  overReference: number;
}

async function compare(
  fns: readonly { name: string; fn: () => Promise<void> | void }[],
  reference: string,
  budget: InterleavedBudget,
): Promise<PeerRow[]> {
  const samples = await sampleInterleaved(fns.map((entry) => entry.fn), budget);
  const summaries = samples.map(summarize);
  const base = summaries[fns.findIndex((entry) => entry.name === reference)].medianMs;
  return fns.map((entry, index) => {
    const summary = summaries[index];
    console.error(
      `  ${entry.name}: median ${fixed(summary.medianMs, 3)} ms, p99 ${
        fixed(summary.p99Ms, 3)
      } ms, n=${summary.n}`,
    );
    return { name: entry.name, summary, overReference: summary.medianMs / base };
  });
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

async function run(): Promise<{ rows: Row[]; fixtures: JournalFixture[] }> {
  await using dir = await temporaryDirectory();
  const fixtures: JournalFixture[] = [];
  for (const size of SIZES) fixtures.push(await recordJournal(dir.path, size));
  const largest = fixtures.find((fixture) => fixture.effects === LARGEST)!;
  const rows: Row[] = [];
  for (const fixture of fixtures) {
    rows.push(await measure("completed replay", fixture, replayOnce, BUDGET));
  }
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
  return { rows, fixtures };
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

const STARTUP = {
  workflow: "xmd workflow start --id=<new> doc.md",
  run: "peer: xmd run doc.md",
  eval: "floor: deno eval '0'",
} as const;

async function runStartup(): Promise<PeerRow[]> {
  await using dir = await temporaryDirectory();
  const fixture = await createStartupFixture(dir.path);
  return await compare(
    [
      { name: STARTUP.workflow, fn: fixture.workflowStart },
      { name: STARTUP.run, fn: fixture.run },
      { name: STARTUP.eval, fn: fixture.denoEval },
    ],
    STARTUP.eval,
    STARTUP_BUDGET,
  );
}

const started = performance.now();
console.error("xmd bench: durable effect vs bare SQLite commit");
const effect = await runDurableEffect();
console.error("xmd bench: xmd workflow start, end to end");
const startup = await runStartup();
console.error("xmd bench: completed replay");
const { rows, fixtures } = await run();
const effectRow = (name: string) => effect.rows.find((row) => row.name === name)!;
const startupRow = (name: string) => startup.find((row) => row.name === name)!;
const effectRatio = effectRow(EFFECT.gated).overReference;
const effectRatioUngated = effectRow(EFFECT.ungated).overReference;
const effectP99Ratio = effectRow(EFFECT.gated).summary.p99Ms / effectRow(EFFECT.bare).summary.p99Ms;
const startupOverRun = startupRow(STARTUP.workflow).summary.medianMs /
  startupRow(STARTUP.run).summary.medianMs;
const startupOverEval = startupRow(STARTUP.workflow).overReference;
const runOverEval = startupRow(STARTUP.run).overReference;
const replay = (effects: number) =>
  rows.find((row) => row.name === "completed replay" && row.effects === effects)!;
const floor = rows[rows.length - 1];
const linearity = replay(LARGEST).usPerEvent / replay(SMALLEST).usPerEvent;
const overFloor = replay(LARGEST).summary.medianMs / floor.summary.medianMs;
const pass = {
  underTarget: replay(LARGEST).usPerEvent < TARGET_US_PER_EVENT,
  linear: linearity < 1.25,
  durableEffect: effectRatio < TARGET_EFFECT_RATIO,
};

const peerTable = (peerRows: readonly PeerRow[], reference: string) =>
  markdownTable(
    ["what", "median ms", "p99 ms", "min ms", "samples", `× ${reference} (median)`],
    peerRows.map((row) => [
      row.name,
      fixed(row.summary.medianMs, 3),
      fixed(row.summary.p99Ms, 3),
      fixed(row.summary.minMs, 3),
      String(row.summary.n),
      fixed(row.overReference, 2),
    ]),
    "lrrrrr",
  );
const effectTable = peerTable(effect.rows, "bare");
const startupTable = peerTable(startup, "deno eval");

const table = markdownTable(
  ["what", "effects", "events", "median ms", "p99 ms", "µs/event (median)", "samples", "× floor"],
  rows.map((row) => [
    row.name,
    fixed(row.effects, 0),
    fixed(row.events, 0),
    fixed(row.summary.medianMs, 2),
    fixed(row.summary.p99Ms, 2),
    fixed(row.usPerEvent, 2),
    String(row.summary.n),
    row.effects === LARGEST ? fixed(row.summary.medianMs / floor.summary.medianMs, 1) : "",
  ]),
  "lrrrrrrr",
);
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
    [
      `completed replay, ${fixed(LARGEST, 0)} effects`,
      `${fixed(replay(LARGEST).usPerEvent, 2)} µs/event`,
      `< ${TARGET_US_PER_EVENT} µs/event`,
      pass.underTarget ? "yes" : "no",
    ],
    [
      `linearity: µs/event at ${fixed(LARGEST, 0)} ÷ at ${fixed(SMALLEST, 0)}`,
      fixed(linearity, 2),
      "≈ 1.0 (< 1.25)",
      pass.linear ? "yes" : "no",
    ],
    [
      `replay ÷ floor at ${fixed(LARGEST, 0)}`,
      `${fixed(overFloor, 1)}×`,
      "(context)",
      "",
    ],
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
  "`XMD_WORKFLOW_RUNS` in a temporary folder and `INIT_CWD` the document's folder.",
  "",
  startupTable,
  "",
  "Completed replay: `new JsonlStream(path)` → `Journal.open` → `runProgram` with refusing providers",
  "(none called) and a discarding sink; the document is loaded once, outside the timed call. Each",
  `journal holds the props Yield, one \`file.write\` Yield per effect and the root Close (${
    fixed(fixtures.find((fixture) => fixture.effects === LARGEST)!.bytes / 1_024, 0)
  } KiB at ${fixed(LARGEST, 0)}).`,
  "",
  table,
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
      rows,
      durableEffect: {
        payloadBytes: PAYLOAD_BYTES,
        eventBytes: effect.eventBytes,
        rows: effect.rows,
      },
      startup: { rows: startup },
      ratios: {
        linearity,
        replayOverFloor: overFloor,
        effectOverBareCommit: effectRatio,
        effectWithoutGateOverBareCommit: effectRatioUngated,
        effectOverBareCommitP99: effectP99Ratio,
        workflowStartOverRun: startupOverRun,
        workflowStartOverDenoEval: startupOverEval,
        runOverDenoEval: runOverEval,
      },
      pass,
    },
    null,
    2,
  ) + "\n",
);
console.log(`\n${effectTable}\n\n${startupTable}\n\n${table}\n\n${summaryTable}`);
