/**
 * `@xmd/core/deno/internal`: what the other xmd packages use of this
 * package's Deno runtime insides. **Unstable**: not part of the public API,
 * no compatibility is promised between versions, and nothing outside this
 * repository should import it.
 *
 * It holds host path functions that return what `node:path`'s POSIX ones
 * return without loading it, for the commands whose start-up is their cost
 * (`xmd --help`, `xmd workflow list` and `status`): importing `node:path`
 * first loads Deno's Node compatibility layer, about 6–8 ms of CPU (MDX-133).
 * It loads nothing else.
 *
 * @example Joining and resolving host paths
 * ```ts
 * import assert from "node:assert/strict";
 * import { basenameOf, dirnameOf, joinPath, resolvePath } from "@xmd/core/deno/internal";
 *
 * assert.equal(joinPath("/home/ada", ".xmd", "runs"), "/home/ada/.xmd/runs");
 * assert.equal(resolvePath("/work/docs", "../notes/./a.md"), "/work/notes/a.md");
 * assert.equal(basenameOf("/runs/abc.sqlite"), "abc.sqlite");
 * assert.equal(dirnameOf("/runs/abc.sqlite"), "/runs");
 * ```
 *
 * @module
 */
export {
  basenameOf,
  dirnameOf,
  isAbsolutePath,
  joinPath,
  resolvePath,
} from "./src/deno/posix-path.ts";
