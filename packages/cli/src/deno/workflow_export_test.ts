import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "@xmd/core";
import { runXmd, type XmdResult } from "./_run-xmd.ts";
import { testFolder } from "../../../core/src/deno/_test-temp-folder.ts";

/** A working folder with documents and the runs folder `xmd workflow` uses there. */
interface Sandbox {
  /** Where documents are, commands run and exports go. */
  cwd: string;
  /** Runs `xmd workflow <args>`. */
  xmd(...args: string[]): Promise<XmdResult>;
  /** The database of run `id`. */
  db(id: string): string;
}

async function sandbox(files: Record<string, string>): Promise<Sandbox> {
  const cwd = await testFolder("xmd-export-");
  const runs = `${cwd}/runs`;
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${cwd}/${name}`, text);
  }
  return {
    cwd,
    xmd: (...args) => runXmd(["workflow", ...args], { cwd, env: { XMD_WORKFLOW_RUNS: runs } }),
    db: (id) => `${runs}/${sha256Hex(id)}.sqlite`,
  };
}

function ok(result: XmdResult): XmdResult {
  assert.equal(result.code, 0, result.stderr);
  return result;
}

/** A refusal: exit 1, nothing on stdout, one `xmd: ` line, no stack. */
function assertRefused(result: XmdResult, message: RegExp): void {
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, message);
  assert.equal(result.stderr.split("\n").length, 2, result.stderr);
  assert.doesNotMatch(result.stderr, /internal error|^\s+at /m);
}

async function missing(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return false;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return true;
    throw error;
  }
}

/** Every path under `dir`, relative and sorted, with `/` after directories. */
async function tree(dir: string, prefix = ""): Promise<string[]> {
  const paths: string[] = [];
  for await (const entry of Deno.readDir(`${dir}/${prefix}`)) {
    const path = prefix + entry.name;
    if (entry.isDirectory) paths.push(`${path}/`, ...await tree(dir, `${path}/`));
    else paths.push(path);
  }
  return paths.sort();
}

/** The names in `dir`, sorted. */
async function names(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir), (entry) => entry.name)).sort();
}

const read = (path: string) => Deno.readTextFile(path);
const modeOf = async (path: string) => (await Deno.stat(path)).mode! & 0o7777;

interface HistoryEvent {
  id: number;
  root: string;
  type: string;
  description?: { type: string };
}

const RELEASE = fileURLToPath(new URL("../../../../examples/release.md", import.meta.url));

/** The root of an empty Workspace (root format 1). */
const EMPTY_ROOT = sha256Hex('{"entries":[],"format":1}');
const WORKSPACE_EFFECTS = new Set(["file.write", "exec"]);

Deno.test("workflow export, diff and history: the release example's Workspace, now and after each event", async () => {
  const box = await sandbox({ "release.md": await read(RELEASE) });
  const started = await box.xmd("start", "--id=rel", "--props-version=1.4.0", "release.md");
  assert.equal(started.code, 2, started.stderr);
  const suspension = started.stderr.match(/^Question \((\S+)\): Publish version 1\.4\.0\?$/m)?.[1];
  assert.equal(suspension, "approval-4", started.stderr);
  ok(await box.xmd("answer", "rel", suspension!, '{"ok":true}'));
  const resumed = ok(await box.xmd("resume", "rel"));
  assert.match(resumed.stdout, /Published 1\.4\.0\./);

  const history = JSON.parse(ok(await box.xmd("history", "rel", "--json")).stdout);
  const events: HistoryEvent[] = history.events;
  const kinds = events.map((event) => event.description?.type ?? event.type);
  assert.deepEqual(kinds, [
    "props",
    "file.write",
    "exec",
    "suspension_request",
    "suspension_answer",
    "file.write",
    "close",
  ]);
  // The root moves exactly at the Workspace effects, and every root is a full hash.
  let previous = EMPTY_ROOT;
  for (const event of events) {
    assert.match(event.root, /^[0-9a-f]{64}$/);
    assert.equal(
      event.root !== previous,
      WORKSPACE_EFFECTS.has(kinds[event.id - 1]),
      `event ${event.id} (${kinds[event.id - 1]})`,
    );
    previous = event.root;
  }
  assert.equal(history.root, previous, "the current root is the root after the last event");
  const [version, build, publish] = ["file.write", "exec"].map((kind) =>
    events.find((event) => event.description?.type === kind)!.id
  ).concat(events.findLast((event) => event.description?.type === "file.write")!.id);
  const last = events.at(-1)!.id;

  const occupied = `${box.cwd}/occupied`;
  await Deno.mkdir(occupied);
  await Deno.writeTextFile(`${occupied}/keep`, "mine");
  const databaseBefore = await Deno.readFile(box.db("rel"));
  const [
    humanHistory,
    status,
    now,
    atVersion,
    atBuild,
    diff,
    diffJson,
    refusedOccupied,
    refusedAt,
    refusedDiff,
    refusedGrammar,
  ] = await Promise.all([
    box.xmd("history", "rel"),
    box.xmd("status", "rel"),
    box.xmd("export", "rel", "now"),
    box.xmd("export", `--at=${version}`, "rel", "at-version"),
    box.xmd("export", "rel", "at-build", `--at=${build}`),
    box.xmd("diff", "rel", String(version), String(last)),
    box.xmd("diff", "rel", String(build), String(publish), "--json"),
    box.xmd("export", "rel", "occupied"),
    box.xmd("export", "--at=99", "rel", "never"),
    box.xmd("diff", "rel", "1", "99"),
    box.xmd("diff", "rel", "1", "two"),
  ]);

  const table = ok(humanHistory).stdout.split("\n\n").at(-1)!.trimEnd().split("\n");
  assert.match(table[0], /RESULT +ROOT$/);
  assert.deepEqual(
    table.slice(1).map((line) => line.split(/ +/).at(-1)),
    events.map((event) => event.root.slice(0, 12)),
  );
  assert.match(ok(status).stdout, new RegExp(`^root {8}${history.root}$`, "m"));

  assert.equal(
    ok(now).stdout,
    `exported run rel at root ${
      history.root.slice(0, 12)
    } (after event ${last}) to ${box.cwd}/now: ` +
      "3 files, 1 directory, 0 symlinks, 0 hard links\n",
  );
  assert.equal(now.stderr, "");
  assert.deepEqual(await tree(`${box.cwd}/now`), [
    "release/",
    "release/BUILD",
    "release/PUBLISHED",
    "release/VERSION",
  ]);
  assert.equal(await read(`${box.cwd}/now/release/VERSION`), "1.4.0");
  assert.match(await read(`${box.cwd}/now/release/BUILD`), /^built at \d{4}-\d\d-\d\d\n$/);
  assert.equal(await read(`${box.cwd}/now/release/PUBLISHED`), "yes");
  assert.equal(await modeOf(`${box.cwd}/now/release/VERSION`), 0o644);
  assert.equal(await modeOf(`${box.cwd}/now/release`), 0o755);

  assert.match(ok(atVersion).stdout, new RegExp(`\\(after event ${version}\\)`));
  assert.deepEqual(await tree(`${box.cwd}/at-version`), ["release/", "release/VERSION"]);
  assert.equal(await read(`${box.cwd}/at-version/release/VERSION`), "1.4.0");
  ok(atBuild);
  assert.deepEqual(await tree(`${box.cwd}/at-build`), [
    "release/",
    "release/BUILD",
    "release/VERSION",
  ]);
  assert.equal(
    await read(`${box.cwd}/at-build/release/BUILD`),
    await read(`${box.cwd}/now/release/BUILD`),
  );

  assert.equal(ok(diff).stdout, "A release/BUILD\nA release/PUBLISHED\n");
  assert.deepEqual(JSON.parse(ok(diffJson).stdout), {
    from: { event: build, root: events[build - 1].root },
    to: { event: publish, root: events[publish - 1].root },
    added: ["release/PUBLISHED"],
    removed: [],
    changed: [],
  });

  assertRefused(
    refusedOccupied,
    new RegExp(`^xmd: Cannot export to "${box.cwd}/occupied": it is not empty\\. `),
  );
  assert.deepEqual(await tree(occupied), ["keep"]);
  assert.equal(await read(`${occupied}/keep`), "mine");
  assertRefused(
    refusedAt,
    /^xmd: Cannot find event 99 of run "rel": its events are 1 to 7\. List them with xmd workflow history rel\n$/,
  );
  assert.ok(await missing(`${box.cwd}/never`), "a refused export created its target");
  assertRefused(refusedDiff, /^xmd: Cannot find event 99 of run "rel"/);
  assertRefused(refusedGrammar, /^xmd: Invalid event id "two"/);
  assert.deepEqual(
    await Deno.readFile(box.db("rel")),
    databaseBefore,
    "export, diff or history changed the run",
  );

  // A damaged chunk of the current root: verified before anything is written.
  const db = new DatabaseSync(box.db("rel"));
  const [chunk] = db.prepare("SELECT hash FROM ws_chunk WHERE data = ?").all(
    new TextEncoder().encode("yes"),
  );
  db.prepare("UPDATE ws_chunk SET data = ? WHERE hash = ?").run(
    new TextEncoder().encode("no!"),
    chunk.hash as string,
  );
  db.close();
  const [damaged, older] = await Promise.all([
    box.xmd("export", "rel", "damaged"),
    box.xmd("export", `--at=${build}`, "rel", "older"),
  ]);
  assertRefused(
    damaged,
    /^xmd: Cannot read run "rel": Workspace chunk [0-9a-f]{12} does not match its hash\n$/,
  );
  assert.ok(await missing(`${box.cwd}/damaged`), "a damaged root wrote its target");
  ok(older);
  assert.deepEqual(await tree(`${box.cwd}/older`), [
    "release/",
    "release/BUILD",
    "release/VERSION",
  ]);
});

const LINKS_DOC = [
  "# Links",
  "",
  "```sh exec",
  "mkdir -p out/sub out/locked",
  "echo data > out/sub/file",
  "ln -s sub/file out/link",
  "ln -s /etc/passwd out/outside",
  "ln out/sub/file out/hard",
  "echo secret > out/private",
  "chmod 700 out/private",
  "echo inside > out/locked/note",
  "chmod 555 out/locked",
  "```",
  "",
  "```sh exec",
  "echo more > out/sub/other",
  "```",
  "",
].join("\n");

