/**
 * Verification before resume (WF-45) on a run of 10,000 events: what
 * `xmd workflow resume` does before it writes anything, timed alone. The run
 * is real: `LocalWorkflowHost.start` runs a document of `<File>` writes (each
 * its own journal event, over `FILES` files in one folder) that then waits on
 * an `<Elicit>`, so a resume verifies every event, the retained definition
 * and the live Workspace. One sample opens the run database read-only
 * (recognizing its files), verifies the whole run in one read transaction,
 * and closes it; the same open with the journal's parse alone (every event
 * read and parsed with zod) is timed beside it as its floor.
 *
 * @module
 */
import { type JsonObject, loadProgram } from "@xmd/core";
import { RunStore } from "@xmd/workflow";
import { verifyRun } from "@xmd/workflow/internal";
import { LocalWorkflowHost } from "@xmd/workflow/deno";
import { nativeSha256Hex, readConsistently, readRunDatabase } from "@xmd/workflow/deno/internal";

/** Files the writes cycle over. */
export const FILES = 100;

/** The document: one `<File>` write per item, then a question. */
const DOCUMENT = [
  '<Each items={props.items} as="i">',
  `<File path={\`out/\${i % ${FILES}}.txt\`}>line {i}</File>`,
  "</Each>",
  "",
  '<Elicit as="go" schema={{ type: "boolean" }}>Go on?</Elicit>',
  "",
].join("\n");

/** A suspended run to verify. */
export interface VerifyRunFixture {
  /** Journal events of the run (the props event, the writes, the question). */
  events: number;
  /** Opens the run read-only and verifies it whole, as `resume` does first. */
  verifyOnce(): Promise<void>;
  /** Opens the run read-only and parses its journal only. */
  parseOnce(): Promise<void>;
}

/** Runs the document with `effects` writes into a new run under `dir` (a folder on the disk under test). */
export async function openVerifyRunFixture(
  dir: string,
  effects: number,
): Promise<VerifyRunFixture> {
  const program = await loadProgram(
    { file: "verify.md", text: DOCUMENT },
    () => Promise.resolve(undefined),
  );
  const host = new LocalWorkflowHost(dir);
  const props: JsonObject = { items: Array.from({ length: effects }, (_, i) => i) };
  const report = await host.start({ id: "verify", program, props }, {
    stdout: () => {},
    stderr: () => {},
    onRun: () => {},
    signal: new AbortController().signal,
  });
  if (report.status !== "suspended") {
    throw new Error(`Cannot benchmark verification: the run ended ${report.status}`);
  }
  const path = host.pathOf("verify");
  const read = async (work: (store: RunStore) => Promise<void> | void) => {
    const seam = readRunDatabase(path, "the bench run");
    if (!seam) throw new Error("Cannot benchmark verification: the run database is missing");
    using _seam = seam;
    const store = new RunStore(seam, "the bench run");
    await readConsistently(seam, () => work(store));
  };
  let events = 0;
  await read((store) => void (events = store.record().eventCount));
  return {
    events,
    verifyOnce: () =>
      read((store) => verifyRun(store, { workspace: true, sha256: nativeSha256Hex })),
    parseOnce: () => read((store) => void store.events()),
  };
}
