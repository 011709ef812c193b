/**
 * The local provider's SHA-256: `node:crypto`'s native one, synchronous as the
 * Workspace needs (it hashes inside SQL transactions), about ten times faster
 * than the portable `sha256Hex` and equal to it on every input.
 *
 * @module
 */
import { createHash } from "node:crypto";

/** SHA-256 of `data` (a string as its UTF-8 bytes) as lowercase hex, by `node:crypto`. */
export function nativeSha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
