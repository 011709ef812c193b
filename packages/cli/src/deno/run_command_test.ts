import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runXmd, spawnXmd } from "./_run-xmd.ts";
import { testFolder } from "../../../core/src/deno/_test-temp-folder.ts";

const FIXTURES = fileURLToPath(new URL("../../fixtures/", import.meta.url));
const EXAMPLES = fileURLToPath(new URL("../../../../examples/", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../../../deno.json", import.meta.url));

async function tempDir(): Promise<string> {
  return await testFolder("xmd-cli-");
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

function assertNoStack(stderr: string): void {
  assert.doesNotMatch(stderr, /^\s+at /m, `stderr holds a stack trace:\n${stderr}`);
  assert.doesNotMatch(stderr, /internal error/);
}

Deno.test("xmd run prints the rendered hello example and runs its shell blocks", async () => {
  const cwd = await tempDir();
  const result = await runXmd(["run", `${EXAMPLES}hello.md`, "--props-name=Ada"], { cwd });
  assert.equal(result.stderr, "");
  assert.equal(result.code, 0);
  const folder = cwd.split("/").pop();
  assert.equal(
    result.stdout,
    `# Hello, Ada!\n\nThis document is a program. It knows 2 languages:\n\n- SH\n- MD\n\n` +
      `a shell block ran in ${folder}\n\nThe answer is 42.\n`,
  );
});

Deno.test("MDX-60 the working directory is the process's, never a stale INIT_CWD; --cwd and deno task xmd name another", async () => {
  const [here, stale] = await Promise.all([tempDir(), tempDir()]);
  const doc = (where: string) =>
    Deno.writeTextFile(`${where}/doc.md`, `<File path="out.txt">${where}</File>\nDone.\n`);
  await Promise.all([doc(here), doc(stale)]);
  const written = async (where: string) =>
    await exists(`${where}/out.txt`) ? await Deno.readTextFile(`${where}/out.txt`) : undefined;

  // Outside deno task, an INIT_CWD left by some earlier npm script does not move xmd.
  const outside = await runXmd(["run", "./doc.md"], { cwd: here, env: { INIT_CWD: stale } });
  assert.equal(outside.code, 0, outside.stderr);
  assert.equal(outside.stdout, "Done.\n");
  assert.equal(await written(here), here);
  assert.equal(await written(stale), undefined, "the stale INIT_CWD won");
  await Deno.remove(`${here}/out.txt`);

  // --cwd says where to run, as the repository's deno task does for its caller.
  const moved = await runXmd(["--cwd", stale, "run", "doc.md"], { cwd: here });
  assert.equal(moved.code, 0, moved.stderr);
  assert.equal(await written(stale), stale);
  assert.equal(await written(here), undefined);
  await Deno.remove(`${stale}/out.txt`);
  const missing = await runXmd(["--cwd=nowhere", "run", "doc.md"], { cwd: here });
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, 'xmd: Cannot use --cwd="nowhere": no such directory\n');

  // deno task xmd runs in the repository, and still resolves against the caller's folder.
  const task = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", `--config=${CONFIG}`, "xmd", "run", "doc.md"],
    cwd: here,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/tmp",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
      NO_COLOR: "1",
    },
    stdin: "null",
  }).output();
  assert.equal(task.code, 0, new TextDecoder().decode(task.stderr));
  assert.equal(new TextDecoder().decode(task.stdout), "Done.\n");
  assert.equal(await written(here), here);
});

Deno.test("xmd run <doc> --help lists the document's props with options and variables", async () => {
  const cwd = await tempDir();
  const result = await runXmd(["run", `${EXAMPLES}release.md`, "--help"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /--props-version=<string>/);
  assert.match(result.stdout, /XMD_PROPS_VERSION/);
  assert.match(result.stdout, /--props-dry-run/);
  assert.match(result.stdout, /XMD_PROPS_DRY_RUN/);
  assert.equal(await exists(`${cwd}/release`), false, "--help ran the document");
});

Deno.test("xmd run takes props by precedence: option, --props, variable, XMD_PROPS, default", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(
    `${cwd}/doc.md`,
    "---\nprops:\n  who:\n    type: string\n    default: fallback\n---\n\n{props.who}\n",
  );
  const run = async (args: string[], env: Record<string, string> = {}) => {
    const result = await runXmd(["run", "doc.md", ...args], { cwd, env });
    assert.equal(result.code, 0, result.stderr);
    return result.stdout.trim();
  };
  const allEnv = { XMD_PROPS_WHO: "variable", XMD_PROPS: '{"who":"whole"}' };
  assert.equal(await run(["--props-who=option", '--props={"who":"json"}'], allEnv), "option");
  assert.equal(await run(['--props={"who":"json"}'], allEnv), "json");
  assert.equal(await run([], allEnv), "variable");
  assert.equal(await run([], { XMD_PROPS: '{"who":"whole"}' }), "whole");
  assert.equal(await run([]), "fallback");
});

