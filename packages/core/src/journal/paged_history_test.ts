import assert from "node:assert/strict";
import { createWorld, load, refusingProviders, run } from "../engine/_test-providers.ts";
import type { Providers } from "../engine/providers.ts";
import { runProgram } from "../engine/run-program.ts";
import { disabledSecretGate } from "../secret/mod.ts";
import type { DurableStream, RecordedHistory } from "./durable-stream.ts";
import { type JournalEvent, JournalEventSchema } from "./events.ts";
import { JournalFormatError } from "./journal-errors.ts";
import { HISTORY_PIECE, Journal } from "./journal.ts";

/** Three pieces and a part of a fourth, then one more file. */
const ITEMS = 3 * HISTORY_PIECE + 5;
const DOCUMENT = '<Each items={props.items} as="i">\n<File path={`f/${i}.txt`}>line {i}</File>\n' +
  '</Each>\n\n<File path="last.txt">last</File>\n';
const PROPS = { items: Array.from({ length: ITEMS }, (_, i) => i) };

/**
 * A stream that offers its history only in pieces, and records each read: a
 * journal that asked for all of it (`readAll`) would fail.
 */
class PagedStream implements DurableStream {
  readonly #lines: string[];
  readonly reads: { from: number; count: number }[] = [];
  readonly appended: JournalEvent[] = [];

  constructor(events: readonly JournalEvent[]) {
    this.#lines = events.map((event) => JSON.stringify(event));
  }

  readAll(): Promise<JournalEvent[]> {
    return Promise.reject(new Error("readAll was called on a stream read in pieces"));
  }

  history(): Promise<RecordedHistory> {
    const parse = (line: string) => JournalEventSchema.parse(JSON.parse(line));
    const last = this.#lines.at(-1);
    return Promise.resolve({
      length: this.#lines.length,
      last: last === undefined ? undefined : parse(last),
      read: (from: number, count: number) => {
        this.reads.push({ from, count });
        return Promise.resolve(this.#lines.slice(from, from + count).map(parse));
      },
    });
  }

  append(event: JournalEvent): Promise<void> {
    this.#lines.push(JSON.stringify(event));
    this.appended.push(event);
    return Promise.resolve();
  }
}

async function liveRun() {
  const program = await load(DOCUMENT);
  const world = createWorld();
  const record = await run(program, world.providers, { props: PROPS });
  assert.deepEqual(record.outcome, { status: "completed" });
  return { program, record };
}

async function replay(
  stream: PagedStream,
  providers: Providers,
): Promise<{ outcome: unknown; stdout: string }> {
  const program = await load(DOCUMENT);
  const journal = await Journal.open(stream, disabledSecretGate);
  let stdout = "";
  const outcome = await runProgram({
    program,
    props: PROPS,
    providers,
    journal,
    stdout: (text) => stdout += text,
    stderr: () => {},
    signal: new AbortController().signal,
  });
  return { outcome, stdout };
}

/** The reads cover the history once, in order, each at most one piece. */
function assertPieces(reads: { from: number; count: number }[], length: number): void {
  let next = 0;
  for (const { from, count } of reads) {
    assert.equal(from, next, "pieces are read in order, each once");
    assert.ok(count > 0 && count <= HISTORY_PIECE, `a read of ${count} events`);
    next += count;
  }
  assert.equal(next, length, "every recorded event was read");
}

Deno.test("JRN-80 a history read in pieces: a long prefix replays one piece at a time, then the run goes on live", async () => {
  const { record } = await liveRun();
  // The prefix ends before the last file's Yield: it and the root Close run live.
  const cut = record.events.findIndex((event) =>
    event.type === "yield" && event.description.path === "last.txt"
  );
  const prefix = record.events.slice(0, cut);
  const stream = new PagedStream(prefix);
  const world = createWorld();
  const { outcome, stdout } = await replay(stream, world.providers);
  assert.deepEqual(outcome, { status: "completed" });
  assert.equal(stdout, record.stdout);
  assertPieces(stream.reads, prefix.length);
  assert.deepEqual(stream.appended, record.events.slice(cut), "the live suffix, appended once");
  assert.deepEqual(
    world.log.calls.map((call) => call.provider === "fs" && call.op === "write" && call.path),
    ["last.txt"],
    "only the effect after the prefix ran",
  );
});

Deno.test("JRN-80 a completed history read in pieces replays without a provider", async () => {
  const { record } = await liveRun();
  const stream = new PagedStream(record.events);
  const { providers, attempts } = refusingProviders();
  const journal = await Journal.open(stream, disabledSecretGate);
  assert.equal(journal.state, "completed", "decided from the last event alone");
  assert.deepEqual(stream.reads, [], "opening reads no piece");
  const { outcome, stdout } = await replay(stream, providers);
  assert.deepEqual(outcome, { status: "completed" });
  assert.equal(stdout, record.stdout);
  assert.deepEqual(attempts, []);
  assertPieces(stream.reads, record.events.length);
  assert.deepEqual(stream.appended, []);
});

Deno.test("JRN-80 a root Close that is not last, in a later piece, is refused before anything live", async () => {
  const { record } = await liveRun();
  const rootClose = record.events.at(-1)!;
  const at = 2 * HISTORY_PIECE + 10;
  // The damaged history's last event is a Yield: it reads as truncated, to continue live.
  const damaged = [...record.events.slice(0, at), rootClose, ...record.events.slice(at, -3)];
  const stream = new PagedStream(damaged);
  const world = createWorld();
  await assert.rejects(replay(stream, world.providers), (error: unknown) => {
    assert.ok(error instanceof JournalFormatError);
    assert.equal(
      error.message,
      `Cannot read the journal: event ${at + 2} follows the root close, which must be last`,
    );
    return true;
  });
  assert.deepEqual(stream.appended, [], "nothing appended");
  assert.deepEqual(world.log.calls, [], "no provider called");
  assert.ok(stream.reads.every(({ count }) => count <= HISTORY_PIECE));
});

Deno.test("JRN-80 a piece shorter than the history's length says is refused", async () => {
  const { record } = await liveRun();
  const stream = new PagedStream(record.events);
  const short: DurableStream = {
    readAll: () => stream.readAll(),
    append: (event) => stream.append(event),
    history: async () => {
      const history = await stream.history();
      return { ...history, length: history.length + 1 };
    },
  };
  const journal = await Journal.open(short, disabledSecretGate);
  const { providers } = refusingProviders();
  await assert.rejects(
    runProgram({
      program: await load(DOCUMENT),
      props: PROPS,
      providers,
      journal,
      stdout: () => {},
      stderr: () => {},
      signal: new AbortController().signal,
    }),
    (error: unknown) => {
      assert.ok(error instanceof JournalFormatError);
      assert.equal(
        error.message,
        `Cannot read the journal: it records ${record.events.length + 1} events, but event ${
          record.events.length + 1
        } cannot be read`,
      );
      return true;
    },
  );
  assert.deepEqual(stream.appended, []);
});
