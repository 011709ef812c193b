/**
 * Reading a run changes nothing: inspection through the real CLI of a run at
 * rest (one file) and of a run a killed command left with committed frames in
 * its write-ahead log, a torn last transaction, a read-only runs folder and a
 * write that stopped half-way in rollback mode (WF-40, WF-41, WF-44).
 */
import assert from "node:assert/strict";
import { testFolder } from "../../../core/src/deno/_test-temp-folder.ts";
import {
  answerArgs,
  assertRefused,
  type DatabaseFiles,
  readDatabaseAt,
  referenceRun,
  restoreDatabase,
  RUN,
  runPath,
  sameFiles,
  sideFiles,
  walReferenceRun,
  workflow,
} from "./_test-workflow-cli.ts";
import { scanWal } from "./wal-file.ts";

/**
 * The wal-index is SQLite's shared-memory index of the log, no data: the
 * first connection after a crash rebuilds it from the log, reading or not.
 */
const WAL_INDEX = { shm: false };

/**
 * Runs every inspection command on the run in `runs`, each a subprocess,
 * asserting after each that no file changed, appeared or went. Returns what
 * `status` printed.
 */
async function inspectUnchanged(runs: string, before: DatabaseFiles): Promise<string> {
  const path = runPath(runs);
  const sides = await sideFiles(path);
  const exports = await testFolder("xmd-export-");
  const commands = [
    ["status", RUN],
    ["status", RUN, "--json"],
    ["list"],
    ["history", RUN],
    ["export", RUN, `${exports}/now`],
    ["export", RUN, "--at=1", `${exports}/first`],
    ["diff", RUN, "1", "2"],
  ];
  let status = "";
  for (const args of commands) {
    const outcome = await workflow(runs, args);
    assert.equal(outcome.code, 0, `${args.join(" ")}: ${outcome.stderr}`);
    if (args[0] === "status" && args.length === 2) status = outcome.stdout;
    assert.deepEqual(sameFiles(await readDatabaseAt(path), before, WAL_INDEX), [], args[0]);
    assert.deepEqual(await sideFiles(path), sides, `files appeared or went after ${args[0]}`);
  }
  await Deno.remove(exports, { recursive: true });
  return status;
}

Deno.test("WF-40 a run at rest is one file in rollback mode, and every inspection leaves it so", async () => {
  const reference = await referenceRun();
  const runs = await restoreDatabase(reference.suspendedFirst);
  const path = runPath(runs);
  const header = reference.suspendedFirst.main.subarray(18, 20);
  assert.deepEqual([...header], [1, 1], "a writer that closed last left rollback mode");
  assert.deepEqual(await sideFiles(path), []);
  const status = await inspectUnchanged(runs, await readDatabaseAt(path));
  assert.match(status, /suspended/);
  await Deno.remove(runs, { recursive: true });
});

Deno.test("WF-40 inspecting a crashed run whose events live in its write-ahead log changes neither file, and the run goes on", async () => {
  const reference = await referenceRun();
  const wal = await walReferenceRun();
  const runs = await restoreDatabase(wal.suspendedFirst);
  const path = runPath(runs);
  const before = await readDatabaseAt(path);
  const scan = scanWal(`${path}-wal`, 4096);
  assert.ok(scan.committedFrames > 0 && scan.damage === null, "committed frames in the WAL");

  const status = await inspectUnchanged(runs, before);
  // What used to be read as "its start did not finish": the run is there, suspended.
  assert.match(status, /suspended/);

  // Nothing was lost: the run answers and continues like the reference run.
  const [first] = reference.suspensions;
  assert.equal((await workflow(runs, answerArgs(first))).code, 0);
  const resumed = await workflow(runs, ["resume", RUN]);
  assert.equal(resumed.code, 2, resumed.stderr);
  assert.match(resumed.stderr, new RegExp(`Question \\(${reference.suspensions[1]}\\)`));
  assert.deepEqual(await sideFiles(path), [], "the writer that closed last left one file");
  await Deno.remove(runs, { recursive: true });
});

Deno.test("WF-41 a torn last transaction (frames that do not verify, none committed after them) is not damage", async () => {
  const wal = await walReferenceRun();
  const runs = await restoreDatabase({ ...wal.suspendedFirst, shm: new Uint8Array() });
  const path = runPath(runs);
  // A frame written for this log (its salts) whose page never made it, and a partial one.
  const bytes = await Deno.readFile(`${path}-wal`);
  const frame = 24 + 4096;
  const last = bytes.subarray(bytes.length - frame);
  const torn = new Uint8Array(frame + frame / 2);
  torn.set(last.subarray(0, 24));
  torn.fill(0x5a, 24);
  await Deno.writeFile(`${path}-wal`, new Uint8Array([...bytes, ...torn]));
  const scan = scanWal(`${path}-wal`, 4096);
  assert.equal(scan.damage, null);
  assert.equal(scan.unverifiedFrames, 1);

  const before = await readDatabaseAt(path);
  const status = await workflow(runs, ["status", RUN]);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, /suspended/, "every committed transaction is read");
  assert.deepEqual(sameFiles(await readDatabaseAt(path), before, WAL_INDEX), []);
  await Deno.remove(runs, { recursive: true });
});