const REFUSALS: { fixture: string; args?: string[]; where: RegExp; what: RegExp }[] = [
  {
    fixture: "fail.unknown-component.md",
    where: /fail\.unknown-component\.md:5:1/,
    what: /Unknown component <Fiel> \(did you mean <File>\?\)/,
  },
  {
    fixture: "fail.unknown-modifier.md",
    where: /fail\.unknown-modifier\.md:3:1/,
    what: /Unknown code block modifier "sielnt" \(did you mean "silent"\?\)/,
  },
  {
    fixture: "fail.bad-prop-type.md",
    where: /fail\.bad-prop-type\.md:9:1/,
    what: /Invalid prop "n" for <Counter>/,
  },
  {
    fixture: "fail.malformed-expression.md",
    where: /fail\.malformed-expression\.md:3:\d+/,
    what: /expression/i,
  },
  {
    fixture: "fail.unterminated-element.md",
    where: /fail\.unterminated-element\.md:3:1/,
    what: /closing tag for `<If>`/,
  },
  {
    fixture: "fail.unterminated-fence.md",
    where: /fail\.unterminated-fence\.md:3:1/,
    what: /Unterminated code block/,
  },
  {
    fixture: "fail.component-cycle.md",
    where: /Pong\.md:1:6/,
    what: /Component cycle Ping → Pong → Ping/,
  },
  {
    fixture: "fail.assignment.md",
    where: /fail\.assignment\.md:3:8/,
    what: /[Aa]ssignment/,
  },
  {
    fixture: "fail.invalid-props-value.md",
    args: ["--props-version=abc"],
    where: /--props-version/,
    what: /must match pattern/,
  },
  {
    fixture: "fail.bad-props-schema.md",
    where: /fail\.bad-props-schema\.md:4:\d+/,
    what: /Cannot use this "type"/,
  },
  {
    fixture: "fail.ambiguous-target.md#B",
    where: /fail\.ambiguous-target\.md:9:1/,
    what: /matches 2 headings/,
  },
  {
    fixture: "fail.else-without-if.md",
    where: /fail\.else-without-if\.md:3:1/,
    what: /<Else> must directly follow an <If>/,
  },
];

for (const refusal of REFUSALS) {
  Deno.test(`xmd run refuses ${refusal.fixture} before anything runs`, async () => {
    const cwd = await tempDir();
    const result = await runXmd(["run", `${FIXTURES}${refusal.fixture}`, ...(refusal.args ?? [])], {
      cwd,
    });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /^xmd: /);
    assert.match(result.stderr, refusal.where);
    assert.match(result.stderr, refusal.what);
    assertNoStack(result.stderr);
    assert.equal(await exists(`${cwd}/ran.txt`), false, "the document ran before being refused");
  });
}

Deno.test("xmd run refuses a missing document and a target matching no heading", async () => {
  const cwd = await tempDir();
  const missing = await runXmd(["run", "nope.md"], { cwd });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Cannot read document "nope\.md": no such file/);
  assertNoStack(missing.stderr);
  await Deno.writeTextFile(`${cwd}/doc.md`, "# A\n\ntext\n");
  const zero = await runXmd(["run", "doc.md#Nope"], { cwd });
  assert.equal(zero.code, 1);
  assert.match(zero.stderr, /doc\.md:1:1: Target "#Nope" matches no heading/);
});

Deno.test("xmd run renders only the selected target section and its context", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(
    `${cwd}/doc.md`,
    "Preamble.\n\n# A\n\nA text.\n\n## B\n\nB text.\n\n## C\n\nC text.\n\n# D\n\nD text.\n",
  );
  const result = await runXmd(["run", "doc.md#A/C"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "Preamble.\n\n# A\n\nA text.\n\n## C\n\nC text.\n");
});

Deno.test("a failing shell block streams its output, then fails the run with its position", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(
    `${cwd}/doc.md`,
    "Before.\n\n```sh exec\necho partial\nexit 3\n```\n\nAfter.\n",
  );
  const result = await runXmd(["run", "doc.md"], { cwd });
  assert.equal(result.code, 1);
  assert.equal(result.stdout, "Before.\n\npartial\n");
  assert.match(result.stderr, /xmd: doc\.md:3:1: The sh block exited with code 3/);
  assertNoStack(result.stderr);
});

Deno.test("<Elicit> needs --answer when stdin is not a terminal, and validates it", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(
    `${cwd}/doc.md`,
    '<Elicit as="ok" schema={{ type: "boolean" }}>Proceed?</Elicit>\n\nAnswer: {ok}\n',
  );
  const unanswered = await runXmd(["run", "doc.md"], { cwd });
  assert.equal(unanswered.code, 1);
  assert.match(unanswered.stderr, /stdin is not a terminal/);
  assert.match(unanswered.stderr, /--answer ok=/);
  assertNoStack(unanswered.stderr);

  const wrong = await runXmd(["run", "doc.md", "--answer", 'ok="yes"'], { cwd });
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /does not match its schema/);
  assert.doesNotMatch(wrong.stderr, /"yes"/);

  const answered = await runXmd(["run", "doc.md", "--answer", "ok=true"], { cwd });
  assert.equal(answered.code, 0, answered.stderr);
  assert.equal(answered.stdout, "Answer: true\n");
});

