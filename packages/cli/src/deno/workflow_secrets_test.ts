/**
 * A workflow run never persists a secret (WF-33, WF-34, WS-60, JRN-22): the
 * secret gate on everything a run retains, through the real `xmd workflow`
 * CLI as a subprocess. Each case is refused with a message naming the rule
 * and where, never the value; the value is in no byte of stdout, stderr or
 * any file of the runs folder (the database and, for a refusal mid-run, the
 * write-ahead log of the refusing command, frozen at its last commit);
 * nothing else changed; and `--no-secret-detection` lets it through.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { sha256Hex } from "@xmd/core";
import { runXmd, spawnXmd, type XmdResult } from "./_run-xmd.ts";
import { testFolder } from "../../../core/src/deno/_test-temp-folder.ts";

// Built by concatenation so this repository's own files do not trip secret scanners.
const HEAD = "ghp_";
const TAIL = "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A";
const TOKEN = HEAD + TAIL;
const CREDENTIAL = "s3cr3t-" + "Value-42";
const HINT = "Remove the secret from the document or its inputs, or pass " +
  "--no-secret-detection to turn the check off for one command.";
const OFF = "xmd: warning: secret detection is off for this command\n";

/** A document folder and a runs folder. */
interface Box {
  cwd: string;
  runs: string;
  xmd(args: string[], env?: Record<string, string>): Promise<XmdResult>;
  db(id: string): string;
}

async function box(files: Record<string, string>): Promise<Box> {
  const cwd = await testFolder("xmd-secrets-");
  const runs = join(cwd, "runs");
  for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(join(cwd, name), text);
  return {
    cwd,
    runs,
    xmd: (args, env = {}) =>
      runXmd(["workflow", ...args], { cwd, env: { XMD_WORKFLOW_RUNS: runs, ...env } }),
    db: (id) => join(runs, `${sha256Hex(id)}.sqlite`),
  };
}

/** Every file in the runs folder, by name, as raw bytes (none when it does not exist). */
async function runFiles(runs: string): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  try {
    for await (const entry of Deno.readDir(runs)) {
      if (entry.isFile) files.set(entry.name, await Deno.readFile(join(runs, entry.name)));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return files;
}

/** Each file's SHA-256, by name: what "byte-identical" compares (a diff of raw bytes is unreadable). */
async function digests(runs: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, bytes] of await runFiles(runs)) out[name] = sha256Hex(bytes);
  return out;
}

