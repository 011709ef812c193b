/**
 * `<Elicit>` as a person meets it: the real `xmd run` on a pseudo-terminal,
 * reading its prompts and typing answers, and the same documents without a
 * terminal.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runXmd } from "./_run-xmd.ts";
import { XmdTerminal } from "./_test-pty.ts";
import { testFolder } from "../../../core/src/deno/_test-temp-folder.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../examples/", import.meta.url));

async function tempDir(): Promise<string> {
  return await testFolder("xmd-ask-");
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** The files of `dir`, sorted. */
async function files(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

const RELEASE = `ready.

<File path="before.txt">written before the questions</File>

<Elicit as="version" schema={{ type: "string", pattern: "^[0-9]+[.][0-9]+[.][0-9]+$" }}>Which version?</Elicit>

<Elicit as="ok" schema={{ type: "boolean" }}>Approve release {version}?</Elicit>

Released {version}: {ok}.
`;

Deno.test("MDX-29: on a terminal a wrong answer is asked again and the run goes on", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(`${cwd}/release.md`, RELEASE);
  const xmd = XmdTerminal.start(["run", "--journal=trace.jsonl", "release.md"], { cwd });
  let at = await xmd.waitFor("Which version?\n> ");
  await xmd.type("9.9");
  at = await xmd.waitFor("Try again (? shows the schema).\n> ", at);
  await xmd.type("9.9.0");
  at = await xmd.waitFor("(y/n) > ", at);
  await xmd.type("maybe");
  at = await xmd.waitFor("Type y or n.\n(y/n) > ", at);
  await xmd.type("y");
  const { code, screen } = await xmd.exit();
  assert.equal(code, 0, screen);
  assert.equal(
    screen,
    [
      // The question starts on its own line, although the document's text did not end one.
      "ready.",
      "Which version?",
      "> 9.9",
      'That answer does not match the schema: answer must match pattern "^[0-9]+[.][0-9]+[.][0-9]+$". Try again (? shows the schema).',
      "> 9.9.0",
      "Approve release 9.9.0?",
      "(y/n) > maybe",
      "Type y or n.",
      "(y/n) > y",
      "",
      "",
      "Released 9.9.0: true.",
      "",
    ].join("\n"),
  );
  // Only the valid answers were journaled; the effect before the questions ran once.
  const journal = await Deno.readTextFile(`${cwd}/trace.jsonl`);
  const answers = journal.trim().split("\n").map((line) => JSON.parse(line))
    .filter((event) => event.description?.type === "elicit")
    .map((event) => event.result.value);
  assert.deepEqual(answers, ["9.9.0", true]);
  assert.equal(await Deno.readTextFile(`${cwd}/before.txt`), "written before the questions");
});

Deno.test("MDX-69: the README's release example asks its object field by field, the schema on request", async () => {
  const cwd = await tempDir();
  const xmd = XmdTerminal.start(["run", `${EXAMPLES}release.md`, "--props-version=1.4.0"], { cwd });
  let at = await xmd.waitFor("Publish version 1.4.0?\n  ok (y/n) > ");
  assert.doesNotMatch(xmd.screen, /"type"/, "the raw schema was shown unasked");
  await xmd.type("?");
  at = await xmd.waitFor("  ok (y/n) > ", at);
  await xmd.type("y");
  const { code, screen } = await xmd.exit();
  assert.equal(code, 0, screen);
  const schema = JSON.stringify({
    type: "object",
    properties: { ok: { type: "boolean" } },
    required: ["ok"],
  });
  assert.ok(
    screen.includes(
      "\nPublish version 1.4.0?\n  ok (y/n) > ?\n" +
        `  The answer must match this JSON Schema: ${schema}\n  ok (y/n) > y\n`,
    ),
    screen,
  );
  assert.match(screen, /Published 1\.4\.0\.\n$/);
  assert.equal(await Deno.readTextFile(`${cwd}/release/PUBLISHED`), "yes");
});

Deno.test("MDX-69: an enum is a numbered choice and a JSON object answers a whole question", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(
    `${cwd}/ship.md`,
    `<Elicit as="channel" schema={{ enum: ["stable", "beta"] }}>Which channel?</Elicit>

<Elicit as="notes" schema={{ type: "object", properties: { title: { type: "string" }, draft: { type: "boolean" } }, required: ["title"] }}>Release notes?</Elicit>

Shipping to {channel}: {notes.title} (draft: {notes.draft}).
`,
  );
  const xmd = XmdTerminal.start(["run", "ship.md"], { cwd });
  let at = await xmd.waitFor("Which channel?\n  1. stable\n  2. beta\n(1-2) > ");
  await xmd.type("3");
  at = await xmd.waitFor("Type one of the choices, or its number (1-2).\n", at);
  at = await xmd.waitFor("(1-2) > ", at);
  await xmd.type("2");
  at = await xmd.waitFor("Release notes?\n  title > ", at);
  await xmd.type('{"title":"Faster","draft":false}');
  const { code, screen } = await xmd.exit();
  assert.equal(code, 0, screen);
  assert.match(screen, /Shipping to beta: Faster \(draft: false\)\.\n$/);
});