const JOURNALED_DOC = [
  "# Journaled",
  "",
  '<File path="a.txt">first</File>',
  "",
  "```sh exec",
  "echo run >> effects.log",
  "echo shell says hi",
  "```",
  "",
  '<File path="b.txt">second</File>',
  "",
  '<File path="a.txt" as="a" />',
  "",
  "Read back: {a}.",
  "",
].join("\n");

const JOURNALED_OUTPUT = "# Journaled\n\nshell says hi\n\nRead back: first.\n";

Deno.test("--replay of a completed journal reproduces the output and runs nothing", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(`${cwd}/doc.md`, JOURNALED_DOC);
  const first = await runXmd(["run", "--journal=trace.jsonl", "doc.md"], { cwd });
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, JOURNALED_OUTPUT);
  const journal = await Deno.readTextFile(`${cwd}/trace.jsonl`);
  assert.equal(journal.trim().split("\n").length, 6); // props + 4 yields + root close

  await Deno.remove(`${cwd}/a.txt`);
  await Deno.remove(`${cwd}/b.txt`);
  const replay = await runXmd(["run", "--replay=trace.jsonl", "doc.md"], { cwd });
  assert.equal(replay.code, 0, replay.stderr);
  assert.equal(replay.stdout, JOURNALED_OUTPUT);
  assert.equal(await exists(`${cwd}/a.txt`), false, "replay wrote a file");
  assert.equal(await exists(`${cwd}/b.txt`), false, "replay wrote a file");
  assert.equal(await Deno.readTextFile(`${cwd}/effects.log`), "run\n", "replay ran the shell");
  assert.equal(await Deno.readTextFile(`${cwd}/trace.jsonl`), journal, "replay appended");
});

Deno.test("--replay of a truncated journal replays the prefix and continues live", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(`${cwd}/doc.md`, JOURNALED_DOC);
  const first = await runXmd(["run", "--journal=full.jsonl", "doc.md"], { cwd });
  assert.equal(first.code, 0, first.stderr);
  const lines = (await Deno.readTextFile(`${cwd}/full.jsonl`)).trim().split("\n");
  // Keep the props and the first two effects (a.txt written, shell ran); b.txt and the read run live.
  await Deno.writeTextFile(`${cwd}/cut.jsonl`, lines.slice(0, 3).join("\n") + "\n");
  await Deno.remove(`${cwd}/a.txt`);
  await Deno.remove(`${cwd}/b.txt`);
  await Deno.writeTextFile(`${cwd}/a.txt`, "first");

  const resumed = await runXmd(["run", "--replay=cut.jsonl", "doc.md"], { cwd });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, JOURNALED_OUTPUT);
  assert.equal(await Deno.readTextFile(`${cwd}/effects.log`), "run\n", "the shell ran twice");
  assert.equal(await Deno.readTextFile(`${cwd}/b.txt`), "second");
  assert.equal(
    await Deno.readTextFile(`${cwd}/cut.jsonl`),
    await Deno.readTextFile(`${cwd}/full.jsonl`),
    "the continued journal differs from an uninterrupted one",
  );
});

Deno.test("--replay refuses a document that diverged from its journal and appends nothing", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(`${cwd}/doc.md`, JOURNALED_DOC);
  assert.equal((await runXmd(["run", "--journal=trace.jsonl", "doc.md"], { cwd })).code, 0);
  const before = await Deno.readTextFile(`${cwd}/trace.jsonl`);
  await Deno.writeTextFile(
    `${cwd}/doc.md`,
    JOURNALED_DOC.replace('<File path="b.txt">', '<File path="c.txt">'),
  );
  const result = await runXmd(["run", "--replay=trace.jsonl", "doc.md"], { cwd });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /Cannot replay the journal: event 4/);
  assert.match(result.stderr, /other inputs/);
  assertNoStack(result.stderr);
  assert.equal(await Deno.readTextFile(`${cwd}/trace.jsonl`), before);
  assert.equal(await exists(`${cwd}/c.txt`), false);
});

