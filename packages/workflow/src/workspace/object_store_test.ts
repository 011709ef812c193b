import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import { NodeSqliteSeam } from "../deno/node-sqlite-seam.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { MAX_DEPTH, readObjectText, storeObject } from "./object-store.ts";
import { forgetHashes, publicationCommitted, publishRoot } from "./publish-root.ts";
import { objectHash, treeObjectOf } from "./root-format.ts";
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
  const sql = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  sql.transaction(() => Workspace.initialize(sql));
  // A chain built by hand, each tree one entry more than its base.
  const entry = (i: number) => JSON.stringify([`n${String(i).padStart(3, "0")}`, "file", 420, "x"]);
  const tree = (count: number) =>
    treeObjectOf(`[${Array.from({ length: count }, (_, i) => entry(i)).join(",")}]`);
  let base = objectHash(tree(100));
  storeObject(sql, base, tree(100));
  for (let count = 101; count <= 101 + MAX_DEPTH; count++) {
    const hash = objectHash(tree(count));
    const asDelta = storeObject(sql, hash, tree(count), {
      base,
      set: [entry(count - 1)],
      remove: [],
    });
    // The 17th delta would be one too deep: that tree is stored in full.
    assert.equal(asDelta, count <= 100 + MAX_DEPTH);
    assert.deepEqual(
      row(sql, hash),
      asDelta ? { base, depth: count - 100 } : { base: null, depth: 0 },
    );
    assert.equal(readObjectText(sql, hash, "d"), tree(count));
    base = hash;
  }
  // A tree of one entry: its delta would be no smaller, so it is stored in full.
  const { sql: other, ws } = workspace();
  const root = change(other, ws, "7", "changed");
  assert.deepEqual(row(other, root), { base: null, depth: 0 });
});

/** The bits set in `n`. */
function bits(n: number): number {
  let count = 0;
  for (; n > 0; n &= n - 1) count++;
  return count;
}

/** A Workspace of one directory `/d` of `files` files, published and committed. */
function folder(files: number): { sql: SqlSeam; ws: Workspace } {
  const sql = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  sql.transaction(() => Workspace.initialize(sql));
  const ws = new Workspace(sql);
  sql.transaction(() => {
    ws.mkdir("/d");
    for (let i = 0; i < files; i++) ws.writeFile(`/d/f${i}`, text(`file ${i}`));
    publishRoot(sql);
  });
  publicationCommitted(sql);
  return { sql, ws };
}

Deno.test("WS-110: version n of a directory's tree is a delta against version n with its lowest set bit cleared, with no periodic full text", () => {
  const { sql, ws } = folder(400);
  const versions = [dirHash(sql)];
  for (let n = 1; n <= 100; n++) {
    change(sql, ws, `f${n % 10}`, `v${n}`);
    versions.push(dirHash(sql));
  }
  // Chains of 16 one-change deltas stored every 17th tree in full: here none after the first.
  assert.deepEqual(row(sql, versions[0]), { base: null, depth: 0 });
  for (let n = 1; n <= 100; n++) {
    assert.deepEqual(
      row(sql, versions[n]),
      { base: versions[n & (n - 1)], depth: bits(n) },
      `${n}`,
    );
    assert.equal(objectHash(readObjectText(sql, versions[n], "d")!), versions[n]);
  }
  const root = sql.transaction(() => publishRoot(sql));
  verifyRoot(sql, root, "run");
  forgetHashes(sql);
  assert.equal(sql.transaction(() => publishRoot(sql)), root);
});

