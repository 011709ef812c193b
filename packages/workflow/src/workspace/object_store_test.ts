import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import { NodeSqliteSeam } from "../deno/node-sqlite-seam.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { MAX_DEPTH, readObjectText } from "./object-store.ts";
import { forgetHashes, publicationCommitted, publishRoot } from "./publish-root.ts";
import { objectHash } from "./root-format.ts";
import { verifyRoot } from "./verify-root.ts";
import { Workspace } from "./workspace.ts";

const text = (value: string) => new TextEncoder().encode(value);

/** A Workspace of one 50-file directory `/d`, published and committed. */
function workspace(): { sql: SqlSeam; ws: Workspace } {
  const sql = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  sql.transaction(() => Workspace.initialize(sql));
  const ws = new Workspace(sql);
  sql.transaction(() => {
    ws.mkdir("/d");
    for (let i = 0; i < 50; i++) ws.writeFile(`/d/${i}`, text(`file ${i}`));
    publishRoot(sql);
  });
  publicationCommitted(sql);
  return { sql, ws };
}

/** Changes `/d/<name>` in its own published commit; returns the root. */
function change(sql: SqlSeam, ws: Workspace, name: string, content: string): string {
  const root = sql.transaction(() => {
    ws.writeFile(`/d/${name}`, text(content));
    return publishRoot(sql);
  });
  publicationCommitted(sql);
  return root;
}

function row(sql: SqlSeam, hash: string): { base: unknown; depth: unknown } {
  const [found] = sql.exec("SELECT base, depth FROM ws_object WHERE hash = ?", hash);
  return { base: found.base, depth: found.depth };
}

function dirHash(sql: SqlSeam): string {
  return String(sql.exec("SELECT hash FROM ws_inode WHERE ino = 2")[0].hash);
}

Deno.test("a tree rebuilt from its previous one is stored as a delta, named by its full text", () => {
  const { sql, ws } = workspace();
  const first = dirHash(sql);
  const root = change(sql, ws, "7", "changed");
  const second = dirHash(sql);
  assert.deepEqual(row(sql, second), { base: first, depth: 1 });
  const full = readObjectText(sql, second, "d")!;
  assert.equal(objectHash(full), second);
  assert.ok(full.includes(`["7","file",420,`));
  verifyRoot(sql, root, "run");
  // A full rehash yields the same objects: the delta already names them.
  forgetHashes(sql);
  assert.equal(sql.transaction(() => publishRoot(sql)), root);
});

Deno.test("delta chains stay within MAX_DEPTH and small trees are stored in full", () => {
  const { sql, ws } = workspace();
  let root = "";
  for (let i = 0; i < 3 * MAX_DEPTH; i++) root = change(sql, ws, `${i % 50}`, `v${i}`);
  const depths = sql.exec("SELECT max(depth) AS max, count(*) AS n FROM ws_object WHERE depth > 0");
  assert.equal(depths[0].max, MAX_DEPTH);
  verifyRoot(sql, root, "run");
  // The root tree holds one entry: its delta would be no smaller, so it is stored in full.
  assert.deepEqual(row(sql, root), { base: null, depth: 0 });
});

Deno.test("a damaged delta is corruption: bad body, missing base, cycle, wrong depth, wrong text", () => {
  const damages: [string, (sql: SqlSeam, hash: string, base: string) => void, RegExp][] = [
    ["bad body", (sql, hash) => update(sql, hash, "body = 'not json'"), /is malformed/],
    ["not a delta", (sql, hash) => update(sql, hash, `body = '{"entries":[]}'`), /is malformed/],
    [
      "missing base",
      (sql, hash) => update(sql, hash, `base = '${"0".repeat(64)}'`),
      /missing base/,
    ],
    ["cycle", (sql, hash) => update(sql, hash, `base = '${hash}'`), /is malformed/],
    ["wrong depth", (sql, hash) => update(sql, hash, "depth = 3"), /is malformed/],
    ["not a hash", (sql, hash) => update(sql, hash, "base = 'x'"), /is malformed/],
    [
      "wrong text",
      (sql, hash) => update(sql, hash, "body = replace(body, ',420,', ',384,')"),
      /does not match its hash/,
    ],
    [
      "damaged base",
      (sql, _, base) => update(sql, base, "body = replace(body, '\"0\",', '\"0x\",')"),
      /does not match its hash/,
    ],
  ];
  for (const [name, damage, message] of damages) {
    const { sql, ws } = workspace();
    const base = dirHash(sql);
    const root = change(sql, ws, "7", "changed");
    damage(sql, dirHash(sql), base);
    assert.throws(
      () => verifyRoot(sql, root, "run"),
      (error: Error) =>
        error instanceof WorkflowDatabaseCorruptError && message.test(error.message),
      name,
    );
  }
});

function update(sql: SqlSeam, hash: string, set: string): void {
  sql.exec(`UPDATE ws_object SET ${set} WHERE hash = ?`, hash);
}