const DIVERGENCES: { kind: string; edit: (doc: string) => string; message: RegExp }[] = [
  {
    kind: "type",
    edit: (doc) => doc.replace('<File path="b.txt">second</File>', '<File path="b.txt" as="b" />'),
    message:
      /event 4 records a file\.write effect "File doc\.md:10:1", but the document asks for a file\.read effect/,
  },
  {
    kind: "name",
    edit: (doc) => doc.replace('<File path="b.txt">', '\n<File path="b.txt">'),
    message: /event 4 records "File doc\.md:10:1", but the document asks for "File doc\.md:11:1"/,
  },
  {
    kind: "ended-early",
    edit: (doc) => doc.replace('<File path="a.txt" as="a" />', "").replace("Read back: {a}.", ""),
    message: /event 5 records "File doc\.md:12:1", but the document ends coroutine root there/,
  },
  {
    kind: "past-close",
    edit: (doc) => doc + '\n<File path="z.txt">late</File>\n',
    message:
      /event 6 records the end of coroutine root, but the document goes on to "File doc\.md:16:1"/,
  },
  {
    kind: "outcome",
    edit: (doc) => doc + '\n<Fail message="now failing" />\n',
    message: /event 6 records coroutine root ending ok, but it now ends with DocumentError/,
  },
];

for (const divergence of DIVERGENCES) {
  Deno.test(`--replay refuses a ${divergence.kind} divergence and changes nothing`, async () => {
    const cwd = await tempDir();
    await Deno.writeTextFile(`${cwd}/doc.md`, JOURNALED_DOC);
    assert.equal((await runXmd(["run", "--journal=trace.jsonl", "doc.md"], { cwd })).code, 0);
    const before = await Deno.readTextFile(`${cwd}/trace.jsonl`);
    await Deno.remove(`${cwd}/b.txt`);
    await Deno.writeTextFile(`${cwd}/doc.md`, divergence.edit(JOURNALED_DOC));
    const result = await runXmd(["run", "--replay=trace.jsonl", "doc.md"], { cwd });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^xmd: Cannot replay the journal: /);
    assert.match(result.stderr, divergence.message);
    assertNoStack(result.stderr);
    assert.equal(await Deno.readTextFile(`${cwd}/trace.jsonl`), before, "the journal changed");
    assert.equal(await exists(`${cwd}/b.txt`), false, "replay wrote a file");
    assert.equal(await Deno.readTextFile(`${cwd}/effects.log`), "run\n", "replay ran the shell");
  });
}

const PROPS_DOC = "---\nprops:\n  who:\n    type: string\n---\n\n" +
  'Hello {props.who}.\n\n<File path="who.txt">{props.who}</File>\n';

Deno.test("--replay with other props than the journal's is refused and appends nothing", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(`${cwd}/doc.md`, PROPS_DOC);
  const first = await runXmd(["run", "--journal=trace.jsonl", "doc.md", "--props-who=Ada"], {
    cwd,
  });
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, "Hello Ada.\n");
  const before = await Deno.readTextFile(`${cwd}/trace.jsonl`);
  assert.equal(JSON.parse(before.split("\n")[0]).description.name, "props doc.md");
  assert.doesNotMatch(before, /Ada/, "prop values are never journaled");
  await Deno.remove(`${cwd}/who.txt`);

  const other = await runXmd(["run", "--replay=trace.jsonl", "doc.md", "--props-who=Bob"], { cwd });
  assert.equal(other.code, 1);
  assert.equal(other.stdout, "");
  assert.equal(
    other.stderr,
    'xmd: Cannot replay the journal: event 1 records "props doc.md" with other props than this run was given. ' +
      "The props differ from the recorded run; pass the same props it was given, or run without the journal\n",
  );
  assertNoStack(other.stderr);
  assert.equal(await Deno.readTextFile(`${cwd}/trace.jsonl`), before, "the journal changed");
  assert.equal(await exists(`${cwd}/who.txt`), false);

  const same = await runXmd(["run", "--replay=trace.jsonl", "doc.md", "--props-who=Ada"], { cwd });
  assert.equal(same.code, 0, same.stderr);
  assert.equal(same.stdout, "Hello Ada.\n");
  assert.equal(await Deno.readTextFile(`${cwd}/trace.jsonl`), before);
});

Deno.test("a secret passed as a prop is not journaled, so --journal does not refuse it", async () => {
  const cwd = await tempDir();
  const token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A";
  await Deno.writeTextFile(`${cwd}/doc.md`, PROPS_DOC);
  const result = await runXmd(["run", "--journal=trace.jsonl", "doc.md", `--props-who=${token}`], {
    cwd,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, "");
  assert.equal(result.stdout, `Hello ${token}.\n`);
  const journal = await Deno.readTextFile(`${cwd}/trace.jsonl`);
  assert.equal(journal.trim().split("\n").length, 3); // props + File + root close
  assert.ok(!journal.includes(token), "the secret reached the journal");
  assert.ok(!journal.includes("aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"));

  // The same value in a journaled input is refused: the gate does flag it.
  await Deno.writeTextFile(
    `${cwd}/leak.md`,
    PROPS_DOC + '\n```sh exec as="out"\necho {props.who}\n```\n',
  );
  const leak = await runXmd(["run", "--journal=leak.jsonl", "leak.md", `--props-who=${token}`], {
    cwd,
  });
  assert.equal(leak.code, 1);
  assert.match(leak.stderr, /looks like a secret \(rule github-token\)/);
  assert.ok(!leak.stderr.includes(token));
  assertNoStack(leak.stderr);
  assert.ok(!(await Deno.readTextFile(`${cwd}/leak.jsonl`)).includes(token));
});

Deno.test("a malformed journal line is refused by number without echoing it", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(`${cwd}/doc.md`, JOURNALED_DOC);
  assert.equal((await runXmd(["run", "--journal=trace.jsonl", "doc.md"], { cwd })).code, 0);
  const lines = (await Deno.readTextFile(`${cwd}/trace.jsonl`)).split("\n");
  lines[1] = '{"type":"yield","coroutineId":"root","hunter2-secret":true}';
  const damaged = lines.join("\n");
  await Deno.writeTextFile(`${cwd}/trace.jsonl`, damaged);
  const result = await runXmd(["run", "--replay=trace.jsonl", "doc.md"], { cwd });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /line 2 is not a valid journal event/);
  assert.doesNotMatch(result.stderr, /hunter2/);
  assertNoStack(result.stderr);
  assert.equal(await Deno.readTextFile(`${cwd}/trace.jsonl`), damaged);
});

