/**
 * Test support: runs the real `xmd` executable as a subprocess, in a folder
 * of the test's choosing, with a clean environment.
 *
 * @module
 */
import { fileURLToPath } from "node:url";

/** What the subprocess did. */
export interface XmdResult {
  /** Exit code. */
  code: number;
  /** Everything on stdout. */
  stdout: string;
  /** Everything on stderr. */
  stderr: string;
}

const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));

/**
 * Deno's cache folder as this process uses it. Packages resolve from it (there
 * is no node_modules folder), so a test that sets another HOME must still
 * point the subprocess at it.
 */
export const DENO_DIR: string = Deno.env.get("DENO_DIR") ??
  JSON.parse(
    new TextDecoder().decode(
      new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).outputSync().stdout,
    ),
  ).denoDir;
const CONFIG = fileURLToPath(new URL("../../../../deno.json", import.meta.url));

/** Spawns `xmd <args>` in `cwd` and waits for it. */
export async function runXmd(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<XmdResult> {
  const child = spawnXmd(args, options);
  const output = await child.output();
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

/** The command line that runs `xmd <args>`: Deno, then its arguments. */
export function xmdCommandLine(args: readonly string[]): string[] {
  return [Deno.execPath(), "run", "--allow-all", "--quiet", `--config=${CONFIG}`, MAIN, ...args];
}

/** The clean environment `xmd` runs with, plus `env`. */
export function xmdEnvironment(env: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/tmp",
    DENO_DIR,
    NO_COLOR: "1",
    ...env,
  };
}

/** Starts `xmd <args>` with piped output, for tests that signal it. */
export function spawnXmd(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): Deno.ChildProcess {
  const [command, ...rest] = xmdCommandLine(args);
  return new Deno.Command(command, {
    args: rest,
    cwd: options.cwd,
    clearEnv: true,
    env: xmdEnvironment(options.env),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}
