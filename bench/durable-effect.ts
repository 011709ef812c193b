/**
 * One durable effect on the local workflow host against its floor, a bare
 * SQLite commit of the same size with the same durability on the same disk.
 *
 * - xmd: a run database opened with `openRunDatabase` (WAL,
 *   `synchronous=FULL`), a `RunStore` holding a running run, and
 *   `Journal.effect` over a `DurableStream` whose append is
 *   `store.append(execution, event)`, exactly as `executeRun` wires it. The
 *   effect's own work returns a 1 KiB text result at once, so what is timed is
 *   what the journal adds: the secret gate on the event's JSON, then the
 *   append transaction.
 * - peer: a bare `node:sqlite` database in the same folder, WAL,
 *   `synchronous=FULL`, one STRICT table; `BEGIN IMMEDIATE`, one INSERT of a
 *   1 KiB blob, `COMMIT`.
 *
 * Invariant: every timed xmd call is checked to have appended live (not
 * replayed), and the events are counted in the database at the end, so a
 * call that silently did not commit fails the benchmark instead of timing it.
 *
 * @module
 */
import {
  createSecretGate,
  type Description,
  disabledSecretGate,
  type DurableStream,
  Journal,
  type JournalEvent,
  type Result,
  type SecretGate,
} from "@xmd/core";
import { DatabaseSync } from "node:sqlite";
import { openBenchRun } from "./_bench-run.ts";

/** Bytes of the effect's result text and of the peer's blob. */
export const PAYLOAD_BYTES = 1_024;

/** 1 KiB of text, different for each call (its first 8 characters are the call number). */
function payload(call: number): string {
  const line = "the quick brown fox jumps over the lazy dog, again and again\n";
  return (String(call).padStart(8, "0") + line.repeat(20)).slice(0, PAYLOAD_BYTES);
}

/** The open databases and the timed calls over them. */
export interface DurableEffectFixture extends Disposable {
  /** One live effect through `Journal.effect` with `createSecretGate()`. */
  effectWithGate(): Promise<void>;
  /** The same with the gate disabled (`--no-secret-detection`): the append alone. */
  effectWithoutGate(): Promise<void>;
  /** Only the secret gate's check of one such event's JSON, no I/O. */
  gateOnly(): Promise<void>;
  /** The peer: `BEGIN IMMEDIATE`, one 1 KiB INSERT, `COMMIT` on a bare database. */
  bareCommit(): void;
  /** Bytes of the JSON the gate scans and the store writes for one effect. */
  eventBytes: number;
  /** Throws unless the databases hold exactly the rows the calls committed. */
  verify(): void;
}

/** Opens both databases in `dir` (a folder on the disk under test). */
export async function openDurableEffectFixture(dir: string): Promise<DurableEffectFixture> {
  const { seam, store, execution } = await openBenchRun(`${dir}/run.sqlite`);
  const stream: DurableStream = {
    readAll: () => Promise.resolve(store.events().map((entry) => entry.event)),
    append: (event) => {
      store.append(execution, event);
      return Promise.resolve();
    },
  };
  const secretGate = createSecretGate();
  const gated = await Journal.open(stream, secretGate);
  const ungated = await Journal.open(stream, disabledSecretGate);

  const bare = new DatabaseSync(`${dir}/bare.sqlite`);
  bare.exec("PRAGMA journal_mode = WAL");
  bare.exec("PRAGMA synchronous = FULL");
  bare.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, body BLOB NOT NULL) STRICT");
  const insert = bare.prepare("INSERT INTO item (body) VALUES (?)");
  const blob = crypto.getRandomValues(new Uint8Array(PAYLOAD_BYTES));

  let calls = 0;
  let appended = 0;
  let inserted = 0;
  const describe = (call: number): Description => ({
    type: "file.read",
    name: "File bench.md:3:1",
    path: `in/${call}.txt`,
  });
  const effect = async (journal: Journal) => {
    const call = ++calls;
    const result: Result = { status: "ok", value: payload(call) };
    const settled = await journal.effect("root", describe(call), () => Promise.resolve(result));
    if (settled.replayed) throw new Error("Cannot benchmark a live effect: it was replayed");
    appended++;
  };
  const event = (call: number): JournalEvent => ({
    type: "yield",
    coroutineId: "root",
    description: describe(call),
    result: { status: "ok", value: payload(call) },
  });
  const check = (gate: SecretGate, call: number) =>
    gate.check(JSON.stringify(event(call)), 'journal event "File bench.md:3:1"');

  return {
    effectWithGate: () => effect(gated),
    effectWithoutGate: () => effect(ungated),
    gateOnly: () => check(secretGate, ++calls),
    bareCommit: () => {
      bare.exec("BEGIN IMMEDIATE");
      insert.run(blob);
      bare.exec("COMMIT");
      inserted++;
    },
    eventBytes: new TextEncoder().encode(JSON.stringify(event(1))).length,
    verify: () => {
      const events = store.record().eventCount;
      const items = Number(bare.prepare("SELECT count(*) AS n FROM item").get()!.n);
      if (events !== appended || items !== inserted) {
        throw new Error(
          `Cannot trust the durable effect bench: ${events} of ${appended} events, ${items} of ${inserted} rows`,
        );
      }
    },
    [Symbol.dispose]: () => {
      seam[Symbol.dispose]();
      bare.close();
    },
  };
}
