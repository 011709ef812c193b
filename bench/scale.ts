/**
 * Scale: what the read and resume paths cost per item as a run grows ×10.
 * A run of N `<File>` writes (N journal events, N files of a few bytes in
 * folders of 100, then a question) is built once per size by
 * `LocalWorkflowHost.start`; each operation is then timed in a fresh process
 * (`bench/_scale-op.ts`) so the row also reports that process's peak resident
 * memory. `list` is timed over folders of 10, 100 and 1,000 small runs.
 *
 * The cost per item (median ÷ N) of each size is set against the size ten
 * times smaller: a ratio above 1.25× means the operation grows faster than
 * the run (issue "Fast to the floor", target 5).
 *
 * Sizes: 1,000 and 10,000 events, and 100,000 when `XMD_BENCH_SCALE_MAX` is at
 * least 100000 (building that run takes minutes).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { type JsonObject, loadProgram } from "@xmd/core";
import { LocalWorkflowHost } from "@xmd/workflow/deno";
import { fixed, markdownTable } from "./_stats.ts";

const OP = fileURLToPath(new URL("./_scale-op.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));
const LOCK = fileURLToPath(new URL("../dev.lock", import.meta.url));

/** Samples (fresh processes) per operation and size. */
export const SCALE_SAMPLES = 3;
/** A cost per item may grow at most this much when the size grows ×10. */
export const TARGET_SCALE_GROWTH = 1.25;

/** The run sizes measured. */
export function scaleSizes(): number[] {
  const max = Number(Deno.env.get("XMD_BENCH_SCALE_MAX") ?? 10_000);
  return [1_000, 10_000, 100_000].filter((size) => size <= max);
}

/** Run-list sizes measured. */
export const LIST_SIZES = [10, 100, 1_000];

const RUN_DOCUMENT = [
  '<Each items={props.items} as="i">',
  "<File path={`d/${i.d}/${i.i}.txt`}>line {i.i}</File>",
  "</Each>",
  "",
  '<Elicit as="go" schema={{ type: "boolean" }}>Go on?</Elicit>',
  "",
].join("\n");

/** One measured row. */
export interface ScaleRow {
  /** The operation. */
  name: string;
  /** Items: events (and files) of the run, or runs listed. */
  items: number;
  /** Median wall time of the operation, ms. */
  medianMs: number;
  /** Slowest sample, ms. */
  maxMs: number;
  /** Median cost per item, µs. */
  usPerItem: number;
  /** Highest peak resident memory of the samples, bytes (null: not Linux). */
  peakRssBytes: number | null;
  /** This row's cost per item ÷ the same operation's at a tenth of the size (null: smallest). */
  growth: number | null;
}

const quiet = {
  stdout: () => {},
  stderr: () => {},
  onRun: () => {},
  signal: new AbortController().signal,
};

async function buildRun(runs: string, id: string, items: number): Promise<number> {
  const program = await loadProgram(
    { file: "scale.md", text: RUN_DOCUMENT },
    () => Promise.resolve(undefined),
  );
  const props: JsonObject = {
    items: Array.from({ length: items }, (_, i) => ({ d: Math.floor(i / 100), i })),
  };
  const host = new LocalWorkflowHost(runs);
  const report = await host.start({ id, program, props }, quiet);
  if (report.status !== "suspended") {
    throw new Error(`Cannot build the scale run: it ended ${report.status}`);
  }
  return (await host.inspect(id)).record.eventCount;
}

async function buildRuns(runs: string, count: number): Promise<void> {
  const program = await loadProgram(
    { file: "small.md", text: '<File path="a.txt">a</File>\n' },
    () => Promise.resolve(undefined),
  );
  const host = new LocalWorkflowHost(runs);
  for (let run = 0; run < count; run++) {
    await host.start({ id: `small-${run}`, program, props: {} }, quiet);
  }
}

async function timeOp(
  op: string,
  runs: string,
  id: string,
  arg: number,
): Promise<{ ms: number; peakRssBytes: number | null }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", `--config=${CONFIG}`, `--lock=${LOCK}`, OP, op, runs, id, `${arg}`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout).trim();
  if (!output.success) {
    throw new Error(`scale ${op} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  return JSON.parse(text.slice(text.lastIndexOf("\n") + 1));
}

async function measure(
  name: string,
  items: number,
  sample: () => Promise<{ ms: number; peakRssBytes: number | null }>,
): Promise<ScaleRow> {
  const samples = [];
  for (let n = 0; n < SCALE_SAMPLES; n++) samples.push(await sample());
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const rss = samples.map((s) => s.peakRssBytes);
  const medianMs = ms[ms.length >> 1];
  console.error(`  ${name}, ${fixed(items, 0)}: ${fixed(medianMs, 1)} ms`);
  return {
    name,
    items,
    medianMs,
    maxMs: ms[ms.length - 1],
    usPerItem: medianMs * 1_000 / items,
    peakRssBytes: rss.includes(null) ? null : Math.max(...rss as number[]),
    growth: null,
  };
}

/** Builds the runs in a temporary folder and times every operation. */
export async function runScale(): Promise<ScaleRow[]> {
  const dir = await Deno.makeTempDir({ prefix: "xmd-bench-scale-" });
  const rows: ScaleRow[] = [];
  try {
    for (const size of scaleSizes()) {
      const runs = `${dir}/runs-${size}`;
      const id = `scale-${size}`;
      console.error(`  building a run of ${fixed(size, 0)} <File> writes`);
      const events = await buildRun(runs, id, size);
      rows.push(
        await measure(
          "resume (verify, replay, one effect)",
          size,
          () => timeOp("resume", runs, id, 0),
        ),
      );
      rows.push(await measure("history --json", size, () => timeOp("history", runs, id, events)));
      rows.push(await measure("export", size, () => timeOp("export", runs, id, size)));
      rows.push(
        await measure("diff of event 1 and the last", size, () => timeOp("diff", runs, id, events)),
      );
    }
    for (const count of LIST_SIZES) {
      const runs = `${dir}/list-${count}`;
      await buildRuns(runs, count);
      rows.push(await measure("list", count, () => timeOp("list", runs, "-", count)));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  for (const row of rows) {
    const smaller = rows.find((other) => other.name === row.name && other.items * 10 === row.items);
    if (smaller) row.growth = row.usPerItem / smaller.usPerItem;
  }
  return rows;
}

/** The rows as a table, with the growth target beside each ratio. */
export function scaleTable(rows: readonly ScaleRow[]): string {
  return markdownTable(
    [
      "operation",
      "items",
      "median ms",
      "max ms",
      "µs/item",
      "peak RSS MB",
      "µs/item ÷ at ⅒",
      "met",
    ],
    rows.map((row) => [
      row.name,
      fixed(row.items, 0),
      fixed(row.medianMs, 1),
      fixed(row.maxMs, 1),
      fixed(row.usPerItem, 1),
      row.peakRssBytes === null ? "-" : fixed(row.peakRssBytes / 1e6, 0),
      row.growth === null ? "-" : `${fixed(row.growth, 2)}×`,
      row.growth === null ? "" : row.growth <= TARGET_SCALE_GROWTH ? "yes" : "no",
    ]),
    "lrrrrrrl",
  );
}
