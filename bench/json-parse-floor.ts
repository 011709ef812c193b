/**
 * The floor under a completed replay: what it costs to read the same JSON
 * Lines file and `JSON.parse` every line, with no validation and no
 * expansion. Replay is reported as a ratio to this, since absolute times vary
 * between machines.
 *
 * @module
 */
import type { JournalFixture } from "./_journal-fixture.ts";

/** Reads `fixture`'s journal and parses every line; nothing else. */
export async function parseLinesOnce(fixture: JournalFixture): Promise<void> {
  const lines = (await Deno.readTextFile(fixture.path)).split("\n");
  lines.pop();
  let parsed = 0;
  for (const line of lines) if (JSON.parse(line) !== null) parsed++;
  if (parsed !== fixture.events) {
    throw new Error(`Cannot benchmark parsing ${fixture.path}: parsed ${parsed} lines`);
  }
}
