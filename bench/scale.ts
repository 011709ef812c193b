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
 * least 100000 (building that run takes minutes). Each of those runs holds as
 * many files as events, so its rows are also the Workspaces of 1k, 10k and
 * 100k files. Workspaces of content: runs of 10 and 102 files of just under
 * 1 MiB, and 1,024 (1 GiB) with `XMD_BENCH_SCALE_GIB` set, timed per MiB; and
 * one file of 10 and 100 MiB (100 MiB and 1 GiB with `XMD_BENCH_SCALE_GIB`)
 * written through `Workspace.writeFileFrom` and committed, whose peak memory
 * shows it is never held whole. `XMD_BENCH_SCALE_ROWS` (`events`, `content`,
 * `write`, `list`, comma-separated) measures only those families, so the big
 * sizes can be run apart.
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

/**
 * The host's share of an export: the same folders and files written by bare
 * synchronous host calls. A floor, not a target: its growth is the file
 * system's (see bench/profile-scale.md, "Fourth pass").
 */
export const HOST_FLOOR = "floor: the same files by bare host calls (mkdir, create, write, chmod)";

/** Samples (fresh processes) per operation and size. */
export const SCALE_SAMPLES = 3;
/** A cost per item may grow at most this much when the size grows ×10. */
export const TARGET_SCALE_GROWTH = 1.25;

/** The run sizes measured. */
export function scaleSizes(): number[] {
  const max = Number(Deno.env.get("XMD_BENCH_SCALE_MAX") ?? 10_000);
  return [1_000, 10_000, 100_000].filter((size) => size <= max);
}

/** The families of rows measured: all, or those `XMD_BENCH_SCALE_ROWS` names (comma-separated). */
function measures(family: "events" | "content" | "write" | "list"): boolean {
  const chosen = Deno.env.get("XMD_BENCH_SCALE_ROWS");
  return chosen === undefined || chosen.split(",").includes(family);
}

/** Run-list sizes measured. */
export const LIST_SIZES = [10, 100, 1_000];

/**
 * The content Workspaces measured, in files of just under 1 MiB (so MiB):
 * about 10 and 100 MiB, and 1 GiB when `XMD_BENCH_SCALE_GIB` is set
 * (building it writes 1 GiB through 1,024 durable effects).
 */
export function contentSizes(): number[] {
  return Deno.env.get("XMD_BENCH_SCALE_GIB") ? [10, 102, 1_024] : [10, 102];
}

/** The sizes of the one file `Workspace.writeFileFrom` writes, in MiB: 100 MiB, and 1 GiB as above. */
export function writeSizes(): number[] {
  return Deno.env.get("XMD_BENCH_SCALE_GIB") ? [100, 1_024] : [10, 100];
}

/** Characters of filler in each file of the content runs: with its number, just under 1 MiB. */
const CONTENT_REPEAT = 174_700;

const CONTENT_DOCUMENT = [
  '<Each items={props.items} as="i">',
  `<File path={\`big/\${i}.bin\`}>{i} {props.word.repeat(${CONTENT_REPEAT})}</File>`,
  "</Each>",
  "",
  '<Elicit as="go" schema={{ type: "boolean" }}>Go on?</Elicit>',
  "",
].join("\n");

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
  /** Median CPU time per item (the process's, every thread), µs: steadier than wall time on a shared machine. */
  cpuUsPerItem: number;
  /** Highest peak resident memory of the samples, bytes (null: not Linux). */
  peakRssBytes: number | null;
  /** This row's cost per item ÷ the same operation's at a tenth of the size (null: smallest). */
  growth: number | null;
  /** The same for the CPU time per item. */
  cpuGrowth: number | null;
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

