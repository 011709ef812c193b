/**
 * A field separator of one character is that character, as in awk
 * (WS-186): `awk -F. '{print $NF}'` prints the last dot-separated part,
 * `-F'|'` splits at bars. just-bash's awk read every separator but a space
 * as a regular expression, so `-F.` split at every character (`$NF` was
 * empty), `-F'|'` ended with `start index out of bounds`, and `-F^`,
 * `-F'$'` did not split at all; so did `FS="."` in a program and
 * `-v FS=.`.
 *
 * A separator of one of the characters that mean something in a regular
 * expression there (`.`, `|`, `^`, `$`) is given as a bracket expression
 * matching just that character (`[.]`), written as awk source (its escapes
 * read as awk reads a string's): for `-F`, for `-v FS=…` and `FS=…`
 * operands, and for a program's `FS = "c"` string assignments.
 *
 * Invariant: any other separator (a space, a tab, a longer regular
 * expression, a character just-bash already reads as itself) is left as
 * written.
 *
 * @module
 */

/** Single characters just-bash's awk reads as a regular expression that is not that character. */
const AS_ITSELF: Readonly<Record<string, string>> = {
  ".": "[.]",
  "|": "[|]",
  "$": "[$]",
  "^": "[\\\\^]",
};

/** `separator` (as awk source) read as the one character it is, as awk reads it. */
export function literalSeparator(separator: string): string {
  return AS_ITSELF[separator] ?? separator;
}

/** A program's assignment of a one-character string to `FS`. */
const FS_ASSIGNMENT = /(?<![\w$])FS(\s*=\s*)"([.|$^])"/g;

/** `program` with each `FS = "c"` of such a character read as that character. */
export function literalSeparatorsIn(program: string): string {
  if (!program.includes("FS")) return program;
  return program.replace(
    FS_ASSIGNMENT,
    (_, equals: string, separator: string) => `FS${equals}"${literalSeparator(separator)}"`,
  );
}
