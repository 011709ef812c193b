import assert from "node:assert/strict";
import { Sha256Hasher, sha256Hex } from "./sha256.ts";

async function webCrypto(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

Deno.test("sha256 matches the FIPS 180-4 test vectors", () => {
  assert.equal(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(
    sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(
    sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

Deno.test("sha256 agrees with Web Crypto at every length around block boundaries", async () => {
  for (let length = 0; length < 200; length++) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 0xff);
    assert.equal(sha256Hex(bytes), await webCrypto(bytes), `length ${length}`);
  }
  const large = Uint8Array.from({ length: 1 << 20 }, (_, i) => (i * 7) & 0xff);
  assert.equal(sha256Hex(large), await webCrypto(large));
});

Deno.test("a hasher fed in parts gives the one-shot digest at every split and from every copy", () => {
  const text =
    Array.from({ length: 300 }, (_, i) => String.fromCharCode(0x61 + (i % 26))).join("") +
    "é€😀".repeat(20);
  const bytes = new TextEncoder().encode(text);
  const whole = sha256Hex(bytes);
  for (let split = 0; split <= bytes.length; split++) {
    const first = new Sha256Hasher().update(bytes.subarray(0, split));
    const copy = first.copy();
    assert.equal(first.update(bytes.subarray(split)).hex(), whole, `split ${split}`);
    assert.equal(copy.update(bytes.subarray(split)).hex(), whole, `copy at ${split}`);
  }
  // Strings split between code points, in three parts of every size up to 70.
  for (let a = 0; a < 70; a++) {
    for (let b = a; b < a + 70; b++) {
      const parts = [text.slice(0, a), text.slice(a, b), text.slice(b)];
      const hasher = new Sha256Hasher();
      for (const part of parts) hasher.update(part);
      assert.equal(hasher.hex(), sha256Hex(text), `parts at ${a}, ${b}`);
    }
  }
});

Deno.test("a hasher's digest leaves it as it was, and copies are independent", () => {
  const hasher = new Sha256Hasher().update("abc");
  const copy = hasher.copy();
  assert.equal(hasher.hex(), sha256Hex("abc"));
  assert.equal(hasher.hex(), sha256Hex("abc"));
  hasher.update("def");
  assert.equal(copy.hex(), sha256Hex("abc"));
  assert.equal(hasher.hex(), sha256Hex("abcdef"));
  assert.equal(new Sha256Hasher().hex(), sha256Hex(""));
});
