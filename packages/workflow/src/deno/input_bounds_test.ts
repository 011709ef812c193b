/**
 * Input shapes without a natural bound, met as a user meets them (the CLI as a
 * subprocess over a real runs folder): each is refused at the boundary with a
 * clear error that changes nothing, or is handled at any size, and none makes
 * a run un-resumable.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runXmd, type XmdResult } from "../../../cli/src/deno/_run-xmd.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";

const EMPTY_ROOT = "56177ba82b132c561284403f08857796de5af224c36f16e9f410781f41504ae8";

/** A document folder with its runs folder. */
class Box implements AsyncDisposable {
  readonly runs: string;
  readonly host: LocalWorkflowHost;

  private constructor(readonly dir: string) {
    this.runs = join(dir, "runs");
    this.host = new LocalWorkflowHost(this.runs);
  }

  static async create(files: Record<string, string>): Promise<Box> {
    const box = new Box(await Deno.makeTempDir({ prefix: "xmd-bounds-" }));
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(join(box.dir, name), text);
    }
    return box;
  }

  xmd(...args: string[]): Promise<XmdResult> {
    return runXmd(["workflow", ...args], { cwd: this.dir, env: { XMD_WORKFLOW_RUNS: this.runs } });
  }

  /** The run's database and WAL, byte for byte. */
  async files(id: string): Promise<Uint8Array[]> {
    const path = this.host.pathOf(id);
    const read = (file: string) => Deno.readFile(file).catch(() => new Uint8Array());
    return [await read(path), await read(`${path}-wal`)];
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await Deno.remove(this.dir, { recursive: true });
  }
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

function assertNoStack(result: XmdResult): void {
  assert.doesNotMatch(result.stderr, /internal error|^\s+at /m, result.stderr);
}

const fence = (script: string, info = "") => "```sh exec" + info + "\n" + script + "\n```\n";

Deno.test("WS-47: a 3,000-level mkdir -p in a block is refused with ENAMETOOLONG; the run fails cleanly and stays readable", async () => {
  const deep = Array(3000).fill("d").join("/");
  await using box = await Box.create({ "doc.md": fence(`mkdir -p ${deep}`) + "\nnever\n" });
  const started = await box.xmd("start", "--id=mk", "doc.md");
  assert.equal(started.code, 1, started.stderr);
  assertNoStack(started);
  assert.match(started.stderr, /longer than 4096 bytes \(ENAMETOOLONG\)/);
  assert.match(started.stderr, /^xmd: doc\.md:1:1: The sh block exited with code 1/m);
  assert.doesNotMatch(started.stdout, /never/);
  const history = await box.host.history("mk");
  assert.equal(history.events.at(-1)!.root, EMPTY_ROOT, "the refused block left a directory");
  const before = await box.files("mk");
  const resumed = await box.xmd("resume", "mk");
  assert.equal(resumed.code, 1, resumed.stderr);
  assertNoStack(resumed);
  assert.deepEqual(await box.files("mk"), before, "resume of the failed run changed it");
});

Deno.test("WS-48: a tree deeper than any path (built by rename) publishes, verifies, resumes and diffs", async () => {
  // mkdir -p stops near 2,048 levels (4,096 bytes); moving a 990-level tree to the bottom of a
  // 2,000-level one goes deeper, as on Linux, where a recursive walk used to overflow.
  const down = Array(2000).fill("a").join("/");
  const more = Array(990).fill("b").join("/");
  await using box = await Box.create({
    "doc.md": fence(`mkdir -p t/${down} u/${more}\nmv u t/${down}/u\necho built`) + "\n" +
      '<Elicit as="ok" schema={{ type: "boolean" }}>Go on?</Elicit>\n\n' +
      '<File path="after.txt">after</File>\n\n' + fence("ls"),
  });
  const started = await box.xmd("start", "--id=deep", "doc.md");
  assert.equal(started.code, 2, started.stderr);
  assert.equal(started.stdout, "built\n");
  const suspension = (await box.host.inspect("deep")).pendingSuspension!.suspensionId;
  assert.equal((await box.xmd("answer", "deep", suspension, "true")).code, 0);
  // The resume verifies the root and the live tables, then publishes the next effects.
  const resumed = await box.xmd("resume", "deep");
  assertNoStack(resumed);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, "built\n\n\nafter.txt\nt\n");
  const diff = await box.xmd("diff", "deep", "1", "2");
  assert.equal(diff.code, 0, diff.stderr);
  const added = diff.stdout.trimEnd().split("\n");
  assert.equal(added.length, 1 + 2000 + 1 + 990, "every directory of the tree is listed");
  assert.ok(added.at(-1)!.endsWith(`/u/${more}`), "the deepest directory is listed");
});

