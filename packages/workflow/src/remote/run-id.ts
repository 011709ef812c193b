/**
 * The id of the remote run of one GitHub issue: lowercase, unpadded base32
 * (RFC 4648 alphabet) of SHA-256 of `"github-issue-v1\0" + host + "\0" +
 * nodeId`.
 *
 * Invariants:
 * - Only the GitHub host and the issue's node id, as GitHub's reread
 *   answered it, go in: no repository name, issue number, title or branch,
 *   so a renamed repository or a re-labelled issue keeps its run, and a
 *   legacy and a new node id of one issue (both reread to the new one) give
 *   one run.
 * - The id always fits the run id grammar (`src/execution/run-id.ts`): 52
 *   characters of `a-z2-7`.
 * - It is computed only by the admission Worker, after the reread; a runner
 *   learns it from the Durable Object, never computes it.
 *
 * @module
 */

/** The version tag hashed in front of every issue identity. */
const DOMAIN = "github-issue-v1";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

/** The run id of issue `nodeId` on GitHub host `host` (e.g. `github.com`). */
export async function issueRunId(host: string, nodeId: string): Promise<string> {
  const text = `${DOMAIN}\0${host}\0${nodeId}`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return base32(new Uint8Array(digest));
}

/** Lowercase RFC 4648 base32 without padding. */
function base32(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}
