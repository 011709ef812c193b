/**
 * `xmd workflow answer`'s input forms, through the real CLI: JSON from
 * standard input (`-`) or a file (`--file`), a string question's raw string
 * (`--text`), and a question named by its `as` name; every refusal leaves
 * the run database byte-for-byte as it was.
 */
import assert from "node:assert/strict";
import { sha256Hex } from "@xmd/core";
import { runXmd, xmdCommandLine, xmdEnvironment, type XmdResult } from "./_run-xmd.ts";
import { testFolder } from "../../../core/src/deno/_test-temp-folder.ts";

const DOC = [
  '<Elicit as="note" schema={{ type: "string", minLength: 1 }}>A note?</Elicit>',
  "",
  "Note: {note}",
  "",
  '<Elicit as="ship" schema={{ type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }}>Ship?</Elicit>',
  "",
  "<If condition={ship.ok}>Shipped.</If>",
  "",
].join("\n");

interface Box {
  cwd: string;
  runs: string;
  xmd(...args: string[]): Promise<XmdResult>;
  /** `xmd workflow <args>` with `input` on standard input. */
  piped(input: Uint8Array | string, ...args: string[]): Promise<XmdResult>;
  bytes(id: string): Promise<Uint8Array>;
}

async function box(): Promise<Box> {
  const cwd = await testFolder("xmd-answer-");
  const runs = `${cwd}/runs`;
  await Deno.writeTextFile(`${cwd}/doc.md`, DOC);
  const env = { XMD_WORKFLOW_RUNS: runs };
  return {
    cwd,
    runs,
    xmd: (...args) => runXmd(["workflow", ...args], { cwd, env }),
    piped: async (input, ...args) => {
      const [command, ...rest] = xmdCommandLine(["workflow", ...args]);
      const child = new Deno.Command(command, {
        args: rest,
        cwd,
        clearEnv: true,
        env: xmdEnvironment(env),
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(typeof input === "string" ? new TextEncoder().encode(input) : input);
      await writer.close();
      const output = await child.output();
      const decoder = new TextDecoder();
      return {
        code: output.code,
        stdout: decoder.decode(output.stdout),
        stderr: decoder.decode(output.stderr),
      };
    },
    bytes: (id) => Deno.readFile(`${runs}/${sha256Hex(id)}.sqlite`),
  };
}

function refused(result: XmdResult, message: string): void {
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, "");
  assert.equal(result.stderr, `xmd: ${message}\n`);
}

function answered(result: XmdResult, suspension: string, id: string): void {
  assert.equal(result.stderr, "");
  assert.equal(
    result.stdout,
    `answered ${suspension} of run ${id}; continue it with: xmd workflow resume ${id}\n`,
  );
  assert.equal(result.code, 0);
}

Deno.test("WF-85 WF-86 WF-87: answers from standard input, a file, --text and by as name finish the run as answers in argv do", async () => {
  const b = await box();
  // The reference: both answers as JSON arguments, by suspension id.
  assert.equal((await b.xmd("start", "--id=argv", "doc.md")).code, 2);
  answered(await b.xmd("answer", "argv", "note-2", '"Ready: \\"go\\" $HOME"'), "note-2", "argv");
  assert.equal((await b.xmd("resume", "argv")).code, 2);
  answered(await b.xmd("answer", "argv", "ship-4", '{"ok":true}'), "ship-4", "argv");
  const reference = await b.xmd("resume", "argv");
  assert.equal(reference.code, 0, reference.stderr);

  // The same answers: the string raw with --text and by name, the object on standard input.
  assert.equal((await b.xmd("start", "--id=text", "doc.md")).code, 2);
  answered(await b.xmd("answer", "text", "note", '--text=Ready: "go" $HOME'), "note-2", "text");
  assert.equal((await b.xmd("resume", "text")).code, 2);
  answered(await b.piped('{"ok":true}\n', "answer", "text", "ship", "-"), "ship-4", "text");
  const text = await b.xmd("resume", "text");

  // From files, one with a byte-order mark; a string as JSON with --file.
  await Deno.writeTextFile(`${b.cwd}/note.json`, '\uFEFF"Ready: \\"go\\" $HOME"\n');
  await Deno.writeTextFile(`${b.cwd}/ship.json`, '{ "ok": true }');
  assert.equal((await b.xmd("start", "--id=file", "doc.md")).code, 2);
  answered(await b.xmd("answer", "file", "note-2", "--file=note.json"), "note-2", "file");
  assert.equal((await b.xmd("resume", "file")).code, 2);
  answered(await b.xmd("answer", "--file", `${b.cwd}/ship.json`, "file", "ship"), "ship-4", "file");
  const file = await b.xmd("resume", "file");

  for (const [id, result] of [["text", text], ["file", file]] as const) {
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, reference.stdout, `run ${id}'s output`);
    assert.equal(result.stderr, reference.stderr.replaceAll("argv", id));
  }
  assert.match(reference.stdout, /Note: Ready: "go" \$HOME/);
  const history = async (id: string) =>
    JSON.parse((await b.xmd("history", id, "--json")).stdout).events.map(
      (event: { result: unknown; description?: unknown }) => [event.description, event.result],
    );
  assert.deepEqual(await history("text"), await history("argv"));
  assert.deepEqual(await history("file"), await history("argv"));
});

