import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";

/** A connection whose COMMIT fails and leaves the transaction open: a deferred foreign key. */
function deferredKeySeam(): { db: DatabaseSync; seam: NodeSqliteSeam } {
  const db = new DatabaseSync(":memory:");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("CREATE TABLE parent (id INTEGER PRIMARY KEY)");
  db.exec(
    "CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER " +
      "REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)",
  );
  return { db, seam: new NodeSqliteSeam(db) };
}

Deno.test("a held transaction whose COMMIT fails is over: nothing it wrote is kept and the next one begins", () => {
  const { db, seam } = deferredKeySeam();
  using _ = seam;
  const held = seam.hold();
  seam.exec("INSERT INTO child (id, parent) VALUES (1, 42)");
  assert.throws(() => held.commit(), /FOREIGN KEY/);
  // What a caller does after a failed commit (commitHeld): roll back, then carry on.
  held.rollback();
  assert.equal(db.isTransaction, false);
  assert.deepEqual(seam.exec("SELECT count(*) AS n FROM child"), [{ n: 0 }]);
  seam.transaction(() => seam.exec("INSERT INTO parent (id) VALUES (7)"));
  assert.deepEqual(seam.exec("SELECT id FROM parent"), [{ id: 7 }]);
  assert.equal(seam.rollbacks, 1);
});

Deno.test("an outermost transaction whose COMMIT fails rolls back and leaves the connection usable", () => {
  const { db, seam } = deferredKeySeam();
  using _ = seam;
  assert.throws(
    () => seam.transaction(() => seam.exec("INSERT INTO child (id, parent) VALUES (1, 42)")),
    /FOREIGN KEY/,
  );
  assert.equal(db.isTransaction, false);
  assert.deepEqual(seam.exec("SELECT count(*) AS n FROM child"), [{ n: 0 }]);
  const held = seam.hold();
  seam.exec("INSERT INTO parent (id) VALUES (1)");
  held.commit();
  assert.deepEqual(seam.exec("SELECT id FROM parent"), [{ id: 1 }]);
});