Deno.test("workflow export recreates symlinks verbatim, hard links from the live Workspace, and modes", async () => {
  const box = await sandbox({ "links.md": LINKS_DOC });
  ok(await box.xmd("start", "--id=links", "links.md"));
  const events: HistoryEvent[] = JSON.parse(ok(await box.xmd("history", "links", "--json")).stdout)
    .events;
  const [first, second] = events.filter((event) => event.description?.type === "exec");
  const [now, older, diff] = await Promise.all([
    box.xmd("export", "links", "now"),
    box.xmd("export", `--at=${first.id}`, "links", "older"),
    box.xmd("diff", "links", String(first.id), String(second.id)),
  ]);
  assert.match(ok(now).stdout, /: 4 files, 3 directories, 2 symlinks, 1 hard link\n$/);
  assert.equal(ok(diff).stdout, "A out/sub/other\n");

  const out = `${box.cwd}/now/out`;
  assert.ok((await Deno.lstat(`${out}/link`)).isSymlink);
  assert.equal(await Deno.readLink(`${out}/link`), "sub/file");
  assert.equal(await read(`${out}/link`), "data\n");
  assert.ok((await Deno.lstat(`${out}/outside`)).isSymlink, "an absolute link was followed");
  assert.equal(await Deno.readLink(`${out}/outside`), "/etc/passwd");
  const [file, hard] = await Promise.all([Deno.stat(`${out}/sub/file`), Deno.stat(`${out}/hard`)]);
  assert.equal(file.ino, hard.ino, "the hard link was written as a copy");
  assert.equal(file.nlink, 2);
  assert.equal(await modeOf(`${out}/private`), 0o700);
  assert.equal(await read(`${out}/private`), "secret\n");
  assert.equal(await modeOf(`${out}/locked`), 0o555);
  assert.equal(await read(`${out}/locked/note`), "inside\n");
  assert.equal(await read(`${out}/sub/other`), "more\n");

  // An older root records no inode identity: its hard-linked files are separate copies.
  ok(older);
  assert.match(older.stdout, /: 4 files, 3 directories, 2 symlinks, 0 hard links\n$/);
  const old = `${box.cwd}/older/out`;
  assert.ok(await missing(`${old}/sub/other`));
  const [oldFile, oldHard] = await Promise.all([
    Deno.stat(`${old}/sub/file`),
    Deno.stat(`${old}/hard`),
  ]);
  assert.notEqual(oldFile.ino, oldHard.ino);
  assert.equal(await read(`${old}/hard`), "data\n");
  assert.equal(await Deno.readLink(`${old}/link`), "sub/file");
  assert.equal(await modeOf(`${old}/private`), 0o700);
});