Deno.test("WS-110: a growing directory stores its full text only when a delta outgrows a quarter of it", () => {
  const { sql, ws } = folder(300);
  const versions = [dirHash(sql)];
  for (let n = 1; n <= 300; n++) {
    change(sql, ws, `new${n}`, `new ${n}`);
    versions.push(dirHash(sql));
  }
  const full = versions.filter((hash) => row(sql, hash).base === null);
  // Every 17th (18 trees) before; now the first, and version 128, whose 128 new names since the
  // first are more than a quarter of its 428 entries: numbering starts again from it.
  assert.deepEqual(full, [versions[0], versions[128]]);
  for (let n = 129; n <= 300; n++) {
    const m = n - 128;
    assert.deepEqual(row(sql, versions[n]), {
      base: versions[128 + (m & (m - 1))],
      depth: bits(m),
    });
  }
  for (const hash of versions) assert.equal(objectHash(readObjectText(sql, hash, "d")!), hash);
});

Deno.test("WS-112: a skip-delta holds exactly its differences from its base: it removes only names the base has", () => {
  const { sql, ws } = folder(20);
  const v0 = dirHash(sql);
  change(sql, ws, "x", "added"); // version 1: against version 0
  sql.transaction(() => {
    ws.unlink("/d/x");
    ws.writeFile("/d/f1", text("changed"));
    publishRoot(sql);
  });
  publicationCommitted(sql); // version 2: against version 0, which never had x
  const v2 = dirHash(sql);
  const [stored] = sql.exec("SELECT base, body FROM ws_object WHERE hash = ?", v2);
  assert.equal(stored.base, v0);
  const body = JSON.parse(String(stored.body));
  assert.deepEqual(body.remove, []);
  assert.deepEqual(body.set.map((entry: unknown[]) => entry[0]), ["f1"]);
  sql.transaction(() => {
    ws.unlink("/d/f2");
    publishRoot(sql);
  });
  publicationCommitted(sql); // version 3: against version 2
  change(sql, ws, "f3", "changed"); // version 4: against version 0 again
  const [fourth] = sql.exec("SELECT base, body FROM ws_object WHERE hash = ?", dirHash(sql));
  assert.equal(fourth.base, v0);
  const since = JSON.parse(String(fourth.body));
  assert.deepEqual(since.remove, ["f2"]);
  assert.deepEqual(since.set.map((entry: unknown[]) => entry[0]), ["f1", "f3"]);
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

Deno.test("a delta's base is never one a rollback removed: a depth remembered before a rollback is read again", () => {
  const sql = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  sql.transaction(() => Workspace.initialize(sql));
  const entries = (n: number) =>
    `[${
      Array.from({ length: n }, (_, i) =>
        JSON.stringify([`f${String(i).padStart(2, "0")}`, "file", 420, "a".repeat(64)]))
    }]`;
  const baseText = treeObjectOf(entries(40));
  const base = objectHash(baseText);
  const nextText = treeObjectOf(entries(41));
  const next = objectHash(nextText);
  const delta = { base, set: [JSON.stringify(["f40", "file", 420, "a".repeat(64)])], remove: [] };
  // The base stored (its depth remembered), then rolled back with its transaction.
  assert.throws(() =>
    sql.transaction(() => {
      storeObject(sql, base, baseText);
      throw new Error("rolled back");
    }), /rolled back/);
  // A delta against it now would name a missing base: the tree is stored in full.
  assert.equal(sql.transaction(() => storeObject(sql, next, nextText, delta)), false);
  assert.deepEqual(row(sql, next), { base: null, depth: 0 });
  assert.equal(readObjectText(sql, next, "d"), nextText);
  // Stored and kept, the base is used (its depth remembered from the insert).
  const nextAgainText = treeObjectOf(entries(41).replace('"f40","file",420', '"f40","file",493'));
  const nextAgain = objectHash(nextAgainText);
  sql.transaction(() => storeObject(sql, base, baseText));
  const changed = { ...delta, set: [JSON.stringify(["f40", "file", 493, "a".repeat(64)])] };
  assert.equal(sql.transaction(() => storeObject(sql, nextAgain, nextAgainText, changed)), true);
  assert.deepEqual(row(sql, nextAgain), { base, depth: 1 });
  assert.equal(readObjectText(sql, nextAgain, "d"), nextAgainText);
});
