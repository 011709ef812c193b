/**
 * Glob matching for `<Glob>`: patterns compile once to a predicate over
 * normalized POSIX relative paths, independent of any runtime, so the host
 * filesystem and a virtual one list the same files for the same pattern.
 *
 * @example Listing matches
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileGlob } from "./mod.ts";
 * const isMarkdown = compileGlob("**\/*.md");
 * assert.deepEqual(["a.md", "b/c.md", "d.txt"].filter(isMarkdown), ["a.md", "b/c.md"]);
 * ```
 *
 * @module
 */
export { compileGlob, GlobPatternError } from "./glob-pattern.ts";
