/**
 * `split(s, a, "SEP")` with a separator string of more than one character
 * splits at matches of it as a regular expression, as in awk (WS-189):
 * `split($0, p, ", *")` splits at a comma and the spaces after it,
 * `split(v, p, "[.]")` at dots. just-bash's awk read such a string as the
 * literal text to split at, so both found one part. (A regular expression
 * written `/…/` was already read as one, and a one-character string is that
 * character in both.)
 *
 * Before the program runs, each `split` call whose third argument is a
 * string literal of more than one character is given that string as a
 * regular expression literal (`"[.]"` as `/[.]/`), which means the same in
 * awk.
 *
 * Invariant: a call whose third argument is anything else (a variable, an
 * expression, a `/…/`, a one-character string, none) is left as written,
 * and so is a program whose calls this cannot read.
 *
 * @module
 */

/** The end (index after the `)`) of the call whose `(` is at `open`, and its top-level arguments. */
function callArguments(text: string, open: number): { end: number; args: string[] } | undefined {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let at = open; at < text.length; at++) {
    const char = text[at];
    if (char === '"') {
      for (at++; at < text.length && text[at] !== '"'; at++) if (text[at] === "\\") at++;
      if (at >= text.length) return undefined;
    } else if (char === "/" && /[(,]\s*$/.test(text.slice(start - 1, at))) {
      // A regular expression literal where an argument starts.
      for (at++; at < text.length && text[at] !== "/"; at++) if (text[at] === "\\") at++;
      if (at >= text.length) return undefined;
    } else if (char === "(") {
      depth++;
    } else if (char === ")") {
      if (--depth === 0) {
        args.push(text.slice(start, at));
        return { end: at + 1, args };
      }
    } else if (char === "," && depth === 1) {
      args.push(text.slice(start, at));
      start = at + 1;
    } else if (char === "\n" && depth === 0) {
      return undefined;
    }
  }
  return undefined;
}

/** A string literal's value: awk's escapes of `\\`, `\"` and `\/` read, any other kept. */
function valueOf(literal: string): string {
  return literal.slice(1, -1).replace(/\\([\\"/])/g, "$1");
}

/** The separator string `literal` as a regular expression literal, when it is one of more than one character. */
function asRegex(literal: string): string | undefined {
  if (!/^"(?:[^"\\\n]|\\.)*"$/.test(literal)) return undefined;
  const value = valueOf(literal);
  if (value.length <= 1) return undefined;
  return `/${value.replace(/\//g, "\\/")}/`;
}

/** `program` with each `split`'s separator string of several characters read as awk reads it. */
export function splitSeparators(program: string): string {
  if (!program.includes("split")) return program;
  const call = /(?<![\w$])split\s*\(/g;
  let out = "";
  let from = 0;
  for (const match of program.matchAll(call)) {
    if (match.index < from) continue;
    const open = match.index + match[0].length - 1;
    const read = callArguments(program, open);
    if (read === undefined || read.args.length !== 3) continue;
    const separator = read.args[2];
    const regex = asRegex(separator.trim());
    if (regex === undefined) continue;
    const at = read.end - 1 - separator.length;
    out += program.slice(from, at) + separator.replace(separator.trim(), regex);
    from = read.end - 1;
  }
  return out + program.slice(from);
}