Deno.test("MDX-21 WS-47: a <File> path 5,000 directories deep fails at its attribute; nothing is written", async () => {
  const deep = `${Array(5000).fill("d").join("/")}/f.txt`;
  await using box = await Box.create({
    "doc.md": `before\n\n<File path="${deep}">x</File>\n\nnever\n`,
  });
  const started = await box.xmd("start", "--id=file", "doc.md");
  assert.equal(started.code, 1, started.stderr);
  assert.equal(started.stdout, "before\n");
  assert.equal(
    started.stderr,
    "workflow run: file\nworkflow status: failed\nxmd: doc.md:3:7: Cannot use this path: it is " +
      "longer than 4096 bytes (ENAMETOOLONG); use a shorter path\n" +
      "Run file cannot be resumed: start a new run to try again\n",
  );
  const history = await box.host.history("file");
  assert.ok(history.events.every((entry) => entry.root === EMPTY_ROOT), "something was written");
  const before = await box.files("file");
  const resumed = await box.xmd("resume", "file");
  assert.equal(resumed.code, 1, resumed.stderr);
  assert.match(resumed.stderr, /doc\.md:3:7: Cannot use this path: it is longer than 4096 bytes/);
  assert.deepEqual(await box.files("file"), before, "resume of the failed run changed it");
});

/** Twelve lines of YAML aliases, each nine copies of the one before: billions of values. */
function aliasBomb(): string {
  const lines = ["---", "a0: &a0 [x, x, x, x, x, x, x, x, x]"];
  for (let level = 1; level <= 11; level++) {
    lines.push(`a${level}: &a${level} [${Array(9).fill(`*a${level - 1}`).join(", ")}]`);
  }
  return [...lines, "---", "", "never", ""].join("\n");
}

const nest = (open: string, close: string, depth: number, inner: string) =>
  open.repeat(depth) + inner + close.repeat(depth);

Deno.test("MDX-3 MDX-68: documents that would expand or nest without bound are refused at a position before any run exists", async () => {
  await using box = await Box.create({
    "aliases.md": aliasBomb(),
    "deep-yaml.md": `---\nx: ${nest("[", "]", 10_000, "")}\n---\n\nnever\n`,
    "yaml-200.md": `---\nx: ${nest("[", "]", 200, "")}\n---\n\nnever\n`,
    "ifs.md": nest("<If condition={true}>\n", "</If>\n", 3000, "never\n"),
    "quotes.md": `${">".repeat(5000)} never\n`,
  });
  const cases: [string, string][] = [
    [
      "aliases.md",
      "aliases.md:6:15: Cannot expand this alias: it would copy more than 10000 values; write the " +
      "values out or use fewer aliases",
    ],
    ["yaml-200.md", "yaml-200.md:2:132: Cannot nest lists and maps more than 128 levels deep"],
    ["deep-yaml.md", "deep-yaml.md:2:"],
    ["ifs.md", "ifs.md:101:1: Cannot nest elements and Markdown blocks more than 100 levels deep"],
    ["quotes.md", "quotes.md:1:101: Cannot nest elements and Markdown blocks more than 100 levels"],
  ];
  for (const [document, message] of cases) {
    const result = await box.xmd("start", `--id=${document.replace(".md", "")}`, document);
    assert.equal(result.code, 1, result.stderr);
    assertNoStack(result);
    assert.equal(result.stdout, "");
    assert.ok(result.stderr.startsWith(`xmd: ${message}`), result.stderr);
  }
  const deepYaml = await box.xmd("start", "--id=deep", "deep-yaml.md");
  assert.match(deepYaml.stderr, /nests lists and maps far more than 128 levels deep; fix the YAML/);
  assert.equal(await exists(box.runs), false, "a refused start created the runs folder");
});

