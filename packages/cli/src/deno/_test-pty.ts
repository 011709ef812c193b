/**
 * Test support: runs the real `xmd` executable on a pseudo-terminal, as a
 * person at a terminal meets it, to read its prompts and type answers.
 *
 * The terminal comes from `script(1)`, which every machine the project runs
 * on already has: util-linux's on Linux (package `bsdutils`, essential on
 * Debian and Ubuntu, so on GitHub's runners too) and the base system's on
 * macOS. No addon, no other language. Without it the test fails, saying so,
 * rather than skipping. Both versions forward their stdin to the terminal
 * and copy everything on the terminal to their stdout; the exit code is
 * taken from a file the shell writes, since the two versions report it
 * differently.
 *
 * @module
 */
import { join } from "node:path";
import { xmdCommandLine, xmdEnvironment } from "./_run-xmd.ts";
import { testFolderSync } from "../../../core/src/deno/_test-temp-folder.ts";

/** How long a test may wait for the terminal before it fails instead of hanging. */
const DEADLINE_MS = 120_000;

/** `word` quoted for a POSIX shell. */
function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `xmd` running on a terminal. */
export class XmdTerminal {
  readonly #child: Deno.ChildProcess;
  readonly #rcFile: string;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #exited: Promise<void>;
  #screen = "";
  #closed = false;
  #changed: () => void = () => {};

  private constructor(child: Deno.ChildProcess, rcFile: string) {
    this.#child = child;
    this.#rcFile = rcFile;
    this.#writer = child.stdin.getWriter();
    const decoder = new TextDecoder();
    this.#exited = (async () => {
      for await (const chunk of child.stdout) {
        this.#screen += decoder.decode(chunk, { stream: true });
        this.#changed();
      }
      this.#closed = true;
      this.#changed();
    })();
  }

  /**
   * Starts `xmd <args>` in `cwd` on a new terminal; with `stdout`, its stdout
   * goes to that file instead (stderr stays on the terminal).
   */
  static start(
    args: readonly string[],
    options: { cwd: string; env?: Record<string, string>; stdout?: string },
  ): XmdTerminal {
    const rcFile = join(testFolderSync("xmd-pty-"), "rc");
    // The shell runs xmd, then records its exit code.
    const inner = [
      "sh",
      "-c",
      options.stdout === undefined
        ? 'rc=$1; shift 2; "$@"; echo $? > "$rc"'
        : 'rc=$1; out=$2; shift 2; "$@" > "$out"; echo $? > "$rc"',
      "sh",
      rcFile,
      options.stdout ?? "",
      ...xmdCommandLine(args),
    ];
    const scriptArgs = Deno.build.os === "linux"
      ? ["-q", "-f", "-c", inner.map(shellQuote).join(" "), "/dev/null"]
      : ["-q", "/dev/null", ...inner];
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command("script", {
        args: scriptArgs,
        cwd: options.cwd,
        clearEnv: true,
        env: xmdEnvironment({ TERM: "dumb", ...options.env }),
        stdin: "piped",
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw new Error(
        "This test needs script(1) to give xmd a terminal: install util-linux (Debian and " +
          "Ubuntu: bsdutils), or run it on macOS, where it is part of the system",
      );
    }
    return new XmdTerminal(child, rcFile);
  }

  /** Everything the terminal showed so far, with `\r\n` as `\n`. */
  get screen(): string {
    return this.#screen.replaceAll("\r\n", "\n");
  }

  /**
   * Waits until the screen, after `from` characters, contains `text`; returns
   * where it ends. Fails with the screen if xmd exits first or never shows it.
   */
  async waitFor(text: string, from = 0): Promise<number> {
    const deadline = Date.now() + DEADLINE_MS;
    for (;;) {
      const at = this.screen.indexOf(text, from);
      if (at >= 0) return at + text.length;
      if (this.#closed || Date.now() > deadline) {
        this.#child.kill("SIGKILL");
        throw new Error(
          `The terminal never showed ${JSON.stringify(text)}. It shows:\n${this.screen}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1_000);
        this.#changed = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Types `line` and Enter. */
  async type(line: string): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(`${line}\n`));
  }

  /** Waits for xmd to exit; returns its exit code and the whole screen. */
  async exit(): Promise<{ code: number; screen: string }> {
    const deadline = setTimeout(() => this.#child.kill("SIGKILL"), DEADLINE_MS);
    try {
      await this.#exited;
      await this.#child.status;
    } finally {
      clearTimeout(deadline);
      await this.#writer.close().catch(() => {});
    }
    const rc = await Deno.readTextFile(this.#rcFile).catch(() => undefined);
    if (rc === undefined) {
      throw new Error(`xmd did not exit on its own. The terminal shows:\n${this.screen}`);
    }
    return { code: Number(rc.trim()), screen: this.screen };
  }
}
