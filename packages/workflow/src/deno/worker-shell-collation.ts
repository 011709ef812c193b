/**
 * `String.prototype.localeCompare` without ICU's collator for the strings
 * whose order under the interpreter's locale is their code-unit order.
 *
 * just-bash sorts the names of `SHELLOPTS` with `localeCompare` whenever a
 * `Bash` is built or `set -o` changes, so every block called it, and its
 * first call in a process builds ICU's collator: about 10 ms of the
 * interpreter's warm-up, on the path to a start's first block (WS-136).
 * Those names, like most a block sorts with `ls` or `sort`, hold only
 * lowercase ASCII letters, digits and `-`. Under the interpreter's locale
 * (`en-US`: its environment is cleared, so no `LANG` picks another; WS-34)
 * such strings collate as their code units do: `-` before the digits, the
 * digits before the letters, each in ASCII order, a prefix first. So they
 * are compared here, and every other call (another character, an explicit
 * locale or options, a receiver or argument that is not a string) is ICU's,
 * unchanged.
 *
 * Invariant: for every pair it answers, the result is the one ICU gives in
 * the interpreter's environment (`-1`, `0` or `1`); a test compares them
 * there, in a process started as the interpreter is.
 *
 * @module
 */

/** Whether every code unit of `text` is `a`–`z`, `0`–`9` or `-`. */
function plain(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (!((code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x2d)) {
      return false;
    }
  }
  return true;
}

/**
 * Replaces `String.prototype.localeCompare` with one that orders two plain
 * strings (see {@linkcode plain}) itself and hands every other call to the
 * original. Call once, before the first `Bash` is built, in the interpreter
 * process only: the equivalence holds for its locale.
 */
export function collatePlainStringsWithoutIcu(): void {
  const original = String.prototype.localeCompare;
  Object.defineProperty(String.prototype, "localeCompare", {
    configurable: true,
    writable: true,
    enumerable: false,
    value: function localeCompare(this: unknown, that: unknown, ...rest: unknown[]): number {
      if (
        rest.length === 0 && typeof this === "string" && typeof that === "string" &&
        plain(this) && plain(that)
      ) {
        return this < that ? -1 : this > that ? 1 : 0;
      }
      return Reflect.apply(original, this, [that, ...rest]);
    },
  });
}