Deno.test("the secret gate refuses a journal event holding a secret, never echoing it", async () => {
  const cwd = await tempDir();
  const key = "AKIA" + "QYLPMN5HHHFPZAM2";
  await Deno.writeTextFile(
    `${cwd}/doc.md`,
    `Start.\n\n\`\`\`sh exec as="out"\necho aws_access_key_id=${key}\n\`\`\`\n\nEnd.\n`,
  );
  const refused = await runXmd(["run", "--journal=trace.jsonl", "doc.md"], { cwd });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /SecretDetected|looks like a secret/);
  assert.doesNotMatch(refused.stderr + refused.stdout, new RegExp(key));
  assertNoStack(refused.stderr);
  const journal = await Deno.readTextFile(`${cwd}/trace.jsonl`).catch(() => "");
  assert.doesNotMatch(journal, new RegExp(key));

  const allowed = await runXmd(
    ["run", "--journal=allowed.jsonl", "--no-secret-detection", "doc.md"],
    { cwd },
  );
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stderr, /secret detection is off/);
  assert.equal(allowed.stdout, "Start.\n\nEnd.\n");
});

for (const [signal, what] of [["SIGINT", "Ctrl-C"], ["SIGTERM", "SIGTERM"]] as const) {
  Deno.test(`${what} stops a running shell block, exits 130, and the journal resumes`, async () => {
    await interruptedRun(signal);
  });
}

async function interruptedRun(signal: "SIGINT" | "SIGTERM"): Promise<void> {
  const cwd = await tempDir();
  await Deno.writeTextFile(
    `${cwd}/doc.md`,
    '<File path="a.txt">a</File>\n\n```sh exec\necho started\nsleep 30\n```\n\nDone.\n',
  );
  const child = spawnXmd(["run", "--journal=trace.jsonl", "doc.md"], { cwd });
  const reader = child.stdout.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  assert.match(first, /started/);
  child.kill(signal);
  reader.releaseLock();
  const status = await child.output();
  assert.equal(status.code, 130);
  assert.match(new TextDecoder().decode(status.stderr), /interrupted/);
  const events = (await Deno.readTextFile(`${cwd}/trace.jsonl`)).trim().split("\n")
    .map((line) => JSON.parse(line));
  assert.equal(events.length, 3);
  assert.equal(events[0].description.type, "props");
  assert.deepEqual(events[2].result, { status: "cancelled" });

  await Deno.writeTextFile(
    `${cwd}/doc.md`,
    '<File path="a.txt">a</File>\n\n```sh exec\necho started\nsleep 30\n```\n\nDone.\n'.replace(
      "sleep 30",
      "sleep 0",
    ),
  );
  const resumed = await runXmd(["run", "--replay=trace.jsonl", "doc.md"], { cwd });
  assert.equal(resumed.code, 1, "an edited block must diverge");
  assert.match(resumed.stderr, /other inputs/);
}

Deno.test("every element runs through the CLI, up to <Fail>", async () => {
  const cwd = await tempDir();
  const result = await runXmd(["run", `${FIXTURES}fail.every-element.md`], { cwd });
  assert.equal(result.code, 1);
  assert.equal(
    result.stdout,
    "# Every element\n\nHi Ada!\n\nFound: work/one.txt\n\nRead: file one\n\n## Box\n\n" +
      "Inside Ada's card.\n\nSlow block exit: 124\n",
  );
  assert.equal(result.stderr, `xmd: ${FIXTURES}fail.every-element.md:45:3: Stopped on purpose\n`);
  assert.equal(await Deno.readTextFile(`${cwd}/work/one.txt`), "file one");
  assert.equal(await Deno.readTextFile(`${cwd}/work/two.txt`), "file two");
});

