import assert from "node:assert/strict";
import { compileAnswerSchema } from "../engine/answer-schema.ts";
import type { ElicitRequest } from "../engine/providers.ts";
import type { JsonValue } from "../json/json-value.ts";
import { ElicitAnswerError, TerminalElicit } from "./terminal-elicit.ts";
import { TerminalLine } from "./terminal-line.ts";
import { loadSchemaLibrary } from "../document/schema-library.ts";

// These tests compile answer schemas directly, which loadProgram loads Ajv for when a program asks.
await loadSchemaLibrary();

/** A question about `approval` with `schema`, checked as the engine checks it. */
function question(schema: JsonValue, signal = new AbortController().signal): ElicitRequest {
  const problems = compileAnswerSchema(schema, { file: "doc.md", line: 1, column: 1 });
  return { name: "approval", question: "Publish version 1.4.0?", schema, problems, signal };
}

/** A stdin that yields `chunks` then ends. */
function stdinOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return ReadableStream.from(chunks.map((chunk) => encoder.encode(chunk)));
}

/** A terminal elicit reading `stdin`, recording what it writes. */
function terminal(stdin: ReadableStream<Uint8Array>, line?: TerminalLine) {
  const written: string[] = [];
  const elicit = new TerminalElicit({
    answers: new Map(),
    interactive: true,
    stdin,
    stderr: (text) => written.push(text),
    ...(line ? { line } : {}),
  });
  return { elicit, written, screen: () => written.join("") };
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

Deno.test("MDX-69: TerminalElicit asks an object field by field, or takes it as JSON", async () => {
  const { elicit, screen } = terminal(stdinOf("y\n", '{"ok":', "false}\r\n"));
  assert.deepEqual(await elicit.ask(question(objectSchema)), { ok: true });
  assert.equal(screen(), "Publish version 1.4.0?\n  ok (y/n, optional, Enter skips) > ");
  assert.deepEqual(await elicit.ask(question(objectSchema)), { ok: false });
});

Deno.test("MDX-29: TerminalElicit asks again after a line that is not JSON", async () => {
  const { elicit, written } = terminal(stdinOf("oops\n", "[1, 2]\n"));
  assert.deepEqual(await elicit.ask(question({ type: "array" })), [1, 2]);
  assert.deepEqual(written.slice(-3), [
    "(JSON) > ",
    "That is not JSON; type a JSON value (? shows the schema).\n",
    "(JSON) > ",
  ]);
});

Deno.test("MDX-29: TerminalElicit asks again after an answer that fails the schema", async () => {
  const schema = { type: "integer", minimum: 1 };
  const { elicit, screen } = terminal(stdinOf("0\n", "3\n"));
  assert.equal(await elicit.ask(question(schema)), 3);
  assert.equal(
    screen(),
    "Publish version 1.4.0?\n(JSON) > That answer does not match the schema: answer must be >= 1. " +
      "Try again (? shows the schema).\n(JSON) > ",
  );
});

Deno.test("MDX-29: TerminalElicit shows the schema only when asked with ?", async () => {
  const { elicit, screen } = terminal(stdinOf("?\n", "yes\n"));
  assert.equal(await elicit.ask(question({ type: "boolean" })), true);
  assert.equal(
    screen(),
    'Publish version 1.4.0?\n(y/n) > The answer must match this JSON Schema: {"type":"boolean"}\n' +
      "(y/n) > ",
  );
  const typed = terminal(stdinOf('"?"\n'));
  assert.equal(await typed.elicit.ask(question({ type: "string" })), "?");
});

Deno.test("MDX-29: TerminalElicit starts the question on its own line", async () => {
  const line = new TerminalLine();
  const stdout = line.follow(() => {});
  stdout("ready.");
  const { elicit, screen } = terminal(stdinOf("y\n", "n\n"), line);
  assert.equal(await elicit.ask(question({ type: "boolean" })), true);
  assert.equal(screen(), "\nPublish version 1.4.0?\n(y/n) > ");
  // The typed line's newline ended the line: the next question needs no blank line before it.
  assert.equal(await elicit.ask(question({ type: "boolean" })), false);
  assert.equal(screen(), "\nPublish version 1.4.0?\n(y/n) > Publish version 1.4.0?\n(y/n) > ");
});

Deno.test("MDX-69: TerminalElicit offers an enum as numbered choices", async () => {
  const schema = { enum: ["stable", "beta", null] };
  const { elicit, screen } = terminal(stdinOf("4\n", "2\n", "stable\n", "null\n"));
  assert.equal(await elicit.ask(question(schema)), "beta");
  assert.equal(
    screen(),
    "Publish version 1.4.0?\n  1. stable\n  2. beta\n  3. null\n(1-3) > " +
      "Type one of the choices, or its number (1-3).\n  1. stable\n  2. beta\n  3. null\n(1-3) > ",
  );
  assert.equal(await elicit.ask(question(schema)), "stable");
  assert.equal(await elicit.ask(question(schema)), null);
});

Deno.test("MDX-69: TerminalElicit takes numeric choices by value, not by position", async () => {
  const { elicit, screen } = terminal(stdinOf("3\n", "5\n"));
  assert.equal(await elicit.ask(question({ enum: [1, 2, 5] })), 5);
  assert.ok(screen().includes("  1\n  2\n  5\n(a choice) > Type one of the choices.\n"), screen());
});

Deno.test("MDX-69: TerminalElicit asks field by field and asks again only what was wrong", async () => {
  const schema = {
    type: "object",
    properties: {
      version: { type: "string", pattern: "^\\d+\\.\\d+\\.\\d+$", description: "The version" },
      channel: { enum: ["stable", "beta"] },
      notes: { type: "string" },
      approve: { type: "boolean" },
    },
    required: ["version", "channel", "approve"],
    additionalProperties: false,
  };
  const { elicit, screen } = terminal(stdinOf("1.4\n", "2\n", "\n", "sure\n", "y\n", "1.4.0\n"));
  assert.deepEqual(await elicit.ask(question(schema)), {
    version: "1.4.0",
    channel: "beta",
    approve: true,
  });
  assert.equal(
    screen(),
    "Publish version 1.4.0?\n" +
      "  The version\n  version > " +
      "    1. stable\n    2. beta\n  channel (1-2) > " +
      "  notes (optional, Enter skips) > " +
      "  approve (y/n) > " +
      "  Type y or n.\n  approve (y/n) > " +
      'That answer does not match the schema: /version must match pattern "^\\d+\\.\\d+\\.\\d+$". ' +
      "Try again (? shows the schema).\n" +
      "  The version\n  version > ",
  );
});

Deno.test("MDX-69: a JSON object typed at the first field answers the whole question", async () => {
  const schema = {
    type: "object",
    properties: { ok: { type: "boolean" }, note: { type: "string" } },
    required: ["ok"],
  };
  const { elicit, screen } = terminal(stdinOf('{"note":"x"}\n', '{"ok":true,"note":"x"}\n'));
  assert.deepEqual(await elicit.ask(question(schema)), { ok: true, note: "x" });
  assert.equal(
    screen(),
    "Publish version 1.4.0?\n  ok (y/n) > " +
      "That answer does not match the schema: answer must have required property 'ok'. " +
      "Try again (? shows the schema).\n  ok (y/n) > ",
  );
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