Deno.test("WF-85 WF-86 WF-87: each refused answer form is explained in one line, never echoes the answer, and changes nothing", async () => {
  const b = await box();
  assert.equal((await b.xmd("start", "--id=r", "doc.md")).code, 2);
  const before = await b.bytes("r");
  await Deno.mkdir(`${b.cwd}/folder`);
  await Deno.writeFile(`${b.cwd}/latin1.json`, new Uint8Array([0x22, 0xe9, 0x22]));
  const secret = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A";
  const cases: [Promise<XmdResult>, string][] = [
    [
      b.xmd("answer", "r", "note-2"),
      "Missing the answer: give it as JSON, - (JSON on standard input), --file=<path> or --text=<value>",
    ],
    [
      b.xmd("answer", "r", "note-2", '"a"', "--text=b"),
      "Give the answer once: as JSON, - (JSON on standard input), --file=<path> or --text=<value>, not two of them",
    ],
    [
      b.piped("Ready to go", "answer", "r", "note-2", "-"),
      'Cannot read the answer from standard input: it is not valid JSON. Write JSON such as {"ok":true} or "text", or give a string question\'s answer with --text=<value>',
    ],
    [
      b.piped("\n", "answer", "r", "note", "-"),
      "Cannot read the answer from standard input: it is empty",
    ],
    [
      b.xmd("answer", "r", "note-2", "--file=missing.json"),
      'Cannot read the answer from "missing.json": no such file',
    ],
    [
      b.xmd("answer", "r", "note-2", "--file=folder"),
      'Cannot read the answer from "folder": it is a directory',
    ],
    [
      b.xmd("answer", "r", "note-2", "--file=latin1.json"),
      'Cannot read the answer from "latin1.json": it is not UTF-8 text',
    ],
    [
      b.xmd("answer", "r", "ship", "true"),
      'Cannot answer "ship": run "r" waits for note-2',
    ],
    [
      b.piped('""', "answer", "r", "note", "-"),
      "Cannot accept the answer to note-2: it does not match the question's schema: answer must NOT have fewer than 1 characters",
    ],
    [
      b.xmd("answer", "r", "note", `--text=${secret}`),
      "Cannot persist the answer to note-2: it contains what looks like a secret (rule github-token). " +
      "Remove the secret from the document or its inputs, or pass --no-secret-detection to turn " +
      "the check off for one command.",
    ],
    [
      b.piped(JSON.stringify(secret), "answer", "r", "note-2", "-"),
      "Cannot persist the answer to note-2: it contains what looks like a secret (rule github-token). " +
      "Remove the secret from the document or its inputs, or pass --no-secret-detection to turn " +
      "the check off for one command.",
    ],
  ];
  for (const [result, message] of cases) {
    const outcome = await result;
    refused(outcome, message);
    assert.ok(!outcome.stderr.includes(secret.slice(4)), "a refusal echoed the answer");
    assert.ok(!outcome.stderr.includes("Ready to go"), "a refusal echoed the answer");
  }
  assert.deepEqual(await b.bytes("r"), before, "a refused answer changed the run");

  // --text only serves a string question.
  answered(await b.xmd("answer", "r", "note", "--text=fine"), "note-2", "r");
  assert.equal((await b.xmd("resume", "r")).code, 2);
  const suspended = await b.bytes("r");
  refused(
    await b.xmd("answer", "r", "ship", "--text=yes"),
    'Cannot use --text for ship-4: its schema\'s type is "object", not "string". Give the answer as JSON instead (as an argument, - or --file)',
  );
  refused(
    await b.xmd("answer", "r", "note", "--text=again"),
    'Cannot answer "note": run "r" waits for ship-4',
  );
  assert.deepEqual(await b.bytes("r"), suspended, "a refused answer changed the run");

  // A run that waits for nothing is refused by name as by suspension id.
  answered(await b.xmd("answer", "r", "ship", '{"ok":false}'), "ship-4", "r");
  assert.equal((await b.xmd("resume", "r")).code, 0);
  const completed = await b.bytes("r");
  refused(
    await b.xmd("answer", "r", "ship", "--text=x"),
    'Cannot answer run "r": it is completed, not waiting for an answer',
  );
  assert.deepEqual(await b.bytes("r"), completed, "a refused answer changed the run");
});
