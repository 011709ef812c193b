/**
 * Where a terminal's cursor is, told from what a command writes to it and
 * what a person types into it, so a prompt can start on a line of its own
 * without leaving a blank line.
 *
 * Invariant: `atLineStart` is `true` exactly when the last thing that reached
 * the terminal (written text, or a typed line's echoed newline) ended a line,
 * or nothing has reached it yet.
 *
 * @module
 */

/**
 * Follows the output of a command that shares one terminal between stdout,
 * stderr and typed input.
 *
 * @example A prompt after text that ends mid-line
 * ```ts
 * import assert from "node:assert/strict";
 * import { TerminalLine } from "./terminal-line.ts";
 * const line = new TerminalLine();
 * let screen = "";
 * const stdout = line.follow((text) => screen += text);
 * stdout("ready.");
 * assert.equal(line.atLineStart, false);
 * stdout("\n");
 * assert.equal(line.atLineStart, true);
 * assert.equal(screen, "ready.\n");
 * ```
 */
export class TerminalLine {
  #atLineStart = true;

  /** Whether the cursor is at the start of a line. */
  get atLineStart(): boolean {
    return this.#atLineStart;
  }

  /** `write`, noting where each text it writes leaves the cursor. */
  follow(write: (text: string) => void): (text: string) => void {
    return (text) => {
      write(text);
      if (text !== "") this.#atLineStart = text.endsWith("\n");
    };
  }

  /** Notes that a person typed a line: the terminal echoed its newline. */
  typed(): void {
    this.#atLineStart = true;
  }
}
