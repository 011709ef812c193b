/**
 * Test support: miniflare (real workerd), a test-only dependency. It is kept
 * out of the packages' import maps and out of `deno.lock`, so running a
 * document never installs workerd; `dev.lock` (the tests' and the bench's
 * lock) holds it.
 *
 * Each instance keeps its own scratch folder inside a test folder that the
 * test module removes when it ends: miniflare removes its scratch folder
 * without waiting on `dispose()`, and a test module often ends before that.
 *
 * @module
 */
import os from "node:os";
// deno-lint-ignore no-import-prefix
import { Miniflare as Upstream, type MiniflareOptions } from "npm:miniflare@^4.20260730.0";
import { testFolderSync } from "../../../core/src/deno/_test-temp-folder.ts";

/** miniflare's `Miniflare`, its scratch folder in a test folder. */
export class Miniflare extends Upstream {
  // deno-lint-ignore constructor-super -- super() is called, inside try so os.tmpdir is always restored
  constructor(options: MiniflareOptions) {
    // miniflare asks `os.tmpdir()` for its scratch folder's parent in its
    // constructor. Not TMPDIR: the process's other file operations read that
    // on their own threads, so changing it even briefly moves their folders.
    const scratch = testFolderSync("xmd-miniflare-");
    const tmpdir = os.tmpdir;
    os.tmpdir = () => scratch;
    try {
      super(options);
    } finally {
      os.tmpdir = tmpdir;
    }
  }
}