Deno.test("MDX-71: without a terminal a question with no --answer is refused before anything runs", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(`${cwd}/release.md`, RELEASE);
  const refused = await runXmd(["run", "--journal=trace.jsonl", "release.md"], { cwd });
  assert.equal(refused.code, 1);
  assert.equal(refused.stdout, "");
  assert.equal(
    refused.stderr,
    'xmd: release.md:5:1: the document asks "version" and "ok", and stdin is not a terminal. ' +
      "Pass --answer version=<json> --answer ok=<json>, or run it in a terminal\n",
  );
  assert.deepEqual(await files(cwd), ["release.md"], "a refused run wrote something");

  const half = await runXmd(["run", "release.md", "--answer", 'version="1.0.0"'], { cwd });
  assert.equal(half.code, 1);
  assert.equal(
    half.stderr,
    'xmd: release.md:7:1: the document asks "ok", and stdin is not a terminal. ' +
      "Pass --answer ok=<json>, or run it in a terminal\n",
  );
  assert.deepEqual(await files(cwd), ["release.md"]);

  const answered = await runXmd(
    ["run", "release.md", "--answer", 'version="1.0.0"', "--answer", "ok=false"],
    { cwd },
  );
  assert.equal(answered.code, 0, answered.stderr);
  assert.equal(answered.stdout, "ready.\n\nReleased 1.0.0: false.\n");
});

Deno.test("MDX-71: an --answer is checked before anything runs: its name, its JSON, a fixed schema", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(`${cwd}/release.md`, RELEASE);
  const cases: [string[], string][] = [
    [
      ["--answer", "vesion=1"],
      'xmd: Unknown --answer "vesion": the document has no <Elicit as="vesion">; it asks "version", "ok"\n',
    ],
    [["--answer", "ok=yes"], 'xmd: Invalid --answer for "ok": not valid JSON\n'],
    [
      ["--answer", 'version="9.9"', "--answer", "ok=true"],
      'xmd: The answer for "version" does not match its schema: answer must match pattern "^[0-9]+[.][0-9]+[.][0-9]+$"\n',
    ],
  ];
  for (const [answers, message] of cases) {
    const result = await runXmd(["run", "--journal=trace.jsonl", "release.md", ...answers], {
      cwd,
    });
    assert.equal(result.code, 1);
    assert.equal(result.stderr, message);
    assert.equal(result.stdout, "");
    assert.deepEqual(await files(cwd), ["release.md"], `${answers.join(" ")} wrote something`);
  }
});

Deno.test("MDX-71: only an <If> the props rule out spares its question; one --answer serves an <Each>", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(
    `${cwd}/doc.md`,
    `---
props:
  ask: { type: boolean, default: true }
---

<If condition={props.ask}>
<Elicit as="ok" schema={{ type: "boolean" }}>Go?</Elicit>
</If>

<Let as="n" value={2} />

<If condition={n > 5}>
<Elicit as="late" schema={{ type: "boolean" }}>Late?</Elicit>
</If>

<Each items={["a", "b"]} as="item">
<Elicit as="each" schema={{ type: "string" }}>Name for {item}?</Elicit>
- {item}: {each}
</Each>
`,
  );
  const refused = await runXmd(["run", "doc.md"], { cwd });
  assert.equal(
    refused.stderr,
    'xmd: doc.md:7:1: the document asks "ok", "late" and "each", and stdin is not a terminal. ' +
      "Pass --answer ok=<json> --answer late=<json> --answer each=<json>, or run it in a terminal\n",
  );
  // The props decide the first <If> before running; the second depends on a binding, so it
  // still needs an answer although this run never reaches it.
  const spared = await runXmd(
    ["run", "doc.md", "--props-ask=false", "--answer", "late=true", "--answer", 'each="x"'],
    { cwd },
  );
  assert.equal(spared.code, 0, spared.stderr);
  assert.equal(spared.stdout, "- a: x\n- b: x\n");
});

Deno.test("MDX-71: continuing a journal, a question it answered once needs no --answer", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(
    `${cwd}/doc.md`,
    `<Elicit as="ok" schema={{ type: "boolean" }}>Go?</Elicit>

\`\`\`sh exec
echo "went: {ok}"
\`\`\`

<Each items={[1]} as="i">
<Elicit as="again" schema={{ type: "number" }}>Again?</Elicit>
</Each>
`,
  );
  const full = await runXmd(
    ["run", "--journal=full.jsonl", "doc.md", "--answer", "ok=true", "--answer", "again=1"],
    { cwd },
  );
  assert.equal(full.code, 0, full.stderr);
  // The journal of a run stopped right after the first question.
  const lines = (await Deno.readTextFile(`${cwd}/full.jsonl`)).trim().split("\n");
  const asked = lines.findIndex((line) => JSON.parse(line).description?.type === "elicit");
  await Deno.writeTextFile(`${cwd}/half.jsonl`, lines.slice(0, asked + 1).join("\n") + "\n");
  const before = await Deno.readFile(`${cwd}/half.jsonl`);

  // A question inside <Each> may be asked again, so it still needs its --answer.
  const refused = await runXmd(["run", "--replay=half.jsonl", "doc.md"], { cwd });
  assert.equal(
    refused.stderr,
    'xmd: doc.md:8:1: the document asks "again", and stdin is not a terminal. ' +
      "Pass --answer again=<json>, or run it in a terminal\n",
  );
  assert.deepEqual(
    await Deno.readFile(`${cwd}/half.jsonl`),
    before,
    "a refusal changed the journal",
  );

  const continued = await runXmd(["run", "--replay=half.jsonl", "doc.md", "--answer", "again=1"], {
    cwd,
  });
  assert.equal(continued.code, 0, continued.stderr);
  assert.equal(continued.stdout, "went: true\n");
  assert.ok(await exists(`${cwd}/half.jsonl`));
});