Deno.test("--journal in a missing folder is refused before anything runs", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(`${cwd}/doc.md`, '<File path="ran.txt">ran</File>\n');
  const result = await runXmd(["run", "--journal=missing/trace.jsonl", "doc.md"], { cwd });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /Cannot write journal ".*missing\/trace\.jsonl": NotFound/);
  assertNoStack(result.stderr);
  assert.equal(await exists(`${cwd}/ran.txt`), false);
});

const BOM = "\uFEFF";

/** Frontmatter, expressions, quotes, a component and a written file: every kind of source slice. */
const BOM_DOC = [
  "---",
  "props:",
  "  port:",
  "    type: integer",
  "    default: 8000",
  "---",
  "",
  '# Service "api"',
  "",
  "port = {props.port + 80}",
  "",
  '<Note text="quoted" />',
  "",
  '<File path="conf.txt">listen = "{props.port + 80}"</File>',
  '<File path="conf.txt" as="conf" />',
  "",
  "Written: {conf}",
  "",
].join("\n");
const BOM_NOTE = '---\nprops:\n  text:\n    type: string\n---\n\n> note: "{props.text}"\n';

Deno.test("MDX-66: xmd run of a document and component with a byte-order mark equals the same run without it", async () => {
  const plain = await tempDir();
  const marked = await tempDir();
  await Deno.writeTextFile(`${plain}/doc.md`, BOM_DOC);
  await Deno.writeTextFile(`${plain}/Note.md`, BOM_NOTE);
  await Deno.writeTextFile(`${marked}/doc.md`, BOM + BOM_DOC);
  await Deno.writeTextFile(`${marked}/Note.md`, BOM + BOM_NOTE);
  const args = ["run", "--journal=trace.jsonl", "doc.md"];
  const expected = await runXmd(args, { cwd: plain });
  assert.equal(expected.code, 0, expected.stderr);
  assert.equal(
    expected.stdout,
    '# Service "api"\n\nport = 8080\n\n> note: "quoted"\n\nWritten: listen = "8080"\n',
  );
  const result = await runXmd(args, { cwd: marked });
  assert.deepEqual(result, expected);
  for (const file of ["conf.txt", "trace.jsonl"]) {
    assert.deepEqual(
      await Deno.readFile(`${marked}/${file}`),
      await Deno.readFile(`${plain}/${file}`),
      `${file} differs`,
    );
  }
});

Deno.test("MDX-25 a path the host's file system cannot hold is a FileSystemError at its element (ENAMETOOLONG), never a stack trace", async () => {
  const cwd = await tempDir();
  // Within MDX-21's bounds (4,095 bytes, names of 255), but not once the working directory is
  // put in front of it.
  const name = Array(16).fill("n".repeat(255)).join("/");
  await Deno.writeTextFile(`${cwd}/write.md`, `Before.\n\n<File path="${name}">x</File>\n`);
  await Deno.writeTextFile(`${cwd}/read.md`, `Before.\n\n<File path="${name}" as="x" />\n`);
  const [write, read] = await Promise.all([
    runXmd(["run", "write.md"], { cwd }),
    runXmd(["run", "read.md"], { cwd }),
  ]);
  assert.equal(write.code, 1, write.stderr);
  assert.equal(write.stdout, "Before.\n");
  assert.equal(
    write.stderr,
    `xmd: write.md:3:1: Cannot write "${name}": the path or a name in it is too long for this file system (ENAMETOOLONG)\n`,
  );
  assert.equal(read.code, 1, read.stderr);
  assert.equal(
    read.stderr,
    `xmd: read.md:3:1: Cannot read "${name}": the path or a name in it is too long for this file system (ENAMETOOLONG)\n`,
  );
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(cwd), (entry) => entry.name)).sort(),
    ["read.md", "write.md"],
  );
});

Deno.test("MDX-21: xmd run refuses a <File> path 5,000 directories deep at its attribute and writes nothing", async () => {
  const cwd = await tempDir();
  const deep = `${Array(5000).fill("d").join("/")}/f.txt`;
  await Deno.writeTextFile(`${cwd}/doc.md`, `before\n\n<File path="${deep}">x</File>\n`);
  const long = `${"n".repeat(256)}.txt`;
  await Deno.writeTextFile(`${cwd}/name.md`, `<File path="${long}">x</File>\n`);
  const result = await runXmd(["run", "doc.md"], { cwd });
  assert.equal(result.code, 1);
  assert.equal(result.stdout, "before\n");
  assert.equal(
    result.stderr,
    "xmd: doc.md:3:7: Cannot use this path: it is longer than 4096 bytes (ENAMETOOLONG); " +
      "use a shorter path\n",
  );
  const name = await runXmd(["run", "name.md"], { cwd });
  assert.equal(
    name.stderr,
    "xmd: name.md:1:7: Cannot use this path: a name in it is longer than 255 bytes " +
      "(ENAMETOOLONG); use a shorter path\n",
  );
  assert.deepEqual([...Deno.readDirSync(cwd)].map((entry) => entry.name).sort(), [
    "doc.md",
    "name.md",
  ]);
});

