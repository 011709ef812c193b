/**
 * The local provider's SHA-256: `node:crypto`'s native one, synchronous as the
 * Workspace needs (it hashes inside SQL transactions), about ten times faster
 * than the portable `sha256Hex` and equal to it on every input; its states
 * copy natively (`Hash.copy`), so publication resumes a changed tree's hash.
 *
 * Loading `node:crypto` costs about 9 ms of a process's start (Deno's Node
 * compatibility modules it pulls in), more than the portable hash spends on
 * the few kilobytes a small run hashes (a document, its props, a root). So
 * whole texts are hashed by the portable one until `PORTABLE_BUDGET` bytes
 * have been, or one text is larger than what is left of it; from then
 * on, and for every state (`begin`: publication of a changed tree, whose
 * states are copied on and on), by `node:crypto`, loaded then. The digests are
 * the same either way.
 *
 * @module
 */
import type { createHash as CreateHash, Hash } from "node:crypto";
import { sha256Hex } from "@xmd/core/protocol";
import type { Sha256, Sha256State } from "../workspace/root-format.ts";

/**
 * What the portable SHA-256 hashes before `node:crypto` is loaded (a string's
 * UTF-16 units, bytes' bytes). A process's first calls run it before V8 has
 * optimized it, at about 30 MB/s (a 222 KB document took 7.5 ms, against
 * 0.5 ms natively once loaded): 32 KiB costs it about 3 ms at most.
 */
export const PORTABLE_BUDGET = 32 * 1024;

let portableLeft = PORTABLE_BUDGET;
let createHash: typeof CreateHash | undefined;

/** `node:crypto`'s `createHash`, the module loaded on the first call. */
function nativeCreateHash(): typeof CreateHash {
  if (createHash === undefined) {
    const { process } = globalThis as unknown as {
      process: { getBuiltinModule(id: "node:crypto"): typeof import("node:crypto") };
    };
    createHash = process.getBuiltinModule("node:crypto").createHash;
    portableLeft = 0;
  }
  return createHash;
}

/** Whether this process has loaded `node:crypto` for hashing (for tests). */
export function nativeHashLoaded(): boolean {
  return createHash !== undefined;
}

/** SHA-256 of `data` (a string as its UTF-8 bytes) as lowercase hex. */
export const nativeSha256Hex: Sha256 = Object.assign(
  (data: string | Uint8Array): string => {
    if (data.length <= portableLeft) {
      portableLeft -= data.length;
      return sha256Hex(data);
    }
    return nativeCreateHash()("sha256").update(data).digest("hex");
  },
  { begin: (): Sha256State => new NativeSha256State(nativeCreateHash()("sha256")) },
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
