/**
 * `umask` in Worker Shell (WS-163), which just-bash lacks (`umask 077` was
 * "command not found", status 127, and ended a `set -e` script). It prints
 * the mask (`0022`; `-S` as `u=rwx,g=rx,o=rx`; `-p` as `umask 0022`) and sets
 * it from an octal number or a symbolic mode of the permissions it leaves
 * (`u=rwx,g=rx,o=`, `g-w`), with bash's refusals. The mask is the block's:
 * it starts at 022 each block, and the interpreter's filesystem gives a file
 * or folder the Workspace creates `0666` or `0777` less it (a redirection's
 * file, `touch`, `mkdir`, `mkdir -p`'s folders on the way); a file that
 * exists keeps its mode.
 *
 * Invariant: under the mask of 022 nothing is sent that was not before (the
 * Workspace's own 644 and 755 are those modes).
 *
 * Known difference: the mask is the process's, not the shell's, so one set
 * in a subshell or `$( )` still holds after it.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult } from "npm:just-bash@3.4.2";
import { applyMode, UMASK } from "./worker-shell-mode.ts";

let mask = UMASK;

/** The block's mask. */
export function currentUmask(): number {
  return mask;
}

/** A new block's mask: 022. */
export function resetUmask(): void {
  mask = UMASK;
}

/** The mode for a file or folder created now, or undefined when it is the Workspace's own. */
export function creationMode(kind: "file" | "dir"): number | undefined {
  if (mask === UMASK) return undefined;
  return (kind === "file" ? 0o666 : 0o777) & ~mask;
}

function octal(value: number): string {
  return `0${value.toString(8).padStart(3, "0")}`;
}

function symbolic(value: number): string {
  const allowed = ~value & 0o777;
  const of = (shift: number) => {
    const bits = (allowed >> shift) & 0o7;
    return `${bits & 4 ? "r" : ""}${bits & 2 ? "w" : ""}${bits & 1 ? "x" : ""}`;
  };
  return `u=${of(6)},g=${of(3)},o=${of(0)}`;
}

function refused(message: string): ExecResult {
  return { stdout: "", stderr: `bash: umask: ${message}\n`, exitCode: 1 };
}

/** The mask `spec` asks for, or bash's refusal. */
function read(spec: string): number | ExecResult {
  if (/^[0-9]+$/.test(spec)) {
    if (!/^[0-7]+$/.test(spec) || parseInt(spec, 8) > 0o777) {
      return refused(`${spec}: octal number out of range`);
    }
    return parseInt(spec, 8);
  }
  const operator = /^[ugoa]*([^ugoa])/.exec(spec)?.[1];
  if (operator === undefined || !"+-=".includes(operator)) {
    return refused(`\`${operator ?? spec}': invalid symbolic mode operator`);
  }
  const wrong = /[-+=]([rwx]*)([^rwx,])/.exec(spec);
  if (wrong && !/^[-+=ugoa]/.test(wrong[2])) {
    return refused(`\`${wrong[2]}': invalid symbolic mode character`);
  }
  // A symbolic mode names the permissions the mask leaves: applied to them, from no umask.
  const allowed = applyMode(spec, ~mask & 0o777, true, 0);
  if (allowed === undefined) return refused(`\`${spec}': invalid symbolic mode operator`);
  return ~allowed & 0o777;
}

/** Worker Shell's `umask` (see the module's documentation). */
export const umaskCommand: Command = {
  name: "umask",
  execute(args: string[]): Promise<ExecResult> {
    let symbolicOut = false;
    let reusable = false;
    let index = 0;
    for (; index < args.length && /^-[Sp]+$/.test(args[index]); index++) {
      if (args[index].includes("S")) symbolicOut = true;
      if (args[index].includes("p")) reusable = true;
    }
    const spec = args[index];
    if (spec === undefined) {
      const shown = symbolicOut ? symbolic(mask) : octal(mask);
      const stdout = reusable ? `umask ${symbolicOut ? "-S " : ""}${shown}\n` : `${shown}\n`;
      return Promise.resolve({ stdout, stderr: "", exitCode: 0 });
    }
    const next = read(spec);
    if (typeof next !== "number") return Promise.resolve(next);
    mask = next;
    return Promise.resolve({ stdout: "", stderr: "", exitCode: 0 });
  },
};
