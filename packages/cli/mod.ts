/**
 * `@xmd/cli`: the `xmd` command. Run it with `deno run -A jsr:@xmd/cli/main`
 * or, from a checkout, `deno task xmd`.
 *
 * {@linkcode main} runs one command line against a {@linkcode CommandIo} and
 * returns its exit code; {@linkcode processIo} is the real process.
 *
 * @example Running the CLI in-process, capturing what it prints
 * ```ts
 * import assert from "node:assert/strict";
 * import { main, processIo } from "@xmd/cli";
 * let stdout = "";
 * const io = { ...processIo(new AbortController().signal), stdout: (text: string) => stdout += text };
 * const code = await main(["--help"], io);
 * assert.equal(code, 0);
 * assert.match(stdout, /^Usage: xmd /);
 * ```
 *
 * @module
 */
export { main } from "./src/deno/cli.ts";
export { type CommandIo, processIo } from "./src/deno/command-io.ts";
