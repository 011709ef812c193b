/**
 * Completed replay of a journal: `JsonlStream` → `Journal.open` →
 * `runProgram`, with providers that refuse every effect and output to a
 * discarding sink. Reading and validating the journal is inside the timed
 * call; parsing and loading the document is not (a replaying host loads the
 * program once, before it opens the journal).
 *
 * Invariant: every timed call is checked to have completed, replayed every
 * recorded event and called no provider, so a regression to live execution
 * or a divergence fails the benchmark instead of timing it. The sizes are
 * sampled interleaved, each call's CPU time beside its wall time.
 *
 * @module
 */
import process from "node:process";
import { disabledSecretGate, Journal, runProgram } from "@xmd/core";
import { JsonlStream } from "@xmd/core/deno";
import { type JournalFixture, refusingProviders } from "./_journal-fixture.ts";
import { type InterleavedBudget, sampleInterleaved, summarize, type Summary } from "./_stats.ts";

/** One full completed replay of `fixture`; throws if it was not a pure replay. */
export async function replayOnce(fixture: JournalFixture): Promise<void> {
  const { providers, calls } = refusingProviders();
  using stream = new JsonlStream(fixture.path);
  const journal = await Journal.open(stream, disabledSecretGate);
  const outcome = await runProgram({
    program: fixture.program,
    props: fixture.props,
    providers,
    journal,
    stdout: () => {},
    stderr: () => {},
    signal: new AbortController().signal,
  });
  if (
    outcome.status !== "completed" || calls() !== 0 || journal.position !== fixture.events
  ) {
    throw new Error(
      `Cannot benchmark the replay of ${fixture.path}: it ${outcome.status} after ${journal.position} of ${fixture.events} events with ${calls()} provider calls`,
    );
  }
}

/** Only the journal read of a replay: the file read, split, `JSON.parse` and zod validation. */
export async function readJournalOnce(fixture: JournalFixture): Promise<void> {
  using stream = new JsonlStream(fixture.path);
  const events = await stream.readAll();
  if (events.length !== fixture.events) {
    throw new Error(`Cannot benchmark reading ${fixture.path}: read ${events.length} events`);
  }
}

/** One size's completed replays, sampled interleaved with the other sizes. */
export interface ReplayRow {
  /** File effects recorded. */
  effects: number;
  /** Journal lines (effects + 2). */
  events: number;
  /** Wall time of the calls. */
  summary: Summary;
  /** Median wall time per event, µs. */
  usPerEvent: number;
  /** The 25th and 75th percentile of the wall time per event, µs: the spread. */
  usPerEventQuartiles: [number, number];
  /** Median CPU time per event (the process's, every thread: GC included), µs. */
  cpuUsPerEvent: number;
}

/** The linearity of the replay: the largest size's cost per event ÷ the smallest's. */
export interface ReplayLinearity {
  /** Of the median wall times per event (the target's measure). */
  wall: number;
  /** Of the median CPU times per event. */
  cpu: number;
  /**
   * The ratio round by round (each round replays every size once, in a
   * rotating order): its 10th and 90th percentile, how far one pair of
   * samples can stray from the medians' ratio.
   */
  rounds: [number, number];
}

/**
 * Completed replays of every fixture, timed interleaved (one call of each
 * size per round, the order rotating), so every size sees the same machine:
 * sampled one size after the other, a burst of load on a shared machine
 * lands on one size only and reads as growth (the 2,500 row above the
 * 1,000 and 5,000 ones, bench/profile-scale.md, fifth pass).
 */
export async function sampleReplays(
  fixtures: readonly JournalFixture[],
  budget: InterleavedBudget,
): Promise<{ rows: ReplayRow[]; linearity: ReplayLinearity }> {
  const cpu: number[][] = fixtures.map(() => []);
  const samples = await sampleInterleaved(
    fixtures.map((fixture, index) => async () => {
      const before = process.cpuUsage();
      await replayOnce(fixture);
      const used = process.cpuUsage(before);
      cpu[index].push((used.user + used.system) / 1_000);
    }),
    budget,
  );
  const rows = fixtures.map((fixture, index): ReplayRow => {
    const summary = summarize(samples[index]);
    const perEvent = samples[index].ms.map((ms) => ms * 1_000 / fixture.events);
    // The warm-up calls' CPU was recorded too: only the timed calls' count.
    const timedCpu = cpu[index].slice(cpu[index].length - samples[index].ms.length);
    return {
      effects: fixture.effects,
      events: fixture.events,
      summary,
      usPerEvent: summary.medianMs * 1_000 / fixture.events,
      usPerEventQuartiles: [percentile(perEvent, 0.25), percentile(perEvent, 0.75)],
      cpuUsPerEvent: percentile(timedCpu, 0.5) * 1_000 / fixture.events,
    };
  });
  const first = 0;
  const last = fixtures.length - 1;
  const rounds = samples[last].ms.map((ms, round) =>
    (ms / fixtures[last].events) / (samples[first].ms[round] / fixtures[first].events)
  );
  return {
    rows,
    linearity: {
      wall: rows[last].usPerEvent / rows[first].usPerEvent,
      cpu: rows[last].cpuUsPerEvent / rows[first].cpuUsPerEvent,
      rounds: [percentile(rounds, 0.1), percentile(rounds, 0.9)],
    },
  };
}

/** The nearest-rank `p` quantile of `values`. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
}