const MODES_DOC = [
  "# Modes",
  "",
  "```sh exec",
  "mkdir -p out/shared out/team out/tmp",
  "echo run > out/prog",
  "chmod 4755 out/prog",
  "echo group > out/group",
  "chmod 2755 out/group",
  "echo open > out/open",
  "chmod 666 out/open",
  "chmod 777 out/shared",
  "chmod 2775 out/team",
  "chmod 1777 out/tmp",
  "```",
  "",
].join("\n");

/** Runs `attempt` with the process umask at `mask`; a subprocess inherits it. */
async function withUmask<T>(mask: number, attempt: () => Promise<T>): Promise<T> {
  const previous = Deno.umask(mask);
  try {
    return await attempt();
  } finally {
    Deno.umask(previous);
  }
}

Deno.test("WS-42 export drops set-uid, set-gid and sticky bits and honours the umask; --preserve-modes writes the recorded modes", async () => {
  const box = await sandbox({ "modes.md": MODES_DOC });
  ok(await box.xmd("start", "--id=modes", "modes.md"));
  await Deno.mkdir(`${box.cwd}/empty`, { mode: 0o751 });
  await Deno.chmod(`${box.cwd}/empty`, 0o751);
  const [masked, preserved, intoEmpty] = await withUmask(0o027, () =>
    Promise.all([
      box.xmd("export", "modes", "masked"),
      box.xmd("export", "--preserve-modes", "modes", "preserved"),
      box.xmd("export", "modes", "--preserve-modes", "empty"),
    ]));
  assert.match(ok(masked).stdout, /: 3 files, 4 directories, 0 symlinks, 0 hard links\n$/);
  const modes = async (dir: string) =>
    Object.fromEntries(
      await Promise.all(
        ["", "out", "out/prog", "out/group", "out/open", "out/shared", "out/team", "out/tmp"].map(
          async (path) => [path, (await modeOf(`${box.cwd}/${dir}/${path}`)).toString(8)],
        ),
      ),
    );
  // By default a mode is what the umask (027 here) leaves of its permission bits.
  assert.deepEqual(await modes("masked"), {
    "": "750",
    out: "750",
    "out/prog": "750",
    "out/group": "750",
    "out/open": "640",
    "out/shared": "750",
    "out/team": "750",
    "out/tmp": "750",
  });
  ok(preserved);
  const recorded = {
    out: "755",
    "out/prog": "4755",
    "out/group": "2755",
    "out/open": "666",
    "out/shared": "777",
    "out/team": "2775",
    "out/tmp": "1777",
  };
  assert.deepEqual(await modes("preserved"), { "": "750", ...recorded });
  // An existing empty folder is filled, keeping its own mode, and holds nothing else.
  ok(intoEmpty);
  assert.deepEqual(await modes("empty"), { "": "751", ...recorded });
  assert.deepEqual(await tree(`${box.cwd}/empty`), await tree(`${box.cwd}/preserved`));
  assert.equal(await read(`${box.cwd}/empty/out/prog`), "run\n");
  assert.deepEqual(
    await names(box.cwd),
    ["empty", "masked", "modes.md", "preserved", "runs"],
    "an export left a staging folder",
  );
});

