/**
 * JRN-31: the journal tells its stream where each live effect begins and
 * ends, so a stream can keep an effect's own writes with its Yield.
 */
import assert from "node:assert/strict";
import { createSecretGate, disabledSecretGate, SecretDetectedError } from "../secret/mod.ts";
import type { DurableStream } from "./durable-stream.ts";
import type { Description, JournalEvent } from "./events.ts";
import { Journal } from "./journal.ts";
import { MemoryStream } from "./memory-stream.ts";

/** A memory stream that logs every call the journal makes on it, in order. */
class BracketLog implements DurableStream {
  readonly log: string[] = [];
  readonly #inner: MemoryStream;

  constructor(recorded: JournalEvent[] = []) {
    this.#inner = new MemoryStream(recorded);
  }

  readAll(): Promise<JournalEvent[]> {
    return this.#inner.readAll();
  }

  append(event: JournalEvent): Promise<void> {
    this.log.push(event.type === "yield" ? `append ${event.description.name}` : "append close");
    return this.#inner.append(event);
  }

  beginEffect(coroutineId: string, description: Description): void {
    this.log.push(`begin ${coroutineId} ${description.name}`);
  }

  abandonEffect(): void {
    this.log.push("abandon");
  }

  get events(): JournalEvent[] {
    return this.#inner.events;
  }
}

const write = (name: string): Description => ({ type: "file.write", name, path: name });

Deno.test("JRN-31 a live effect begins before it runs and ends with its Yield; a Close has no bracket", async () => {
  const stream = new BracketLog();
  const journal = await Journal.open(stream, disabledSecretGate);
  await journal.effect("root", write("a"), () => {
    stream.log.push("run a");
    return Promise.resolve({ status: "ok", value: null });
  });
  await journal.effect("root", write("b"), () => {
    stream.log.push("run b");
    return Promise.resolve({ status: "err", error: { name: "FileSystemError", message: "no" } });
  });
  await journal.close("root", { status: "ok", value: null });
  assert.deepEqual(stream.log, [
    "begin root a",
    "run a",
    "append a",
    "begin root b",
    "run b",
    "append b",
    "append close",
  ]);
});

Deno.test("JRN-31 a replayed effect is not begun; the first live one after it is", async () => {
  const recorded: JournalEvent[] = [{
    type: "yield",
    coroutineId: "root",
    description: write("a"),
    result: { status: "ok", value: null },
  }];
  const stream = new BracketLog(recorded);
  const journal = await Journal.open(stream, disabledSecretGate);
  const replayed = await journal.effect("root", write("a"), () => {
    throw new Error("a replayed effect does not run");
  });
  assert.equal(replayed.replayed, true);
  await journal.effect("root", write("b"), () => Promise.resolve({ status: "ok", value: null }));
  assert.deepEqual(stream.log, ["begin root b", "append b"]);
});

Deno.test("JRN-31 an effect that ends without a durable Yield is abandoned: its run threw, or the gate refused its Yield", async () => {
  const lost = new Error("the shell died");
  const thrown = new BracketLog();
  const journal = await Journal.open(thrown, disabledSecretGate);
  await assert.rejects(
    journal.effect("root", write("a"), () => Promise.reject(lost)),
    (error) => error === lost,
  );
  // Not a failed append: the journal goes on, and the next effect is bracketed afresh.
  await journal.effect("root", write("b"), () => Promise.resolve({ status: "ok", value: null }));
  assert.deepEqual(thrown.log, ["begin root a", "abandon", "begin root b", "append b"]);
  assert.equal(thrown.events.length, 1);

  const refused = new BracketLog();
  const gated = await Journal.open(refused, createSecretGate());
  const key = "AKIA" + "QYLPMN5HHHFPZAM2";
  await assert.rejects(
    gated.effect("root", write("c"), () => Promise.resolve({ status: "ok", value: key })),
    SecretDetectedError,
  );
  assert.deepEqual(refused.log, ["begin root c", "abandon"]);
  assert.equal(refused.events.length, 0);
});

Deno.test("JRN-31 a stream that refuses to begin an effect keeps it from running, and nothing is appended", async () => {
  const stream = new BracketLog();
  const refusal = new Error("this stream cannot hold an effect");
  stream.beginEffect = () => {
    throw refusal;
  };
  const journal = await Journal.open(stream, disabledSecretGate);
  let ran = false;
  await assert.rejects(
    journal.effect("root", write("a"), () => {
      ran = true;
      return Promise.resolve({ status: "ok", value: null });
    }),
    (error) => error === refusal,
  );
  assert.equal(ran, false);
  assert.equal(stream.events.length, 0);
});
