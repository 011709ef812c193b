/**
 * The local host's SHA-256 (MDX-134): the same digests as the portable one,
 * and `node:crypto` loaded only once the portable one has hashed its budget.
 */
import assert from "node:assert/strict";
import { sha256Hex } from "@xmd/core/protocol";
import { nativeHashLoaded, nativeSha256Hex, PORTABLE_BUDGET } from "./native-sha256.ts";

/** Runs `code` in a fresh Deno (a process that has loaded nothing else) and returns its stdout. */
async function fresh(code: string): Promise<string> {
  const module = new URL("./native-sha256.ts", import.meta.url).href;
  const { success, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", `import * as hash from ${JSON.stringify(module)};\n${code}`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  assert.ok(success, decoder.decode(stderr));
  return decoder.decode(stdout).trim();
}

Deno.test("MDX-134: small texts are hashed without loading node:crypto; past the budget it is loaded", async () => {
  const shown = await fresh(`
    const out = [];
    hash.nativeSha256Hex("a document");
    hash.nativeSha256Hex(new Uint8Array(1000));
    out.push(hash.nativeHashLoaded());
    const part = "x".repeat(1024);
    const parts = Math.floor((hash.PORTABLE_BUDGET - 1010) / 1024);
    for (let i = 0; i < parts; i++) hash.nativeSha256Hex(part);
    out.push(hash.nativeHashLoaded());
    hash.nativeSha256Hex(part);
    out.push(hash.nativeHashLoaded());
    console.log(out.join(" "));
  `);
  // 1,010 units and as many KiB as fit are within the budget; one KiB more is not.
  assert.equal(shown, "false false true");
});

Deno.test("MDX-134: a text larger than what is left of the budget loads node:crypto at once", async () => {
  const shown = await fresh(`
    hash.nativeSha256Hex("x".repeat(hash.PORTABLE_BUDGET + 1));
    console.log(hash.nativeHashLoaded());
  `);
  assert.equal(shown, "true");
});

Deno.test("MDX-134: a hash in parts (a tree's publication) loads node:crypto", async () => {
  const shown = await fresh(`
    const state = hash.nativeSha256Hex.begin();
    state.update("tree");
    console.log(hash.nativeHashLoaded(), state.hex());
  `);
  assert.equal(shown, `true ${sha256Hex("tree")}`);
});

Deno.test("MDX-134: every digest equals the portable one's, before and after node:crypto is loaded", () => {
  const texts = ["", "a", "é ✓ 𝄞", "x".repeat(63), "x".repeat(64), "y".repeat(1000)];
  const bytes = [new Uint8Array(0), new Uint8Array([0, 255, 128]), new Uint8Array(4097).fill(7)];
  const check = () => {
    for (const text of texts) assert.equal(nativeSha256Hex(text), sha256Hex(text));
    for (const data of bytes) assert.equal(nativeSha256Hex(data), sha256Hex(data));
  };
  check();
  nativeSha256Hex("z".repeat(PORTABLE_BUDGET + 1));
  assert.equal(nativeHashLoaded(), true);
  check();
  const state = nativeSha256Hex.begin!();
  state.update("part one, ");
  const copy = state.copy();
  state.update("part two");
  copy.update("another");
  assert.equal(state.hex(), sha256Hex("part one, part two"));
  assert.equal(copy.hex(), sha256Hex("part one, another"));
});