function holds(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** The value is in neither output stream nor any byte of any file in the runs folder. */
async function assertNowhere(result: XmdResult, runs: string, value: string): Promise<void> {
  assert.ok(!result.stdout.includes(value), `stdout holds the secret:\n${result.stdout}`);
  assert.ok(!result.stderr.includes(value), `stderr holds the secret:\n${result.stderr}`);
  const needle = new TextEncoder().encode(value);
  for (const [name, bytes] of await runFiles(runs)) {
    assert.ok(!holds(bytes, needle), `${name} holds the secret`);
  }
}

function assertRefusedAtStart(result: XmdResult, where: string, rule: string): void {
  assert.equal(result.stdout, "");
  assert.equal(
    result.stderr,
    `xmd: Cannot persist ${where}: it contains what looks like a secret (rule ${rule}). ${HINT}\n`,
  );
  assert.equal(result.code, 1);
}

const PROPS_DOC =
  "---\nprops:\n  token:\n    type: string\n---\n\nUsing a token of {props.token.length}.\n";

/** Each way a start can carry a secret into what it retains. */
const START_CASES: {
  name: string;
  files: Record<string, string>;
  args: string[];
  env?: Record<string, string>;
  where: string;
  rule: string;
  value: string;
  output: string;
}[] = [
  {
    name: "a --props-<name> option",
    files: { "doc.md": PROPS_DOC },
    args: [`--props-token=${TOKEN}`, "doc.md"],
    where: 'prop "token"',
    rule: "github-token",
    value: TAIL,
    output: "Using a token of 40.\n",
  },
  {
    name: "an XMD_PROPS_<NAME> variable",
    files: { "doc.md": PROPS_DOC },
    args: ["doc.md"],
    env: { XMD_PROPS_TOKEN: CREDENTIAL },
    where: 'prop "token"',
    rule: "credential-field",
    value: CREDENTIAL,
    output: "Using a token of 15.\n",
  },
  {
    name: "--props=<json>",
    files: { "doc.md": PROPS_DOC },
    args: [`--props=${JSON.stringify({ token: CREDENTIAL })}`, "doc.md"],
    where: 'prop "token"',
    rule: "credential-field",
    value: CREDENTIAL,
    output: "Using a token of 15.\n",
  },
  {
    name: "the root document",
    files: { "doc.md": `# Deploy\n\nUse ${TOKEN} to push.\n` },
    args: ["doc.md"],
    where: "source doc.md:3:5",
    rule: "github-token",
    value: TAIL,
    output: `# Deploy\n\nUse ${TOKEN} to push.\n`,
  },
  {
    name: "a component",
    files: { "doc.md": "Intro.\n\n<Step />\n", "Step.md": `Step.\n\n  export GITHUB=${TOKEN}\n` },
    args: ["doc.md"],
    where: "source Step.md:3:17",
    rule: "github-token",
    value: TAIL,
    output: `Intro.\n\nStep.\n\n  export GITHUB=${TOKEN}\n`,
  },
  {
    name: "the run id",
    files: { "doc.md": "Hi.\n" },
    args: [`--id=${TOKEN}`, "doc.md"],
    where: "the run id",
    rule: "github-token",
    value: TAIL,
    output: "Hi.\n",
  },
];

for (const c of START_CASES) {
  Deno.test(`WF-33: a secret in ${c.name} refuses start before any file exists; --no-secret-detection lets it through`, async () => {
    const b = await box(c.files);
    const refused = await b.xmd(["start", ...c.args], c.env);
    assertRefusedAtStart(refused, c.where, c.rule);
    await assertNowhere(refused, b.runs, c.value);
    assert.deepEqual([...(await runFiles(b.runs)).keys()], [], "a refused start left a file");

    const allowed = await b.xmd(["start", "--no-secret-detection", ...c.args], c.env);
    assert.equal(allowed.stdout, c.output);
    assert.match(
      allowed.stderr,
      new RegExp(`^${OFF}workflow run: \\S+\\nworkflow status: completed\\n$`),
    );
    assert.equal(allowed.code, 0);
  });
}

Deno.test("WF-33: start --id of an existing run with a secret prop is refused and leaves its files byte-identical", async () => {
  const b = await box({ "doc.md": PROPS_DOC });
  assert.equal((await b.xmd(["start", "--id=r", "--props-token=plain", "doc.md"])).code, 0);
  const before = await digests(b.runs);
  const refused = await b.xmd(["start", "--id=r", `--props-token=${TOKEN}`, "doc.md"]);
  assertRefusedAtStart(refused, 'prop "token"', "github-token");
  await assertNowhere(refused, b.runs, TAIL);
  assert.deepEqual(await digests(b.runs), before, "the refusal changed the runs folder");
});

/** A run suspended before the effect under test, answered: the next resume reaches the effect. */
async function suspendedBefore(b: Box, id: string): Promise<void> {
  const started = await b.xmd(["start", `--id=${id}`, "doc.md"]);
  assert.equal(started.code, 2, started.stderr);
  assert.equal((await b.xmd(["answer", id, "go-3", "true"])).code, 0);
}

/** Reads run `id`'s database over a short-lived read-only connection. */
function reading<T>(b: Box, id: string, read: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(b.db(id), { readOnly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** Waits until `pid` is stopped (SIGSTOP at its failpoint). */
async function stopped(pid: number): Promise<void> {
  for (let waited = 0; waited < 60_000; waited += 20) {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("T")) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`Process ${pid} never stopped at its failpoint`);
}

function rows(db: DatabaseSync, tables: string[]): string {
  return JSON.stringify(
    tables.map((table) => db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all()),
    (_, value) => value instanceof Uint8Array ? sha256Hex(value) : value,
  );
}

const WORKSPACE = ["ws_chunk", "ws_inode", "ws_dirent", "ws_object"];

function workspaceRows(db: DatabaseSync): string {
  return rows(db, WORKSPACE);
}

/** What a live effect can write: the document's first effect kept, the question, then it. */
const EFFECT_CASES: {
  name: string;
  effect: string;
  where: string;
  value: string;
}[] = [
  {
    name: "<File> content",
    effect: `<File path="notes/token.txt">{"${HEAD}" + "${TAIL}"}</File>`,
    where: 'the Workspace file "/notes/token.txt" written by "File doc.md:7:1"',
    value: TOKEN,
  },
  {
    name: "a <File> path",
    effect: `<File path={"notes/${HEAD}" + "${TAIL}.txt"}>hello</File>`,
    where: 'journal event "File doc.md:7:1"',
    value: TOKEN,
  },
  {
    name: "a file a shell block writes",
    effect: ["```sh exec", `t="${HEAD}"`, `echo "push with \${t}${TAIL}" > out.txt`, "```"].join(
      "\n",
    ),
    where: 'the Workspace file "/out.txt" written by "exec doc.md:7:1"',
    value: TOKEN,
  },
  {
    name: "a file name a shell block creates",
    effect: ["```sh exec", `t="${HEAD}"`, `mkdir -p "d/\${t}${TAIL}"`, "```"].join("\n"),
    where: 'a name created in the Workspace by "exec doc.md:7:1"',
    value: TOKEN,
  },
  {
    name: "a symlink target a shell block stores",
    effect: ["```sh exec", `t="${HEAD}"`, `ln -s "\${t}${TAIL}" link`, "```"].join("\n"),
    where: 'a symlink target stored in the Workspace by "exec doc.md:7:1"',
    value: TOKEN,
  },
  {
    name: "a file whose secret straddles a 1 MiB chunk boundary",
    effect: [
      "```sh exec",
      `t="${HEAD}"`,
      "s=aaaaaaaaaaaaaaaa",
      "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do s=$s$s; done",
      // 1,048,556 bytes, a space, then the 40-character token: bytes 1,048,557 to 1,048,596.
      `printf '%s %s${TAIL}\\n' "\${s:20}" "$t" > big.log`,
      "```",
    ].join("\n"),
    where: 'the Workspace file "/big.log" written by "exec doc.md:7:1"',
    value: TOKEN,
  },
];

for (const c of EFFECT_CASES) {
  Deno.test(`WS-60 WF-34: a secret in ${c.name} keeps nothing of the effect and interrupts the run; --no-secret-detection keeps it`, async () => {
    const doc = [
      '<File path="kept.txt">kept</File>',
      "",
      '<Elicit as="go" schema={{ type: "boolean" }}>Go?</Elicit>',
      "",
      "Before.",
      "",
      c.effect,
      "",
      "Done.",
      "",
    ].join("\n");
    const b = await box({ "doc.md": doc });
    await suspendedBefore(b, "r");
    const ws = reading(b, "r", workspaceRows);
    // Frozen right after it settles, while its write-ahead log still holds every frame it wrote
    // (waiting for the freeze reads /proc: elsewhere the command runs through).
    const freeze = Deno.build.os === "linux";
    const child = spawnXmd(["workflow", "resume", "r"], {
      cwd: b.cwd,
      env: {
        XMD_WORKFLOW_RUNS: b.runs,
        ...(freeze ? { XMD_FAILPOINT: "settle:after:1:stop" } : {}),
      },
    });
    try {
      if (freeze) await stopped(child.pid);
      const files = await runFiles(b.runs);
      if (freeze) {
        assert.ok((files.get(`${sha256Hex("r")}.sqlite-wal`)?.length ?? 0) > 0, "no WAL to read");
      }
      const needle = new TextEncoder().encode(c.value);
      for (const [name, bytes] of files) {
        assert.ok(!holds(bytes, needle), `${name} holds the secret`);
      }
    } finally {
      if (freeze) Deno.kill(child.pid, "SIGCONT");
    }
    const output = await child.output();
    const refused: XmdResult = {
      code: output.code,
      stdout: new TextDecoder().decode(output.stdout),
      stderr: new TextDecoder().decode(output.stderr),
    };
    assert.equal(refused.stdout, "Before.\n");
    assert.equal(
      refused.stderr,
      "workflow run: r\nworkflow status: interrupted\n" +
        `xmd: Cannot persist ${c.where}: it contains what looks like a secret (rule github-token). ${HINT}\n` +
        "Run r stopped before that effect was kept (nothing of it was written). Resume it with " +
        "xmd workflow resume --no-secret-detection r to keep what it produces, or cancel it with " +
        "xmd workflow cancel r\n",
    );
    assert.equal(refused.code, 1);
    await assertNowhere(refused, b.runs, c.value);
    assert.equal(reading(b, "r", workspaceRows), ws, "the refused effect changed the Workspace");
    const run = reading(
      b,
      "r",
      (db) => ({ ...db.prepare("SELECT status, stop_reason FROM run").get() }),
    );
    assert.deepEqual(run, {
      status: "interrupted",
      stop_reason: '{"kind":"host","code":"secret_detected"}',
    });
    // Only the answer was journaled since the question: nothing of the refused effect.
    const events = reading(b, "r", (db) => db.prepare("SELECT body FROM event ORDER BY seq").all())
      .map((row) => JSON.parse(String(row.body)).description?.type ?? "close");
    assert.deepEqual(events, ["props", "file.write", "suspension_request", "suspension_answer"]);

    // With the gate on, resuming would only be refused again: refused before anything runs.
    const before = await digests(b.runs);
    const again = await b.xmd(["resume", "r"]);
    assert.equal(again.stdout, "");
    assert.equal(
      again.stderr,
      'xmd: Cannot resume run "r" with the secret gate on: it stopped because the gate refused ' +
        "what an effect produced, and that effect would run again the same way. Nothing of it " +
        "was kept. Resume it with xmd workflow resume --no-secret-detection r to keep what it " +
        "produces, or cancel it with xmd workflow cancel r\n",
    );
    assert.equal(again.code, 1);
    assert.deepEqual(await digests(b.runs), before, "the refused resume changed a file");

    const kept = await b.xmd(["resume", "--no-secret-detection", "r"]);
    assert.equal(kept.stdout, "Before.\n\nDone.\n");
    assert.equal(kept.stderr, `${OFF}workflow run: r\nworkflow status: completed\n`);
    assert.equal(kept.code, 0);
  });
}

Deno.test("WF-35: a secret answer is refused with nothing of it in any file; --no-secret-detection stores it", async () => {
  const b = await box({
    "doc.md": 'Start.\n\n<Elicit as="t" schema={{ type: "string" }}>Token?</Elicit>\n\nGot it.\n',
  });
  assert.equal((await b.xmd(["start", "--id=s", "doc.md"])).code, 2);
  const before = await digests(b.runs);
  const refused = await b.xmd(["answer", "s", "t-2", JSON.stringify(TOKEN)]);
  assertRefusedAtStart(refused, "the answer to t-2", "github-token");
  await assertNowhere(refused, b.runs, TAIL);
  assert.deepEqual(await digests(b.runs), before, "the refused answer changed a file");

  const stored = await b.xmd([
    "answer",
    "--no-secret-detection",
    "s",
    "t-2",
    JSON.stringify(TOKEN),
  ]);
  assert.equal(stored.code, 0, stored.stderr);
});

/** A block printing 2^18 lines of 64 characters (16 MiB) after a marker, written at `at`. */
function bigOutput(head: string, at: number): string {
  return [
    "```sh exec",
    `t="${head}"`,
    "nl='",
    "'",
    `s="${BUILD_LINE}$nl"`,
    "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18; do s=$s$s; done",
    `printf '%s %s${TAIL}\\n%s' "\${s:0:${at}}" "$t" "$s"`,
    "```",
    "",
  ].join("\n");
}

const BUILD_LINE = "[0000001] compiling module 42 of the build: ok, nothing to see.";

Deno.test("JRN-22 WF-34: a block printing 17 MB completes; with a token across a scan piece boundary of its event it is refused", async () => {
  assert.equal(BUILD_LINE.length, 63);
  const log = `${BUILD_LINE}\n`.repeat(2 ** 18);
  // The placeholder "ghp-" is no token; both documents have the same length, so the same event prefix.
  const b = await box({ "a.md": bigOutput("ghp-", 1_000_000) });
  const clean = await b.xmd(["start", "--id=a", "a.md"]);
  assert.equal(clean.stderr, "workflow run: a\nworkflow status: completed\n");
  assert.equal(clean.code, 0);
  assert.equal(clean.stdout.length, 1_000_000 + 1 + 40 + 1 + log.length);

  // Where the block's stdout starts in the event the gate scans (its stored JSON).
  const body = reading(
    b,
    "a",
    (db) => String(db.prepare("SELECT body FROM event WHERE seq = 2").get()!.body),
  );
  assert.ok(body.length > 17_000_000);
  const stdoutAt = body.indexOf('"stdout":"') + '"stdout":"'.length;
  const escaped = (n: number) => JSON.stringify(log.slice(0, n)).length - 2;
  assert.equal(body.slice(stdoutAt + escaped(1_000_000) + 1).slice(0, 40), "ghp-" + TAIL);

  // Place the token across the end of the first 1 MiB piece (PIECE, JRN-22) of that event.
  const PIECE = 1024 * 1024;
  let at = Math.floor((PIECE - 20 - stdoutAt) * 64 / 65);
  while (stdoutAt + escaped(at) + 1 < PIECE - 30) at++;
  const tokenAt = stdoutAt + escaped(at) + 1;
  assert.ok(tokenAt < PIECE && tokenAt + 40 > PIECE, `the token at ${tokenAt} straddles ${PIECE}`);
  assert.ok(String(at).length === 7);
  await Deno.writeTextFile(join(b.cwd, "b.md"), bigOutput(HEAD, at));
  const refused = await b.xmd(["start", "--id=b", "b.md"]);
  assert.equal(
    refused.stderr,
    "workflow run: b\nworkflow status: interrupted\n" +
      'xmd: Cannot persist journal event "exec b.md:1:1": it contains what looks like a secret ' +
      `(rule github-token). ${HINT}\n` +
      "Run b stopped before that effect was kept (nothing of it was written). Resume it with " +
      "xmd workflow resume --no-secret-detection b to keep what it produces, or cancel it with " +
      "xmd workflow cancel b\n",
  );
  assert.equal(refused.code, 1);
  const needle = new TextEncoder().encode(TOKEN);
  for (const [name, bytes] of await runFiles(b.runs)) {
    assert.ok(!holds(bytes, needle), `${name} holds the secret`);
  }
});

Deno.test("WF-36: a token typed as a run id, a suspension id or an option is not echoed by the refusal", async () => {
  const b = await box({
    "doc.md": 'Hi.\n\n<Elicit as="ok" schema={{ type: "boolean" }}>Go?</Elicit>\n',
  });
  assert.equal((await b.xmd(["start", "--id=r1", "doc.md"])).code, 2);
  const before = await digests(b.runs);
  const hidden = "<an argument that looks like a secret (rule github-token), not shown>";
  const notFound = `xmd: Cannot find run "${hidden}": no such run in ${b.runs}. ` +
    "List runs with xmd workflow list\n";
  const cases: [string[], string][] = [
    [["status", TOKEN], notFound],
    [["history", TOKEN, "--json"], notFound],
    [["resume", TOKEN], notFound],
    [["cancel", TOKEN], notFound],
    [["delete", TOKEN], notFound],
    [["export", TOKEN, join(b.cwd, "out")], notFound],
    [["diff", TOKEN, "1", "2"], notFound],
    [["answer", "r1", TOKEN, "true"], `xmd: Cannot answer "${hidden}": run "r1" waits for ok-2\n`],
  ];
  for (const [args, stderr] of cases) {
    const refused = await b.xmd(args);
    assert.equal(refused.stderr, stderr, args.join(" "));
    assert.equal(refused.stdout, "");
    assert.equal(refused.code, 1);
    assert.ok(!refused.stderr.includes(TAIL));
  }
  // A credential typed as an option is refused without its value either way.
  const option = await b.xmd(["resume", `--token=${CREDENTIAL}`, "r1"]);
  assert.equal(option.code, 1);
  assert.ok(!option.stderr.includes(CREDENTIAL), option.stderr);
  // An argument that is no secret is echoed as typed.
  assert.equal(
    (await b.xmd(["status", "no-such-run"])).stderr,
    `xmd: Cannot find run "no-such-run": no such run in ${b.runs}. List runs with xmd workflow list\n`,
  );
  assert.deepEqual(await digests(b.runs), before, "a refusal changed a file");
  await assertNowhere({ code: 0, stdout: "", stderr: "" }, b.runs, TAIL);
});
