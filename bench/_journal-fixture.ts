/**
 * The benchmark journal: a document that writes one file per item, run live
 * once against an in-memory filesystem, its completed journal (the props
 * digest, N `file.write` Yields and the root Close) written as JSON Lines
 * exactly as `JsonlStream` writes them.
 *
 * Shared by the replay benchmark and its `JSON.parse` floor, which must read
 * the same bytes.
 *
 * @module
 */
import {
  disabledSecretGate,
  Journal,
  type JsonObject,
  loadProgram,
  MemoryStream,
  type Program,
  type Providers,
  runProgram,
} from "@xmd/core";

/** The document: one `<File>` write per item of `props.items`. */
export const DOCUMENT = [
  '<Each items={props.items} as="i">',
  "<File path={`out/${i}.txt`}>line {i}</File>",
  "</Each>",
  "",
].join("\n");

/** A recorded journal on disk and what replays it. */
export interface JournalFixture {
  /** File effects recorded (`file.write` Yields). */
  effects: number;
  /** Journal lines: the props Yield, the effects and the root Close (`effects + 2`). */
  events: number;
  /** The JSON Lines journal. */
  path: string;
  /** Its size in bytes. */
  bytes: number;
  /** The loaded document (parsed once, outside any timed loop). */
  program: Program;
  /** The props the journal was recorded with. */
  props: JsonObject;
}

/** A temporary directory removed on dispose. */
export async function temporaryDirectory(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "xmd-bench-" });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  };
}

/** Providers that count their calls and refuse every effect. */
export function refusingProviders(): { providers: Providers; calls: () => number } {
  let calls = 0;
  const refuse = () => {
    calls++;
    return Promise.reject(new Error("Cannot run an effect during a completed replay"));
  };
  return {
    providers: {
      fs: { readText: refuse, writeText: refuse, glob: refuse },
      shell: { run: refuse },
      elicit: { ask: refuse },
    },
    calls: () => calls,
  };
}

/** Records the document's journal for `effects` items into `dir`. */
export async function recordJournal(dir: string, effects: number): Promise<JournalFixture> {
  const program = await loadProgram(
    { file: "bench.md", text: DOCUMENT },
    () => Promise.resolve(undefined),
  );
  const props = { items: Array.from({ length: effects }, (_, index) => index) };
  const files = new Map<string, string>();
  const refused = refusingProviders().providers;
  const stream = new MemoryStream();
  const outcome = await runProgram({
    program,
    props,
    providers: {
      ...refused,
      fs: {
        ...refused.fs,
        writeText: (path, content) => {
          files.set(path, content);
          return Promise.resolve();
        },
      },
    },
    journal: await Journal.open(stream, disabledSecretGate),
    stdout: () => {},
    stderr: () => {},
    signal: new AbortController().signal,
  });
  const events = stream.events;
  if (outcome.status !== "completed" || files.size !== effects || events.length !== effects + 2) {
    throw new Error(
      `Cannot record the bench journal for ${effects} effects: run ${outcome.status}, ${files.size} files, ${events.length} events`,
    );
  }
  const path = `${dir}/journal-${effects}.jsonl`;
  const text = events.map((event) => JSON.stringify(event) + "\n").join("");
  await Deno.writeTextFile(path, text);
  return {
    effects,
    events: events.length,
    path,
    bytes: new TextEncoder().encode(text).length,
    program,
    props,
  };
}