// A Workspace name holds at most 255 bytes and a path 4,096 (WS-47): this 4,016-byte path fits
// the Workspace, but not the host once the export's target folder is put in front of it.
const LONG_PATH = Array(16).fill("x".repeat(250)).join("/");
const LONG_DOC = [
  "# Long",
  "",
  "```sh exec",
  "mkdir -p out/sub",
  "echo one > out/sub/first",
  `mkdir -p out/${LONG_PATH.slice(0, LONG_PATH.lastIndexOf("/"))}`,
  `echo two > out/${LONG_PATH}`,
  "echo three > out/zlast",
  "```",
  "",
].join("\n");

Deno.test("WS-43 an export the host refuses leaves nothing: a path too long for it, a target under a file, in /proc, or too long", async () => {
  const box = await sandbox({ "long.md": LONG_DOC, "afile": "mine\n" });
  ok(await box.xmd("start", "--id=long", "long.md"));
  await Deno.mkdir(`${box.cwd}/empty`);
  await Deno.chmod(`${box.cwd}/empty`, 0o751);
  const before = await tree(box.cwd);
  const database = await Deno.readFile(box.db("long"));
  const impossible = [
    `${box.cwd}/afile/out`,
    `${box.cwd}/${"b".repeat(300)}`,
    ...(Deno.build.os === "linux" ? ["/proc/xmd-export-test"] : []),
  ];
  const [intoNew, intoEmpty, ...refusedTargets] = await Promise.all([
    box.xmd("export", "long", "new/deep/target"),
    box.xmd("export", "long", "empty"),
    ...impossible.map((target) => box.xmd("export", "long", target)),
  ]);
  // Written in tree order, out/sub/first came before the refused name: it is gone too.
  const refusedName = (target: string) =>
    new RegExp(
      `^xmd: Cannot export to "${target}": the host refused "out/(x{32}…/)*x{32}…": file name too long \\(ENAMETOOLONG\\); nothing was written\\. This file system cannot hold that name: export the root of an earlier event with --at=<event-id> \\(see xmd workflow history long\\), or change the document\\n$`,
    );
  assertRefused(intoNew, refusedName(`${box.cwd}/new/deep/target`));
  assertRefused(intoEmpty, refusedName(`${box.cwd}/empty`));
  for (const [index, refused] of refusedTargets.entries()) {
    assertRefused(
      refused,
      new RegExp(
        `^xmd: Cannot export to "${
          impossible[index]
        }": the host refused it: [a-z ]+ \\((ENOTDIR|ENAMETOOLONG|ENOENT)\\)\\. Name a new or empty directory you can write\\n$`,
      ),
    );
  }
  assert.deepEqual(await tree(box.cwd), before, "a refused export left files or folders");
  assert.equal(await modeOf(`${box.cwd}/empty`), 0o751);
  assert.equal(await read(`${box.cwd}/afile`), "mine\n");
  assert.deepEqual(await Deno.readFile(box.db("long")), database, "an export changed the run");
  if (Deno.build.os === "linux") assert.ok(await missing("/proc/xmd-export-test"));
});
