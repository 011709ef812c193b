/**
 * The local provider's SHA-256: `node:crypto`'s native one, synchronous as the
 * Workspace needs (it hashes inside SQL transactions), about ten times faster
 * than the portable `sha256Hex` and equal to it on every input; its states
 * copy natively (`Hash.copy`), so publication resumes a changed tree's hash.
 *
 * @module
 */
import { createHash, type Hash } from "node:crypto";
import type { Sha256, Sha256State } from "../workspace/root-format.ts";

/** SHA-256 of `data` (a string as its UTF-8 bytes) as lowercase hex, by `node:crypto`. */
export const nativeSha256Hex: Sha256 = Object.assign(
  (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex"),
  { begin: (): Sha256State => new NativeSha256State(createHash("sha256")) },
);

class NativeSha256State implements Sha256State {
  readonly #hash: Hash;

  constructor(hash: Hash) {
    this.#hash = hash;
  }

  update(text: string): void {
    this.#hash.update(text);
  }

  copy(): Sha256State {
    return new NativeSha256State(this.#hash.copy());
  }

  hex(): string {
    return this.#hash.digest("hex");
  }
}
