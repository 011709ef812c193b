/**
 * The corruption matrix of the Workspace: damaged chunks, tree and file
 * objects (stored in full or as a delta), a run root that is not retained and a journal root that is not a
 * hash. Every command that reads the Workspace (`resume` of a suspended run,
 * which verifies the current root before continuing; `export`) refuses them
 * with `WorkflowDatabaseCorruptError`, in-process and through the CLI (exit
 * 1, one message, no stack trace), writes nothing anywhere and leaves the
 * database byte-for-byte unchanged. A completed run's replay attaches no
 * Workspace, so Workspace damage does not stop it from printing its output.
 */
import assert from "node:assert/strict";
import { sha256Hex } from "@xmd/core";
import { DatabaseSync } from "node:sqlite";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import {
  assertRefused,
  type DatabaseFiles,
  eachConcurrently,
  quietIo,
  readDatabase,
  restoreDatabase,
  RUN,
  runPath,
  workflow,
} from "./_test-workflow-cli.ts";
import { assertExit, workspaceReference } from "./_test-workspace-run.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";

interface Case {
  name: string;
  /** Damages the database through a plain connection, as an outside tool would. */
  damage(db: DatabaseSync): void;
  message: RegExp;
  /**
   * What `export` reads the damage in: the current root (the default), the
   * root recorded by a damaged event (`--at` it), or nothing (the current
   * root's objects are intact).
   */
  export?: { at(db: DatabaseSync): number } | "intact";
  /** Whether the damage is in the Workspace (a completed replay does not read it) or the journal. */
  in: "workspace" | "journal";
}

const encoder = new TextEncoder();

/** The run's current root: its last event's (WS-113). */
function currentRoot(db: DatabaseSync): string {
  return String(db.prepare("SELECT root FROM event ORDER BY seq DESC LIMIT 1").get()!.root);
}

/** The hash an entry of the current root's tree names (`notes`, or `notes/a.txt`). */
function refOf(db: DatabaseSync, path: string): string {
  let ref = currentRoot(db);
  for (const name of path.split("/")) {
    const body = String(db.prepare("SELECT body FROM ws_object WHERE hash = ?").get(ref)!.body);
    const entries = JSON.parse(body).entries as [string, string, number, string][];
    ref = entries.find(([entry]) => entry === name)![3];
  }
  return ref;
}

/** Rewrites a stored object's body with `edit` (a change that still parses). */
function editObject(db: DatabaseSync, hash: string, edit: (body: string) => string): void {
  const body = String(db.prepare("SELECT body FROM ws_object WHERE hash = ?").get(hash)!.body);
  const edited = edit(body);
  assert.notEqual(edited, body);
  db.prepare("UPDATE ws_object SET body = ? WHERE hash = ?").run(edited, hash);
}

/** Runs a statement that must change exactly one row. */
function changeOne(db: DatabaseSync, sql: string, ...params: (string | Uint8Array)[]): void {
  assert.equal(Number(db.prepare(sql).run(...params).changes), 1, sql);
}

const CHUNK_MISMATCH = /Workspace chunk [0-9a-f]{12} does not match its hash/;
const OBJECT_MISMATCH = /Workspace object [0-9a-f]{12} does not match its hash/;
const OBJECT_MISSING = /Workspace object [0-9a-f]{12} is missing/;
const DISAGREE = /its current Workspace root is not the one its journal last recorded/;

