import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { createSecretGate, SecretDetectedError, type SecretGate } from "@xmd/core";
import { NodeSqliteSeam } from "../deno/node-sqlite-seam.ts";
import { gateWrites, OVERLAP } from "./gate-writes.ts";
import { CHUNK_SIZE } from "../workspace/workspace-tables.ts";
import { startNoting, takeWrites } from "../workspace/workspace-writes.ts";
import { Workspace } from "../workspace/workspace.ts";

// Fake secrets are built by concatenation so this repository's own files do not trip secret scanners.
const SECRETS: Record<string, string> = {
  "aws-access-key-id": "aws_access_key_id = " + "AKIA" + "QYLPMN5HHHFPZAM2",
  "github-token": "push with " + "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A",
  "slack-token": "xoxb-" + "1234567890123-1234567890123-" + "aBcDeFgHiJkLmNoPqRsTuVwX",
  "private-key": "-----BEGIN RSA " + "PRIVATE KEY-----\n" + "MIIEow" + "IBAAKCAQEA".repeat(8) +
    "\n" + "q7Zx9YbW3vT1sR5uP0oN".repeat(4) + "\n-----END RSA " + "PRIVATE KEY-----",
  "bearer-token": "Authorization: Bearer " + "eyJhbGciOiJIUzI1NiJ9" +
    ".eyJzdWIiOiIxMjM0In0.Qm9ndXNTaWduYXR1cmU",
  "credential-field": "DB_PASSWORD=" + "s3cr3t-" + "Value-42",
};
const EFFECT = "exec doc.md:3:1";
const encoder = new TextEncoder();

/** A Workspace whose writes are noted, as inside a held effect transaction. */
function noted(): Workspace {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  seam.transaction(() => Workspace.initialize(seam));
  startNoting(seam);
  return new Workspace(seam);
}

/** The gate, counting its scans and the characters scanned. */
function counting(): SecretGate & { scans: number; chars: number } {
  const inner = createSecretGate();
  const gate = {
    scans: 0,
    chars: 0,
    check: (text: string, where: Parameters<SecretGate["check"]>[1]) => {
      gate.scans++;
      gate.chars += text.length;
      return inner.check(text, where);
    },
  };
  return gate;
}

async function refusal(ws: Workspace, gate: SecretGate = createSecretGate()) {
  const error = await gateWrites(ws.sql, takeWrites(ws.sql)!, gate, EFFECT).then(
    () => assert.fail("expected a refusal"),
    (error: unknown) => error,
  );
  assert.ok(error instanceof SecretDetectedError, String(error));
  return error;
}

Deno.test("WS-60: among 2,000 small files, each kind of secret is found and the one file holding it named", async () => {
  for (const [rule, secret] of Object.entries(SECRETS)) {
    const ws = noted();
    for (let i = 0; i < 2_000; i++) {
      ws.writeFile(`/f${i}.txt`, encoder.encode(i === 1_234 ? `${secret}\n` : `line ${i}\n`));
    }
    const gate = counting();
    const error = await refusal(ws, gate);
    assert.equal(error.ruleId, rule);
    assert.equal(error.where, `the Workspace file "/f1234.txt" written by "${EFFECT}"`);
    assert.ok(!error.message.includes(secret.slice(-12)), error.message);
    // Batched: far fewer scans than one per name and one per file.
    assert.ok(gate.scans < 2_200, `${gate.scans} scans`);
  }
});

Deno.test("WS-60: a name and a symlink target holding a secret are refused without being echoed", async () => {
  const token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A";
  const named = noted();
  named.mkdir("/logs");
  named.writeFile(`/logs/${token}.txt`, encoder.encode("ok\n"));
  const name = await refusal(named);
  assert.equal(name.where, `a name created in the Workspace by "${EFFECT}"`);
  assert.ok(!name.message.includes(token), name.message);

  const linked = noted();
  linked.symlink(`/secrets/${token}`, "/current");
  const target = await refusal(linked);
  assert.equal(target.where, `a symlink target stored in the Workspace by "${EFFECT}"`);
  assert.ok(!target.message.includes(token), target.message);

  // A secret in a directory name is not echoed as part of a file's path either.
  const nested = noted();
  nested.mkdir(`/${token}`);
  nested.writeFile(`/${token}/notes.txt`, encoder.encode(`${SECRETS["credential-field"]}\n`));
  const path = await refusal(nested);
  assert.ok(!path.message.includes(token), path.message);
});

