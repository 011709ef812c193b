/**
 * `grep -P` with the two Perl forms scripts use to pick a value out of a
 * line (WS-187), which just-bash's `-P` (a linear-time engine, RE2) refused
 * as an invalid regular expression or did not read:
 *
 * - A lookbehind that starts the pattern, `(?<=X)Y` (`grep -oP
 *   '(?<="version": ")[^"]+'`), is given as `X\KY`: `\K`, which just-bash
 *   reads, drops what matched before it from the match, so the line chosen
 *   and the text `-o` prints are GNU's.
 * - Case-insensitive mode at the start, `(?i)`, is given as `-i`.
 *
 * Invariants:
 * - Only a pattern given to `-P` (`-P`, `--perl-regexp`, in a cluster),
 *   as the first operand or by `-e`, is read, and only these forms at its
 *   start; any other `-P` pattern is just-bash's (a lookahead, a negative
 *   lookbehind or one later in the pattern is still refused).
 * - With `-o`, `(?<=a)a` over `aaa` matches from the first `a` on where
 *   GNU's overlapping lookbehind finds two matches; what a line matches is
 *   the same.
 *
 * @module
 */

/** The lookbehind `(?<=X)` at the start of `pattern`, as `[X, rest]`, when X is balanced. */
function leadingLookbehind(pattern: string): [string, string] | undefined {
  if (!pattern.startsWith("(?<=")) return undefined;
  let depth = 1;
  for (let at = 4; at < pattern.length; at++) {
    const char = pattern[at];
    if (char === "\\") at++;
    else if (char === "[") {
      // A bracket expression's parentheses are its own.
      const end = pattern.indexOf("]", pattern[at + 1] === "]" ? at + 2 : at + 1);
      if (end < 0) return undefined;
      at = end;
    } else if (char === "(") depth++;
    else if (char === ")" && --depth === 0) return [pattern.slice(4, at), pattern.slice(at + 1)];
  }
  return undefined;
}

/** `pattern` in the forms just-bash's `-P` reads, and whether it asks for `-i`. */
export function perlPattern(pattern: string): { pattern: string; ignoreCase: boolean } {
  let ignoreCase = false;
  if (pattern.startsWith("(?i)")) {
    ignoreCase = true;
    pattern = pattern.slice(4);
  }
  const behind = leadingLookbehind(pattern);
  if (behind) pattern = `${behind[0]}\\K${behind[1]}`;
  return { pattern, ignoreCase };
}

/** Whether a grep option word asks for `-P`. */
function asksPerl(arg: string): boolean {
  return arg === "--perl-regexp" || (/^-[A-Za-z0-9]+$/.test(arg) && arg.slice(1).includes("P"));
}

/** `args` with a `-P` pattern in the forms just-bash reads (see the module's documentation). */
export function withPerlPattern(
  args: readonly string[],
  valueLetters: ReadonlySet<string>,
): string[] {
  if (!args.some(asksPerl)) return [...args];
  const result = [...args];
  let patternAt: number | undefined;
  let firstOperand: number | undefined;
  let options = true;
  for (let index = 0; index < result.length; index++) {
    const arg = result[index];
    if (!options || arg === "-" || !arg.startsWith("-")) {
      firstOperand ??= index;
      continue;
    }
    if (arg === "--") {
      options = false;
    } else if (arg === "-e" || arg === "--regexp") {
      patternAt ??= index + 1;
      index++;
    } else if (!arg.startsWith("--")) {
      // The value of a cluster's last option is the rest of its word, or the next word.
      const at = [...arg].findIndex((letter, i) => i > 0 && valueLetters.has(letter));
      if (at > 0 && at === arg.length - 1) {
        if (arg[at] === "e") patternAt ??= index + 1;
        index++;
      }
    }
  }
  const at = patternAt ?? firstOperand;
  if (at === undefined || at >= result.length) return result;
  const read = perlPattern(result[at]);
  if (read.pattern === result[at] && !read.ignoreCase) return result;
  result[at] = read.pattern;
  return read.ignoreCase ? ["-i", ...result] : result;
}
