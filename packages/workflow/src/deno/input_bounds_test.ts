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