const CASES: Case[] = [
  {
    name: "flipped bytes in a chunk",
    damage: (db) => {
      const hash = sha256Hex(encoder.encode("alpha"));
      const data = db.prepare("SELECT data FROM ws_chunk WHERE hash = ?").get(hash)!.data;
      const flipped = Uint8Array.from(
        data as Uint8Array,
        (byte, i) => i === 2 ? byte ^ 0xff : byte,
      );
      changeOne(db, "UPDATE ws_chunk SET data = ? WHERE hash = ?", flipped, hash);
    },
    message: CHUNK_MISMATCH,
    in: "workspace",
  },
  {
    name: "a missing chunk",
    damage: (db) =>
      changeOne(db, "DELETE FROM ws_chunk WHERE hash = ?", sha256Hex(encoder.encode("beta"))),
    message: /Workspace chunk [0-9a-f]{12} is missing/,
    in: "workspace",
  },
  {
    name: "a tree object whose body no longer matches its hash",
    // notes/a.txt becomes 0o600 in the body of the `notes` tree: still a well-formed tree.
    damage: (db) => editObject(db, refOf(db, "notes"), (body) => body.replace(",420,", ",384,")),
    message: OBJECT_MISMATCH,
    in: "workspace",
  },
  {
    name: "a file object whose body no longer matches its hash",
    damage: (db) =>
      editObject(db, refOf(db, "notes/a.txt"), (body) => body.replace('"size":5', '"size":4')),
    message: OBJECT_MISMATCH,
    in: "workspace",
  },
  {
    name: "a missing tree object",
    damage: (db) => changeOne(db, "DELETE FROM ws_object WHERE hash = ?", refOf(db, "notes")),
    message: OBJECT_MISSING,
    in: "workspace",
  },
  {
    name: "a tree object stored as a delta whose base is missing",
    damage: (db) =>
      changeOne(
        db,
        'UPDATE ws_object SET body = \'{"remove":[],"set":[]}\', base = ?, depth = 1 ' +
          "WHERE hash = ?",
        sha256Hex(encoder.encode("never stored")),
        refOf(db, "notes"),
      ),
    message: /Workspace object [0-9a-f]{12} has a missing base/,
    in: "workspace",
  },
  {
    name: "a tree object stored as a delta whose body is not a delta",
    damage: (db) => {
      const root = currentRoot(db);
      changeOne(
        db,
        "UPDATE ws_object SET body = 'not a delta', base = ?1, " +
          "depth = (SELECT depth FROM ws_object WHERE hash = ?1) + 1 WHERE hash = ?2",
        root,
        refOf(db, "notes"),
      );
    },
    message: /Workspace object [0-9a-f]{12} is malformed/,
    in: "workspace",
  },
  {
    name: "a run root (its last event's) that points to a root that is not retained",
    damage: (db) =>
      changeOne(
        db,
        "UPDATE event SET root = ? WHERE seq = (SELECT max(seq) FROM event)",
        sha256Hex(encoder.encode("never published")),
      ),
    message: OBJECT_MISSING,
    in: "workspace",
  },
  {
    name: "a run root (its last event's) that points to an older retained root",
    damage: (db) =>
      changeOne(
        db,
        "UPDATE event SET root = (SELECT root FROM event WHERE seq = 2) " +
          "WHERE seq = (SELECT max(seq) FROM event)",
      ),
    message: DISAGREE,
    export: "intact",
    in: "workspace",
  },
  {
    name: "a live Workspace not published at the run's root",
    damage: (db) => changeOne(db, "UPDATE ws_inode SET hash = NULL WHERE ino = 1"),
    message: DISAGREE,
    export: "intact",
    in: "workspace",
  },
  {
    name: "a live file's mode changed, its cached hashes left as they were",
    damage: (db) =>
      changeOne(
        db,
        "UPDATE ws_inode SET mode = 511 WHERE ino = " +
          "(SELECT d.ino FROM ws_dirent d JOIN ws_inode i ON i.ino = d.ino " +
          "WHERE i.kind = 'file' ORDER BY d.name LIMIT 1)",
      ),
    message: DISAGREE,
    export: "intact",
    in: "workspace",
  },
  {
    name: "a live directory entry renamed, its cached hashes left as they were",
    damage: (db) =>
      changeOne(
        db,
        "UPDATE ws_dirent SET name = 'renamed' WHERE rowid = " +
          "(SELECT rowid FROM ws_dirent ORDER BY name LIMIT 1)",
      ),
    message: DISAGREE,
    export: "intact",
    in: "workspace",
  },
  {
    name: "a live file's chunk list emptied, its cached hashes left as they were",
    damage: (db) =>
      changeOne(
        db,
        "UPDATE ws_inode SET chunks = '[]', size = 0 WHERE ino = " +
          "(SELECT ino FROM ws_inode WHERE kind = 'file' AND size > 0 ORDER BY ino LIMIT 1)",
      ),
    message: DISAGREE,
    export: "intact",
    in: "workspace",
  },
  {
    name: "a live directory entry pointing at its own directory",
    damage: (db) =>
      changeOne(
        db,
        "INSERT INTO ws_dirent (parent, name, ino) SELECT d.ino, 'loop', d.ino " +
          "FROM ws_dirent d JOIN ws_inode i ON i.ino = d.ino WHERE i.kind = 'dir' LIMIT 1",
      ),
    message: /its live Workspace is damaged \(a directory is reached twice\)/,
    export: "intact",
    in: "workspace",
  },
  {
    name: "a journal event root that is not a hash",
    damage: (db) =>
      changeOne(
        db,
        "UPDATE event SET root = 'not-a-hash' WHERE seq = (SELECT max(seq) FROM event)",
      ),
    message: /its journal event \d+ is damaged \(root\)/,
    export: {
      at: (db: DatabaseSync) => Number(db.prepare("SELECT max(seq) AS seq FROM event").get()!.seq),
    },
    in: "journal",
  },
];

