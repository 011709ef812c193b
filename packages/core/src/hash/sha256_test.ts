import assert from "node:assert/strict";
import { sha256Hex } from "./sha256.ts";

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