Deno.test("MDX-59 MDX-12: text that doubles itself fails the run at its element; the run replays the same failure", async () => {
  const doubling = (line: string) =>
    ['<Let as="a" value={"x".repeat(1048576)} />', ...Array(8).fill(line), "{a.length}", ""]
      .join("\n");
  await using box = await Box.create({
    "plus.md": doubling('<Let as="a" value={a + a} />'),
    "template.md": doubling('<Let as="a" value={`${a}${a}`} />'),
    "spread.md": '<Let as="a" value={[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]} />\n' +
      Array(17).fill('<Let as="a" value={[...a, ...a]} />').join("\n") + "\n{a.length}\n",
    "capture.md": doubling('<Let as="a">{a}{a}</Let>'),
  });
  const cases: [string, string][] = [
    ["plus", 'plus.md:2:20: Cannot apply "+": the text would be longer than 1048576 characters'],
    [
      "template",
      "template.md:2:20: Cannot build the template: the text would be longer than 1048576 characters",
    ],
    [
      "spread",
      "spread.md:15:27: Cannot spread this array: the result would have more than 100000 elements",
    ],
    [
      "capture",
      "capture.md:7:1: Cannot capture the text of <Let>: it would be longer than 67108864 characters",
    ],
  ];
  for (const [id, message] of cases) {
    const started = await box.xmd("start", `--id=${id}`, `${id}.md`);
    assert.equal(started.code, 1, started.stderr);
    assertNoStack(started);
    assert.match(started.stderr, /^workflow status: failed$/m);
    assert.ok(started.stderr.includes(`\nxmd: ${message}\n`), started.stderr);
    const before = await box.files(id);
    const resumed = await box.xmd("resume", id);
    assert.equal(resumed.code, 1, resumed.stderr);
    assert.ok(resumed.stderr.includes(`\nxmd: ${message}\n`), resumed.stderr);
    assert.deepEqual(await box.files(id), before, `resume of ${id} changed it`);
  }
});

Deno.test("MDX-28 WF-20: an answer nested 10,000 deep is refused and changes nothing; the run stays resumable", async () => {
  await using box = await Box.create({
    "ask.md": '<Elicit as="x" schema={{}}>Anything?</Elicit>\n\nGot {typeof x}.\n',
  });
  assert.equal((await box.xmd("start", "--id=ask", "ask.md")).code, 2);
  const suspension = (await box.host.inspect("ask")).pendingSuspension!.suspensionId;
  const before = await box.files("ask");
  const deep = await box.xmd("answer", "ask", suspension, nest("[", "]", 10_000, ""));
  assert.equal(deep.code, 1, deep.stderr);
  assertNoStack(deep);
  assert.equal(
    deep.stderr,
    `xmd: Cannot accept the answer to ${suspension}: it nests arrays and objects more than 128 ` +
      "levels deep\n",
  );
  assert.deepEqual(await box.files("ask"), before, "a refused answer changed the run");
  assert.equal((await box.xmd("answer", "ask", suspension, nest("[", "]", 128, ""))).code, 0);
  const resumed = await box.xmd("resume", "ask");
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, "Got object.\n");
});

Deno.test("MDX-52: props nested more than 128 levels deep are refused before any run exists", async () => {
  await using box = await Box.create({
    "doc.md": "---\nprops:\n  tree:\n    type: array\n---\n\n{props.tree.length}\n",
  });
  const deep = nest("[", "]", 10_000, "");
  const started = await box.xmd("start", "--id=p", `--props={"tree":${deep}}`, "doc.md");
  assert.equal(started.code, 1, started.stderr);
  assertNoStack(started);
  assert.equal(
    started.stderr,
    "xmd: Cannot read --props: it nests arrays and objects more than 128 levels deep\n",
  );
  const variable = await runXmd(["workflow", "start", "--id=p", "doc.md"], {
    cwd: box.dir,
    env: { XMD_WORKFLOW_RUNS: box.runs, XMD_PROPS: `{"tree":${deep}}` },
  });
  assert.equal(variable.code, 1, variable.stderr);
  assert.equal(
    variable.stderr,
    "xmd: Cannot read XMD_PROPS: it nests arrays and objects more than 128 levels deep\n",
  );
  assert.equal(await exists(box.runs), false, "a refused start created the runs folder");
});
