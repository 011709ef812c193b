import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { nativeSha256Hex } from "../deno/native-sha256.ts";
import { NodeSqliteSeam } from "../deno/node-sqlite-seam.ts";
import { liveRootOf } from "./live-root.ts";
import { materializeRoot } from "./materialize-root.ts";
import { publishRoot } from "./publish-root.ts";
import { fileObject, objectHash, treeObject } from "./root-format.ts";
import { ROOT_INO, Workspace } from "./workspace.ts";

const DEPTH = 20_000;

Deno.test("WS-52: a root 20,000 directories deep materializes (no recursion over depth)", () => {
  using sql = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  sql.transaction(() => Workspace.initialize(sql));
  const bytes = new TextEncoder().encode("at the bottom\n");
  const chunk = nativeSha256Hex(bytes);
  const file = fileObject(bytes.length, [chunk]);
  // Built bottom-up as objects only, as a runner receives them: no live table holds them yet.
  let tree = treeObject([{ name: "f", kind: "file", mode: 0o640, ref: objectHash(file) }]);
  const bottom = objectHash(tree);
  sql.transaction(() => {
    sql.exec("INSERT INTO ws_chunk (hash, data) VALUES (?, ?)", chunk, bytes);
    sql.exec("INSERT INTO ws_object (hash, body) VALUES (?, ?)", objectHash(file), file);
    sql.exec("INSERT INTO ws_object (hash, body) VALUES (?, ?)", bottom, tree);
    for (let level = 0; level < DEPTH; level++) {
      tree = treeObject([{ name: "d", kind: "dir", mode: 0o755, ref: objectHash(tree) }]);
      sql.exec(
        "INSERT OR IGNORE INTO ws_object (hash, body) VALUES (?, ?)",
        objectHash(tree),
        tree,
      );
    }
  });
  const root = objectHash(tree);

  materializeRoot(sql, root, [], "the deep run", nativeSha256Hex);

  const count = (where: string) =>
    Number(sql.exec(`SELECT count(*) AS n FROM ws_inode WHERE ${where}`)[0].n);
  assert.equal(count("kind = 'dir'"), DEPTH + 1);
  assert.equal(count("kind = 'dir' AND nlink = 3"), DEPTH);
  assert.equal(count("hash IS NULL"), 0);
  // Climb from the file to the root: one chain of DEPTH names, each directory's cached hash
  // its tree's, so the file's path is /d/d/…/d/f.
  const leaf = sql.exec("SELECT parent, ino FROM ws_dirent WHERE name = 'f'")[0];
  const inode = sql.exec("SELECT mode, size, chunks FROM ws_inode WHERE ino = ?", leaf.ino)[0];
  assert.deepEqual({ ...inode }, { mode: 0o640, size: bytes.length, chunks: `["${chunk}"]` });
  assert.equal(sql.exec("SELECT hash FROM ws_inode WHERE ino = ?", leaf.parent)[0].hash, bottom);
  let dir = Number(leaf.parent);
  let steps = 0;
  while (dir !== ROOT_INO) {
    const up = sql.exec("SELECT parent, name FROM ws_dirent WHERE ino = ?", dir);
    assert.deepEqual(up.map((row) => row.name), ["d"]);
    dir = Number(up[0].parent);
    steps++;
  }
  assert.equal(steps, DEPTH);
  assert.equal(sql.exec("SELECT hash FROM ws_inode WHERE ino = ?", ROOT_INO)[0].hash, root);
  assert.equal(liveRootOf(sql, "the deep run", nativeSha256Hex), root);
  assert.equal(sql.transaction(() => publishRoot(sql, nativeSha256Hex)), root);
});
