/**
 * The providers `xmd run` uses: the caller's filesystem, `bash` and terminal.
 * They are Deno-specific and reached only through the runtime entrypoint, so
 * the engine itself stays runtime-neutral.
 *
 * Invariant: every path these providers accept is relative to the root they
 * were given (the caller's working directory) and stays inside it.
 *
 * @example Assembling the providers for `xmd run`
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Providers } from "@xmd/core";
 * import { HostFileSystem, HostShell, TerminalElicit } from "./host-providers.ts";
 * const root = Deno.cwd();
 * const providers: Providers = {
 *   fs: new HostFileSystem(root),
 *   shell: new HostShell(root),
 *   elicit: new TerminalElicit({
 *     answers: new Map(),
 *     interactive: Deno.stdin.isTerminal(),
 *     stderr: (text) => Deno.stderr.writeSync(new TextEncoder().encode(text)),
 *   }),
 * };
 * assert.ok(providers.fs instanceof HostFileSystem);
 * ```
 *
 * @module
 */
export { HostFileSystem } from "./host-file-system.ts";
export { HostShell, UnsupportedLanguageError } from "./host-shell.ts";
export {
  ElicitAnswerError,
  TerminalElicit,
  type TerminalElicitOptions,
} from "./terminal-elicit.ts";
export { TerminalLine } from "./terminal-line.ts";
