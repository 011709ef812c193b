import assert from "node:assert/strict";
import { OVERLAP, PIECE, pieces } from "./pieces.ts";
import { createSecretGate, SecretDetectedError } from "./mod.ts";

// Built by concatenation so this repository's own files do not trip secret scanners.
const GITHUB_TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A";
const gate = createSecretGate();

Deno.test("JRN-22: pieces are at most PIECE long, overlap by OVERLAP and cover the text", () => {
  assert.deepEqual([...pieces("short")], [{ offset: 0, text: "short" }]);
  assert.deepEqual([...pieces("")], [{ offset: 0, text: "" }]);
  for (const length of [PIECE, PIECE + 1, 2 * PIECE - OVERLAP, 3 * PIECE + 17]) {
    const text = "x".repeat(length);
    const all = [...pieces(text)];
    assert.equal(all[0].offset, 0);
    for (const [i, piece] of all.entries()) {
      assert.ok(piece.text.length <= PIECE);
      assert.equal(piece.text, text.slice(piece.offset, piece.offset + piece.text.length));
      if (i > 0) {
        const before = all[i - 1];
        assert.equal(before.offset + before.text.length - piece.offset, OVERLAP, `overlap ${i}`);
      }
    }
    const last = all.at(-1)!;
    assert.equal(last.offset + last.text.length, length, `${length} is covered to its end`);
  }
});

Deno.test("JRN-22: 24 MB of a build log in one JSON string is scanned without failing", async () => {
  const log = "[0000001] compiling module 42 of the build: ok\n".repeat(500_000);
  const event = JSON.stringify({ type: "yield", result: { status: "ok", value: { stdout: log } } });
  assert.ok(event.length > 24_000_000);
  await gate.check(event, 'journal event "exec doc.md:1:1"');
});

Deno.test("JRN-22: a secret across any piece boundary of a long text is found where it is", async () => {
  const filler = JSON.stringify({ stdout: "build line that is fine\n".repeat(120_000) });
  const step = PIECE - OVERLAP;
  // Across the end of the first and second pieces, at the start of the second, and inside the overlap.
  for (
    const at of [PIECE - 20, PIECE - 1, step + PIECE - 20, step - 20, PIECE - OVERLAP / 2]
  ) {
    const text = filler.slice(0, at - 1) + " " + GITHUB_TOKEN + " " + filler.slice(at + 41);
    let offset: number | undefined;
    const error = await gate.check(text, (found) => {
      offset = found;
      return "journal event";
    }).then(() => assert.fail(`missed a token at ${at}`), (error: unknown) => error);
    assert.ok(error instanceof SecretDetectedError);
    assert.equal(error.ruleId, "github-token");
    assert.equal(offset, at, `the token at ${at}`);
  }
});