Deno.test("WF-44 a read-only runs folder: a run at rest and a crashed run with its wal-index are read; a log without its wal-index is refused unchanged", async (t) => {
  const reference = await referenceRun();
  const wal = await walReferenceRun();
  const cases: { name: string; files: DatabaseFiles; read: boolean }[] = [
    { name: "at rest", files: reference.suspendedFirst, read: true },
    { name: "crashed, with its wal-index", files: wal.suspendedFirst, read: true },
    {
      name: "crashed, without its wal-index",
      files: { ...wal.suspendedFirst, shm: new Uint8Array() },
      read: false,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const runs = await restoreDatabase(c.files);
      const path = runPath(runs);
      await using _readOnly = await readOnlyFolder(runs);
      const before = await readDatabaseAt(path);
      const sides = await sideFiles(path);
      const outcome = await workflow(runs, ["status", RUN]);
      if (c.read) {
        assert.equal(outcome.code, 0, outcome.stderr);
        assert.match(outcome.stdout, /suspended/);
      } else {
        assertRefused(outcome, /SQLite must create its -wal or -shm file beside it.*read-only/);
      }
      assert.deepEqual(sameFiles(await readDatabaseAt(path), before, WAL_INDEX), []);
      assert.deepEqual(await sideFiles(path), sides);
    });
  }
});

Deno.test("WF-44 a write that stopped half-way in rollback mode: inspection refuses it unchanged, resume lets SQLite roll it back", async () => {
  const reference = await referenceRun();
  const runs = await restoreDatabase(reference.suspendedFirst);
  const path = runPath(runs);
  // Another process dies in the middle of a rollback-mode write that spilled to the file.
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(script, HALF_WRITE);
  const killed = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", script, path],
    stderr: "piped",
  }).output();
  await Deno.remove(script);
  assert.equal(killed.signal, "SIGKILL", new TextDecoder().decode(killed.stderr));
  assert.deepEqual(await sideFiles(path), ["-journal"]);
  const journal = await Deno.readFile(`${path}-journal`);
  const before = await readDatabaseAt(path);

  assertRefused(await workflow(runs, ["status", RUN]), /a write to it stopped half-way/);
  assert.deepEqual(sameFiles(await readDatabaseAt(path), before), []);
  assert.deepEqual(await Deno.readFile(`${path}-journal`), journal);

  const resumed = await workflow(runs, ["resume", RUN]);
  assert.equal(resumed.code, 2, resumed.stderr);
  assert.match(resumed.stderr, /Question/);
  assert.deepEqual(await sideFiles(path), []);
  assert.deepEqual((await readDatabaseAt(path)).main, reference.suspendedFirst.main);
  await Deno.remove(runs, { recursive: true });
});

/** A script that writes to the database at `Deno.args[0]` until the cache spills, then dies. */
const HALF_WRITE = `
import { DatabaseSync } from "node:sqlite";
const db = new DatabaseSync(Deno.args[0]);
db.exec("PRAGMA cache_size = 2; BEGIN; CREATE TABLE spill (x TEXT)");
const insert = db.prepare("INSERT INTO spill VALUES (?)");
for (let i = 0; i < 400; i++) insert.run("x".repeat(1000));
Deno.kill(Deno.pid, "SIGKILL");
`;

/**
 * Makes `folder` read-only for this process and its children until disposed:
 * its mode, and for root (whom modes do not stop) the immutable attribute.
 */
async function readOnlyFolder(folder: string): Promise<AsyncDisposable> {
  await Deno.chmod(folder, 0o555);
  const immutable = Deno.uid() === 0;
  if (immutable) {
    const set = await new Deno.Command("chattr", { args: ["+i", folder] }).output();
    assert.ok(set.success, `chattr +i: ${new TextDecoder().decode(set.stderr)}`);
  }
  await assert.rejects(Deno.writeTextFile(`${folder}/probe`, ""), "the folder is read-only");
  return {
    async [Symbol.asyncDispose]() {
      if (immutable) await new Deno.Command("chattr", { args: ["-i", folder] }).output();
      await Deno.chmod(folder, 0o755);
      await Deno.remove(folder, { recursive: true });
    },
  };
}