Deno.test("MDX-67 an interrupted xmd run --journal names the --replay command that continues it, and that command does", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(
    `${cwd}/my doc.md`,
    "---\nprops:\n  who:\n    type: string\n---\n\n" +
      "Hello {props.who}.\n\n```sh exec\necho started\nwhile [ ! -f go ]; do sleep 0.1; done\necho went\n```\n\nDone.\n",
  );
  const child = spawnXmd(["run", "--journal=trace.jsonl", "my doc.md", "--props-who=Ada"], { cwd });
  const reader = child.stdout.getReader();
  let seen = "";
  while (!seen.includes("started")) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
  }
  child.kill("SIGINT");
  reader.releaseLock();
  const interrupted = await child.output();
  assert.equal(interrupted.code, 130);
  assert.equal(
    new TextDecoder().decode(interrupted.stderr),
    "xmd: interrupted. Continue with: xmd run --replay=trace.jsonl 'my doc.md' (pass --props-who again)\n",
  );
  await Deno.writeTextFile(`${cwd}/go`, "");
  const continued = await runXmd(["run", "--replay=trace.jsonl", "my doc.md", "--props-who=Ada"], {
    cwd,
  });
  assert.equal(continued.code, 0, continued.stderr);
  assert.equal(continued.stdout, "Hello Ada.\n\nstarted\nwent\n\nDone.\n");
});

Deno.test("MDX-62 positions name the document as the user typed it, components beside it; journals keep labels", async () => {
  const cwd = await tempDir();
  await Deno.mkdir(`${cwd}/docs/components`, { recursive: true });
  await Deno.writeTextFile(
    `${cwd}/docs/stop.md`,
    '# Stop\n\n<Note />\n\n<Fail message="Stopped" />\n',
  );
  await Deno.writeTextFile(`${cwd}/docs/components/Note.md`, "A note.\n");
  await Deno.writeTextFile(`${cwd}/docs/bad.md`, "# Bad\n\n<Broken />\n");
  await Deno.writeTextFile(`${cwd}/docs/components/Broken.md`, "Fine.\n\n<Fiel />\n");
  await Deno.writeTextFile(`${cwd}/docs/py.md`, "# Py\n\n```python exec\nprint(1)\n```\n");
  const runs = `${cwd}/runs`;
  const env = { XMD_WORKFLOW_RUNS: runs };
  const [stop, bad, absolute, started, python] = await Promise.all([
    runXmd(["run", "--journal=stop.jsonl", "docs/stop.md"], { cwd }),
    runXmd(["run", "docs/bad.md"], { cwd }),
    runXmd(["run", `${cwd}/docs/bad.md`], { cwd }),
    runXmd(["workflow", "start", "--id=stop", "./docs/stop.md"], { cwd, env }),
    runXmd(["workflow", "start", "docs/py.md"], { cwd, env }),
  ]);
  assert.equal(stop.code, 1);
  assert.equal(stop.stderr, "xmd: docs/stop.md:5:1: Stopped\n");
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^xmd: docs\/components\/Broken\.md:3:1: Unknown component <Fiel>/);
  assert.match(absolute.stderr, new RegExp(`^xmd: ${cwd}/docs/components/Broken\\.md:3:1: `));
  assert.equal(started.code, 1);
  assert.match(started.stderr, /\nxmd: \.\/docs\/stop\.md:5:1: Stopped\n/);
  assert.equal(python.code, 1);
  assert.match(
    python.stderr,
    /^xmd: docs\/py\.md:3:1: A "python" exec block cannot run in a workflow run/,
  );
  // The journal names files by label, not by the path typed: it replays from anywhere.
  const journal = await Deno.readTextFile(`${cwd}/stop.jsonl`);
  assert.match(journal, /"name":"props stop\.md".*"message":"stop\.md:5:1: Stopped"/s);
  assert.doesNotMatch(journal, /docs\//);
  const replayed = await runXmd(["run", "--replay=../stop.jsonl", "stop.md"], {
    cwd: `${cwd}/docs`,
  });
  assert.equal(replayed.code, 1, replayed.stderr);
  assert.equal(replayed.stdout, stop.stdout);
  assert.equal(replayed.stderr, "xmd: stop.md:5:1: Stopped\n");
});

