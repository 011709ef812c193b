/**
 * Completed replay of a journal: `JsonlStream` → `Journal.open` →
 * `runProgram`, with providers that refuse every effect and output to a
 * discarding sink. Reading and validating the journal is inside the timed
 * call; parsing and loading the document is not (a replaying host loads the
 * program once, before it opens the journal).
 *
 * Invariant: every timed call is checked to have completed, replayed every
 * recorded event and called no provider, so a regression to live execution
 * or a divergence fails the benchmark instead of timing it.
 *
 * @module
 */
import { disabledSecretGate, Journal, runProgram } from "@xmd/core";
import { JsonlStream } from "@xmd/core/deno";
import { type JournalFixture, refusingProviders } from "./_journal-fixture.ts";

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