/** A run whose Workspace holds `files` files of just under 1 MiB each, distinct, then a question. */
async function buildContentRun(runs: string, id: string, files: number): Promise<number> {
  const program = await loadProgram(
    { file: "content.md", text: CONTENT_DOCUMENT },
    () => Promise.resolve(undefined),
  );
  const props: JsonObject = { items: Array.from({ length: files }, (_, i) => i), word: "lorem " };
  const host = new LocalWorkflowHost(runs);
  // Only building: the gate's scan of the bytes is not what these rows measure.
  const report = await host.start({ id, program, props }, { ...quiet, secretDetection: false });
  if (report.status !== "suspended") {
    throw new Error(`Cannot build the content run: it ended ${report.status}`);
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

/** One timed process: wall and CPU time of the operation, and the process's peak memory. */
interface Sample {
  ms: number;
  cpuMs: number;
  peakRssBytes: number | null;
}

async function timeOp(
  op: string,
  runs: string,
  id: string,
  arg: number,
): Promise<Sample> {
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
  sample: () => Promise<Sample>,
): Promise<ScaleRow> {
  const samples = [];
  for (let n = 0; n < SCALE_SAMPLES; n++) samples.push(await sample());
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const cpu = samples.map((s) => s.cpuMs).sort((a, b) => a - b);
  const rss = samples.map((s) => s.peakRssBytes);
  const medianMs = ms[ms.length >> 1];
  console.error(`  ${name}, ${fixed(items, 0)}: ${fixed(medianMs, 1)} ms`);
  return {
    name,
    items,
    medianMs,
    maxMs: ms[ms.length - 1],
    usPerItem: medianMs * 1_000 / items,
    cpuUsPerItem: cpu[cpu.length >> 1] * 1_000 / items,
    peakRssBytes: rss.includes(null) ? null : Math.max(...rss as number[]),
    growth: null,
    cpuGrowth: null,
  };
}

/** Builds the runs in a temporary folder and times every operation. */
export async function runScale(): Promise<ScaleRow[]> {
  const dir = await Deno.makeTempDir({ prefix: "xmd-bench-scale-" });
  const rows: ScaleRow[] = [];
  try {
    for (const size of measures("events") ? scaleSizes() : []) {
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
        await measure(
          HOST_FLOOR,
          size,
          () => timeOp("host-floor", runs, id, size),
        ),
      );
      rows.push(
        await measure("diff of event 1 and the last", size, () => timeOp("diff", runs, id, events)),
      );
    }
    for (const mib of measures("content") ? contentSizes() : []) {
      const runs = `${dir}/content-${mib}`;
      const id = `content-${mib}`;
      console.error(`  building a run whose Workspace holds ${fixed(mib, 0)} MiB`);
      const events = await buildContentRun(runs, id, mib);
      const row = (op: string) => `${op}, Workspace of 1 MiB files (per MiB)`;
      rows.push(await measure(row("resume"), mib, () => timeOp("resume", runs, id, 0)));
      rows.push(
        await measure(row("history --json"), mib, () => timeOp("history", runs, id, events)),
      );
      rows.push(await measure(row("export"), mib, () => timeOp("export", runs, id, mib)));
      rows.push(
        await measure(
          row("diff of event 1 and the last"),
          mib,
          () => timeOp("diff", runs, id, events),
        ),
      );
    }
    for (const mib of measures("write") ? writeSizes() : []) {
      const runs = `${dir}/write-${mib}`;
      await Deno.mkdir(runs);
      rows.push(
        await measure(
          "Workspace.writeFileFrom of one file, 64 KiB pieces, committed (per MiB)",
          mib,
          () => timeOp("write", runs, "-", mib),
        ),
      );
    }
    for (const count of measures("list") ? LIST_SIZES : []) {
      const runs = `${dir}/list-${count}`;
      await buildRuns(runs, count);
      rows.push(await measure("list", count, () => timeOp("list", runs, "-", count)));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  for (const row of rows) {
    // The same operation at the next size down (a tenth, or about a tenth for the MiB rows).
    const smaller = rows.filter((other) => other.name === row.name && other.items < row.items)
      .at(-1);
    if (smaller) {
      row.growth = row.usPerItem / smaller.usPerItem;
      row.cpuGrowth = row.cpuUsPerItem / smaller.cpuUsPerItem;
    }
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
      "CPU µs/item",
      "peak RSS MB",
      "µs/item ÷ at ⅒",
      "CPU ÷ at ⅒",
      "met",
    ],
    rows.map((row) => [
      row.name,
      fixed(row.items, 0),
      fixed(row.medianMs, 1),
      fixed(row.maxMs, 1),
      fixed(row.usPerItem, 1),
      fixed(row.cpuUsPerItem, 1),
      row.peakRssBytes === null ? "-" : fixed(row.peakRssBytes / 1e6, 0),
      row.growth === null ? "-" : `${fixed(row.growth, 2)}×`,
      row.cpuGrowth === null ? "-" : `${fixed(row.cpuGrowth, 2)}×`,
      row.growth === null || row.name === HOST_FLOOR
        ? ""
        : row.growth <= TARGET_SCALE_GROWTH
        ? "yes"
        : "no",
    ]),
    "lrrrrrrrrl",
  );
}
