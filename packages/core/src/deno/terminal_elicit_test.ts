import assert from "node:assert/strict";
import type { ElicitRequest } from "../engine/providers.ts";
import type { JsonValue } from "../json/json-value.ts";
import { ElicitAnswerError, TerminalElicit } from "./terminal-elicit.ts";

/** A question about `approval` with `schema`. */
function question(schema: JsonValue, signal = new AbortController().signal): ElicitRequest {
  return { name: "approval", question: "Publish version 1.4.0?", schema, signal };
}

/** A stdin that yields `chunks` then ends. */
function stdinOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return ReadableStream.from(chunks.map((chunk) => encoder.encode(chunk)));
}

/** A terminal elicit reading `stdin`, recording what it writes. */
function terminal(stdin: ReadableStream<Uint8Array>) {
  const written: string[] = [];
  const elicit = new TerminalElicit({
    answers: new Map(),
    interactive: true,
    stdin,
    stderr: (text) => written.push(text),
  });
  return { elicit, written };
}

const objectSchema = { type: "object", properties: { ok: { type: "boolean" } } };

Deno.test("TerminalElicit: returns a supplied answer without asking", async () => {
  const written: string[] = [];
  const elicit = new TerminalElicit({
    answers: new Map([["approval", '{"ok":true}']]),
    interactive: false,
    stderr: (text) => written.push(text),
  });
  assert.deepEqual(await elicit.ask(question(objectSchema)), { ok: true });
  assert.deepEqual(written, []);
});

Deno.test("TerminalElicit: refuses a supplied answer that is not JSON", async () => {
  const elicit = new TerminalElicit({
    answers: new Map([["approval", "{ok: yes}"]]),
    interactive: true,
    stdin: stdinOf('{"ok":true}\n'),
    stderr: () => {},
  });
  await assert.rejects(elicit.ask(question(objectSchema)), (error) => {
    assert.ok(error instanceof ElicitAnswerError);
    assert.equal(error.name, "ElicitAnswerError");
    assert.equal(error.binding, "approval");
    assert.equal(error.message, 'Invalid --answer for "approval": not valid JSON');
    return true;
  });
});

Deno.test("TerminalElicit: refuses to ask without a terminal", async () => {
  const elicit = new TerminalElicit({ answers: new Map(), interactive: false, stderr: () => {} });
  await assert.rejects(elicit.ask(question(objectSchema)), (error) => {
    assert.ok(error instanceof ElicitAnswerError);
    assert.equal(
      error.message,
      'Cannot ask "approval": stdin is not a terminal. Pass --answer approval=<json>.',
    );
    return true;
  });
});

Deno.test("TerminalElicit: asks on the terminal and parses the typed JSON", async () => {
  const { elicit, written } = terminal(stdinOf('{"ok":', "false}\r\n"));
  assert.deepEqual(await elicit.ask(question(objectSchema)), { ok: false });
  assert.equal(
    written.join(""),
    `Publish version 1.4.0?\n${JSON.stringify(objectSchema)}\n> `,
  );
});

Deno.test("TerminalElicit: asks again after a line that is not JSON", async () => {
  const { elicit, written } = terminal(stdinOf("oops\n", "[1, 2]\n"));
  assert.deepEqual(await elicit.ask(question({ type: "array" })), [1, 2]);
  assert.equal(written.at(-1), "That is not JSON; type a JSON value.\n> ");
});

Deno.test("TerminalElicit: takes a bare line as a string for a string schema", async () => {
  const { elicit } = terminal(stdinOf("1.4.0\n", '"quoted"\n', "42\n"));
  const schema = { type: "string" };
  assert.equal(await elicit.ask(question(schema)), "1.4.0");
  assert.equal(await elicit.ask(question(schema)), "quoted");
  assert.equal(await elicit.ask(question({ type: ["string", "null"] })), "42");
});

Deno.test("TerminalElicit: accepts yes and no for a boolean schema", async () => {
  const { elicit } = terminal(stdinOf("y\nNo\nYES\nn\ntrue\n"));
  const schema = { type: "boolean" };
  const answers = [];
  for (let i = 0; i < 5; i++) answers.push(await elicit.ask(question(schema)));
  assert.deepEqual(answers, [true, false, true, false, true]);
});

Deno.test("TerminalElicit: reads one line per question from a shared stdin", async () => {
  const { elicit } = terminal(stdinOf("1\n2\n", "3"));
  const schema = { type: "number" };
  assert.equal(await elicit.ask(question(schema)), 1);
  assert.equal(await elicit.ask(question(schema)), 2);
  assert.equal(await elicit.ask(question(schema)), 3);
  await assert.rejects(elicit.ask(question(schema)), (error) => {
    assert.ok(error instanceof ElicitAnswerError);
    assert.match(error.message, /^Cannot ask "approval": stdin ended before an answer was typed/);
    return true;
  });
});

Deno.test("TerminalElicit: an abort rejects with the signal's reason", async () => {
  let enqueue!: (chunk: Uint8Array) => void;
  const stdin = new ReadableStream<Uint8Array>({
    start(controller) {
      enqueue = (chunk) => controller.enqueue(chunk);
    },
  });
  const { elicit } = terminal(stdin);
  const controller = new AbortController();
  const reason = new Error("cancelled");
  const asked = elicit.ask(question({ type: "number" }, controller.signal));
  controller.abort(reason);
  await assert.rejects(asked, (error) => error === reason);
  await assert.rejects(
    elicit.ask(question({ type: "number" }, AbortSignal.abort(reason))),
    (error) => error === reason,
  );
  // The typed line the aborted question was waiting for goes to the next one.
  enqueue(new TextEncoder().encode("7\n"));
  assert.equal(await elicit.ask(question({ type: "number" })), 7);
});