Deno.test("WS-60: a secret across a 1 MiB chunk boundary is found; a match across two files refuses nothing", async () => {
  const token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A";
  for (const start of [CHUNK_SIZE - 20, CHUNK_SIZE - token.length, CHUNK_SIZE - 1, CHUNK_SIZE]) {
    const ws = noted();
    const bytes = new Uint8Array(start + token.length + 1).fill(0x61);
    bytes[start - 1] = 0x20;
    bytes.set(encoder.encode(`${token}\n`), start);
    ws.writeFile("/big.log", bytes);
    assert.equal((await refusal(ws)).ruleId, "github-token", `a token at ${start}`);
  }
  // Two files that only together read as a credential field: each alone holds none.
  const ws = noted();
  ws.writeFile("/a.txt", encoder.encode('config "password":'));
  ws.writeFile("/b.txt", encoder.encode('"s3cr3t-Value-42"'));
  await gateWrites(ws.sql, takeWrites(ws.sql)!, createSecretGate(), EFFECT);
});

Deno.test("WS-60: a chunk already stored is not scanned again; only its new neighbours' edges are", async () => {
  const ws = noted();
  const big = new Uint8Array(3 * CHUNK_SIZE).fill(0x62);
  for (let i = 0; i < 3; i++) big[i * CHUNK_SIZE] = 0x30 + i;
  ws.writeFile("/big", big);
  const first = counting();
  await gateWrites(ws.sql, takeWrites(ws.sql)!, first, EFFECT);
  assert.ok(first.chars >= big.length, `${first.chars} characters scanned`);

  startNoting(ws.sql);
  ws.writeFile("/copy", big);
  const again = counting();
  await gateWrites(ws.sql, takeWrites(ws.sql)!, again, EFFECT);
  // The name, and each of the two boundaries between stored chunks (2 × OVERLAP bytes).
  assert.ok(again.chars <= 2 * 2 * OVERLAP + 64, `${again.chars} characters scanned`);
});

Deno.test("WS-60: what a rolled-back savepoint wrote is not scanned", async () => {
  const ws = noted();
  assert.throws(() =>
    ws.sql.transaction(() => {
      ws.writeFile("/gone.txt", encoder.encode(`${SECRETS["github-token"]}\n`));
      throw new Error("rolled back");
    })
  );
  await gateWrites(ws.sql, takeWrites(ws.sql)!, createSecretGate(), EFFECT);
});

Deno.test("WS-60: a name the effect created and removed or renamed away before its commit is not scanned", async () => {
  const token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A";
  const ws = noted();
  ws.writeFile("/kept.txt", encoder.encode("ok\n"));
  ws.writeFile(`/${token}.txt`, encoder.encode("ok\n"));
  ws.unlink(`/${token}.txt`);
  ws.mkdir(`/${token}`);
  ws.rmdir(`/${token}`);
  ws.writeFile(`/draft-${token}`, encoder.encode("ok\n"));
  ws.rename(`/draft-${token}`, "/final.txt");
  await gateWrites(ws.sql, takeWrites(ws.sql)!, createSecretGate(), EFFECT);

  // The same writes kept to the commit are refused.
  const kept = noted();
  kept.writeFile("/kept.txt", encoder.encode("ok\n"));
  kept.writeFile(`/draft-${token}`, encoder.encode("ok\n"));
  assert.equal((await refusal(kept)).where, `a name created in the Workspace by "${EFFECT}"`);
});

Deno.test("WS-60: a secret in a small file is found whether or not a savepoint rolled back before the commit", async () => {
  for (const rollback of [false, true]) {
    const ws = noted();
    if (rollback) {
      assert.throws(() =>
        ws.sql.transaction(() => {
          ws.writeFile("/gone.txt", encoder.encode("ok\n"));
          throw new Error("rolled back");
        })
      );
    }
    ws.writeFile("/notes.txt", encoder.encode(`${SECRETS["slack-token"]}\n`));
    const error = await refusal(ws);
    assert.equal(error.ruleId, "slack-token");
    assert.equal(error.where, `the Workspace file "/notes.txt" written by "${EFFECT}"`);
  }
});
