/**
 * `@xmd/cli`: the `xmd` command. Run it with `deno run -A jsr:@xmd/cli/main`
 * or, from a checkout, `deno task xmd`.
 *
 * @example Running the CLI in-process
 * ```ts ignore
 * import { main, processIo } from "@xmd/cli";
 * const code = await main(["run", "doc.md"], processIo(new AbortController().signal));
 * ```
 *
 * @module
 */
export { main, USAGE } from "./src/deno/cli.ts";
export { type CommandIo, processIo } from "./src/deno/command-io.ts";
export { UsageError } from "./src/deno/usage-error.ts";
