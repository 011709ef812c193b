/**
 * How long a path may be, in both modes: Linux's `PATH_MAX` (4096 bytes) and
 * `NAME_MAX` (255 bytes), counted in UTF-8. A document and a shell block are
 * held to the same bounds on the host and in a Workspace, so a path that works
 * under `xmd run` also works in a workflow run, and no path can make a tree so
 * deep that walking it is a risk.
 *
 * @module
 */

/** The most UTF-8 bytes a path may hold. */
export const MAX_PATH_BYTES = 4096;

/** The most UTF-8 bytes one name (a path segment) may hold. */
export const MAX_NAME_BYTES = 255;

/**
 * What is too long about `path` (`/`-separated, absolute or relative), or
 * `undefined` when it is within both bounds. The reason names the bound,
 * never the path, which may be long.
 *
 * @example Checking a path
 * ```ts
 * import assert from "node:assert/strict";
 * import { pathLengthProblem } from "@xmd/core/protocol";
 * assert.equal(pathLengthProblem("notes/a.txt"), undefined);
 * assert.equal(pathLengthProblem("x".repeat(256)), "a name in it is longer than 255 bytes");
 * ```
 */
export function pathLengthProblem(path: string): string | undefined {
  if (utf8Length(path) > MAX_PATH_BYTES) return `it is longer than ${MAX_PATH_BYTES} bytes`;
  for (const name of path.split("/")) {
    if (utf8Length(name) > MAX_NAME_BYTES) {
      return `a name in it is longer than ${MAX_NAME_BYTES} bytes`;
    }
  }
  return undefined;
}

/** The number of bytes `text` takes in UTF-8 (a lone surrogate as U+FFFD, as `TextEncoder` does). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