/** The reference states damaged: waiting to resume with its answer, and completed. */
const STATES = ["answered", "completed"] as const;

Deno.test("workspace corruption matrix: damaged chunks, objects and roots are refused by resume and export with WorkflowDatabaseCorruptError, the database left byte-identical", async () => {
  const reference = await workspaceReference();
  const items = CASES.flatMap((c) => STATES.map((state) => ({ c, state })));

  await eachConcurrently(
    items,
    4,
    ({ c, state }) => `${c.name} (${state})`,
    async ({ c, state }) => {
      const runs = await restoreDatabase(reference[state]);
      try {
        const path = runPath(runs);
        const db = new DatabaseSync(path);
        let at: number | undefined;
        try {
          c.damage(db);
          if (typeof c.export === "object") at = c.export.at(db);
        } finally {
          db.close();
        }
        const before = await readDatabase(runs);
        assert.equal(before.wal.length, 0, "the damaged file is complete on its own");
        const unchanged = async (after: string) => {
          const now = await readDatabase(runs);
          assert.ok(equalBytes(now, before), `the database changed after ${after}`);
        };
        const host = new LocalWorkflowHost(runs);
        const refusedInProcess = async (attempt: Promise<unknown>, what: string) => {
          await assert.rejects(attempt, (error: Error) => {
            assert.ok(
              error instanceof WorkflowDatabaseCorruptError,
              `${what}: ${error.name}: ${error.message}`,
            );
            assert.match(error.message, c.message, what);
            return true;
          });
          await unchanged(what);
        };

        // resume: a suspended run verifies its current root before continuing;
        // a completed run replays without attaching the Workspace.
        const replays = state === "completed" && c.in === "workspace";
        if (replays) {
          let output = "";
          const report = await host.resume(RUN, { ...quietIo(), stdout: (text) => output += text });
          assert.equal(report.status, "completed");
          assert.equal(output, reference.output);
          await unchanged("an in-process replay");
          const replay = await workflow(runs, ["resume", RUN]);
          assertExit(replay, 0);
          assert.equal(replay.stdout, reference.output);
        } else {
          await refusedInProcess(host.resume(RUN, quietIo()), "resume");
          assertRefused(await workflow(runs, ["resume", RUN]), c.message);
        }
        await unchanged("xmd workflow resume");

        if (c.export === "intact") return;
        // export: the root is verified before anything is written, so the target is never created.
        const target = `${runs}/export`;
        await refusedInProcess(host.export(RUN, at ?? null, target), "export");
        const args = ["export", RUN, ...(at === undefined ? [] : [`--at=${at}`]), target];
        assertRefused(await workflow(runs, args), c.message);
        await unchanged("xmd workflow export");
        await assert.rejects(Deno.stat(target), Deno.errors.NotFound, "export wrote its target");
      } finally {
        await Deno.remove(runs, { recursive: true });
      }
    },
  );
});

function equalBytes(a: DatabaseFiles, b: DatabaseFiles): boolean {
  const same = (x: Uint8Array, y: Uint8Array) =>
    x.length === y.length && x.every((byte, index) => byte === y[index]);
  return same(a.main, b.main) && same(a.wal, b.wal);
}
