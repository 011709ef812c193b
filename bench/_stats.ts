/**
 * Timing and reporting for the benchmarks: a warmed-up, time-budgeted sample
 * loop, nearest-rank percentiles and the Markdown table.
 *
 * Invariant: every reported figure comes from `performance.now()` samples
 * taken after warm-up, one sample per call of the measured function.
 *
 * @module
 */

/** The samples of one measured function, in milliseconds. */
export interface Samples {
  /** Each timed call, in the order taken. */
  readonly ms: readonly number[];
}

/** Summary of a sample set, in milliseconds. */
export interface Summary {
  /** How many timed calls. */
  n: number;
  /** The median. */
  medianMs: number;
  /** The 99th percentile (nearest rank; the maximum below 100 samples). */
  p99Ms: number;
  /** The fastest call. */
  minMs: number;
}

/** How long to warm up and sample. */
export interface SampleBudget {
  /** Untimed calls before sampling, at least this many… */
  warmupCalls: number;
  /** …and for at least this long. */
  warmupMs: number;
  /** Timed calls: at least this many… */
  minSamples: number;
  /** …until this much time has passed… */
  budgetMs: number;
  /** …and never more than this many. */
  maxSamples: number;
}

/** Warms `fn` up, then times one call per sample within `budget`. */
export async function sample(
  fn: () => Promise<void> | void,
  budget: SampleBudget,
): Promise<Samples> {
  const warmupStart = performance.now();
  for (
    let calls = 0;
    calls < budget.warmupCalls || performance.now() - warmupStart < budget.warmupMs;
    calls++
  ) {
    await fn();
  }
  const ms: number[] = [];
  const start = performance.now();
  while (
    ms.length < budget.minSamples ||
    (ms.length < budget.maxSamples && performance.now() - start < budget.budgetMs)
  ) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return { ms };
}

/** Median, p99 and minimum of `samples`. */
export function summarize(samples: Samples): Summary {
  const sorted = [...samples.ms].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length, Math.ceil(p * sorted.length)) - 1];
  const middle = sorted.length >> 1;
  return {
    n: sorted.length,
    medianMs: sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2,
    p99Ms: rank(0.99),
    minMs: sorted[0],
  };
}

/** The nearest-rank `p` quantile of `values` (0 < p ≤ 1). */
export function quantile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.min(sorted.length, Math.ceil(p * sorted.length)) - 1)];
}

/** A GitHub-flavoured Markdown table; `align` is `l` or `r` per column. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align: string,
): string {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => row[column].length))
  );
  const line = (cells: readonly string[]) =>
    `| ${
      cells.map((cell, column) =>
        align[column] === "r" ? cell.padStart(widths[column]) : cell.padEnd(widths[column])
      ).join(" | ")
    } |`;
  const rule = `| ${
    widths.map((width, column) =>
      align[column] === "r" ? `${"-".repeat(width - 1)}:` : "-".repeat(width)
    ).join(" | ")
  } |`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

/** A number with `digits` decimals and thousands separators. */
export function fixed(value: number, digits: number): string {
  return value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/** How long to warm up and sample several functions that share one resource (a disk). */
export interface InterleavedBudget {
  /** Untimed calls of each function before sampling. */
  warmupCalls: number;
  /** Timed calls of one function in a row before moving to the next. */
  blockSize: number;
  /** Timed calls of each function: at least this many… */
  minSamples: number;
  /** …until this much time has passed in all… */
  budgetMs: number;
  /** …and never more than this many. */
  maxSamples: number;
}

/**
 * Warms each of `fns` up, then times them in alternating blocks of
 * `blockSize` calls, rotating which goes first each round, so that all of
 * them see the same machine and disk conditions. Returns their samples in the
 * order of `fns`.
 */
export async function sampleInterleaved(
  fns: readonly (() => Promise<void> | void)[],
  budget: InterleavedBudget,
): Promise<Samples[]> {
  for (const fn of fns) for (let call = 0; call < budget.warmupCalls; call++) await fn();
  const ms: number[][] = fns.map(() => []);
  const start = performance.now();
  for (
    let round = 0;
    ms[0].length < budget.minSamples ||
    (ms[0].length < budget.maxSamples && performance.now() - start < budget.budgetMs);
    round++
  ) {
    for (let turn = 0; turn < fns.length; turn++) {
      const index = (round + turn) % fns.length;
      const fn = fns[index];
      for (let call = 0; call < budget.blockSize; call++) {
        const t0 = performance.now();
        await fn();
        ms[index].push(performance.now() - t0);
      }
    }
  }
  return ms.map((samples) => ({ ms: samples }));
}