Deno.test("MDX-60 --replay of a missing file says there is no such file; a journal the host cannot read is one xmd: line", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(`${cwd}/doc.md`, '<File path="ran.txt">ran</File>\n');
  await Deno.writeTextFile(`${cwd}/afile`, "mine\n");
  await Deno.mkdir(`${cwd}/folder`);
  const cases: [string[], string][] = [
    [
      ["--replay=trace.jsonl"],
      'Cannot replay "trace.jsonl": no such file. Check the path, or record a journal with --journal=trace.jsonl',
    ],
    [
      ["--replay=afile/trace.jsonl"],
      'Cannot read journal "afile/trace.jsonl": a parent is not a directory (ENOTDIR)',
    ],
    [["--replay=folder"], 'Cannot read journal "folder": it is a directory (EISDIR)'],
    [
      ["--journal=afile/trace.jsonl"],
      'Cannot read journal "afile/trace.jsonl": a parent is not a directory (ENOTDIR)',
    ],
  ];
  const results = await Promise.all(
    cases.map(([options]) => runXmd(["run", ...options, "doc.md"], { cwd })),
  );
  results.forEach((result, index) => {
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, "");
    assert.equal(result.stderr, `xmd: ${cases[index][1]}\n`);
  });
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(cwd), (entry) => entry.name)).sort(),
    ["afile", "doc.md", "folder"],
    "a refused journal ran the document or created a file",
  );
  assert.equal(await Deno.readTextFile(`${cwd}/afile`), "mine\n");
});

Deno.test("MDX-62 a malformed expression names its JavaScript error and where, never the parser library", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(`${cwd}/expr.md`, "Total: {1 +}\n");
  await Deno.writeTextFile(`${cwd}/esm.md`, "import a from\n");
  const [expr, esm] = await Promise.all([
    runXmd(["run", "expr.md"], { cwd }),
    runXmd(["run", "esm.md"], { cwd }),
  ]);
  assert.equal(expr.code, 1);
  assert.equal(
    expr.stderr,
    "xmd: expr.md:1:12: Invalid expression syntax: Unexpected token: write one JavaScript expression between the braces\n",
  );
  assert.equal(esm.code, 1);
  assert.match(esm.stderr, /^xmd: esm\.md:2:1: Invalid import or export syntax: /);
  for (const result of [expr, esm]) {
    assert.equal(result.stdout, "");
    assert.doesNotMatch(result.stderr, /acorn/i);
  }
});

Deno.test("MDX-28 MDX-71: xmd run refuses an --answer nested more than 128 levels deep before anything runs", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(`${cwd}/ask.md`, '<Elicit as="x" schema={{}}>Anything?</Elicit>\n');
  const deep = "[".repeat(10_000) + "]".repeat(10_000);
  const result = await runXmd(["run", "--journal=trace.jsonl", "--answer", `x=${deep}`, "ask.md"], {
    cwd,
  });
  assert.equal(result.code, 1, result.stderr);
  assertNoStack(result.stderr);
  assert.equal(
    result.stderr,
    'xmd: The answer for "x" nests arrays and objects more than 128 levels deep\n',
  );
  assert.equal(await exists(`${cwd}/trace.jsonl`), false, "the refused run opened a journal");
});

Deno.test("MDX-21: xmd run refuses a <File> whose path leads out of the working directory through a symbolic link", async () => {
  const cwd = await tempDir();
  const outside = await tempDir();
  await Deno.writeTextFile(`${outside}/secret.txt`, "outside");
  await Deno.symlink(outside, `${cwd}/out`);
  await Deno.writeTextFile(
    `${cwd}/read.md`,
    'Before.\n\n<File path="out/secret.txt" as="x" />\n\n{x}\n',
  );
  await Deno.writeTextFile(`${cwd}/write.md`, '<File path="out/new.txt">x</File>\n');
  const [read, write] = await Promise.all([
    runXmd(["run", "read.md"], { cwd }),
    runXmd(["run", "write.md"], { cwd }),
  ]);
  assert.equal(read.code, 1, read.stderr);
  assert.equal(read.stdout, "Before.\n");
  assert.equal(
    read.stderr,
    'xmd: read.md:3:1: Cannot read "out/secret.txt": a symbolic link on the way leads out of the ' +
      "working directory (EACCES)\n",
  );
  assert.equal(write.code, 1, write.stderr);
  assert.match(write.stderr, /Cannot write "out\/new\.txt": a symbolic link on the way leads out/);
  assert.deepEqual([...Deno.readDirSync(outside)].map((entry) => entry.name), ["secret.txt"]);
});

Deno.test("MDX-43: xmd run reports a timeout=2s block at its timeout although a child left its group; the child's later output never appears", async () => {
  const cwd = await tempDir();
  await Deno.writeTextFile(
    `${cwd}/doc.md`,
    "```sh exec timeout=2s\necho started\n" +
      "setsid sh -c 'echo $$ > escaped.pid; sleep 25; echo late; echo late >&2' &\nsleep 30\n```\n\n" +
      "never\n",
  );
  try {
    const result = await runXmd(["run", "doc.md"], { cwd });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, "started\n");
    assert.match(result.stderr, /^xmd: doc\.md:1:1: The sh block timed out after 2000 ms/);
    assert.doesNotMatch(result.stdout + result.stderr, /late/);
  } finally {
    const pid = Number(await Deno.readTextFile(`${cwd}/escaped.pid`).catch(() => "0"));
    if (pid > 0) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // It has already exited.
      }
    }
  }
});
