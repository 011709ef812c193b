/**
 * A field raised to a power in awk (WS-164). In awk `$` binds tighter than
 * `^`, so `$1^2` is the first field squared; just-bash's awk read it as
 * `$(1^2)`, the first field itself, so `{ print $1^2 }` printed 2 for 2,
 * `$NF^2` printed an empty field and `$1+$2^2` added the wrong number,
 * silently. Before the program runs, each field reference written `$N`,
 * `$NAME`, `$NAME[…]` or `$(…)` that a `^` or `**` follows is put in
 * parentheses (`($1)^2`), which just-bash reads as awk does.
 *
 * Invariant: nothing inside a string, a regular expression or a comment
 * changes, nor a field assigned with `^=` or `**=`; a program without such a
 * field is returned as it came. A `/` is read as a regular expression's
 * start unless it follows an operand (a name, a number, `)` or `]`), as
 * awk's own grammar decides in practice.
 *
 * @module
 */

const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const DIGITS = /[0-9]+/y;
const POWER = /[ \t]*(?:\^|\*\*)(?!=)/y;

/** The end of a bracketed run that opens at `start` (`(` or `[`), or -1. */
function closing(program: string, start: number): number {
  const open = program[start];
  const close = open === "(" ? ")" : "]";
  let depth = 0;
  let quoted = false;
  for (let at = start; at < program.length; at++) {
    const char = program[at];
    if (quoted) {
      if (char === "\\") at++;
      else if (char === '"') quoted = false;
    } else if (char === '"') quoted = true;
    else if (char === open) depth++;
    else if (char === close && --depth === 0) return at + 1;
  }
  return -1;
}

/** The end of the field expression after the `$` at `dollar`, or -1 when it is none of ours. */
function fieldEnd(program: string, dollar: number): number {
  let at = dollar + 1;
  while (program[at] === " " || program[at] === "\t") at++;
  if (program[at] === "(") return closing(program, at);
  DIGITS.lastIndex = at;
  if (DIGITS.test(program)) return DIGITS.lastIndex;
  NAME.lastIndex = at;
  if (!NAME.test(program)) return -1;
  at = NAME.lastIndex;
  return program[at] === "[" ? closing(program, at) : at;
}

/** `program` with each field that a power follows in parentheses (see the module's documentation). */
export function fieldPowers(program: string): string {
  if (!program.includes("$") || !/\^|\*\*/.test(program)) return program;
  let out = "";
  let operand = false;
  for (let at = 0; at < program.length;) {
    const char = program[at];
    if (char === '"' || char === "#" || (char === "/" && !operand)) {
      // A string, a comment or a regular expression: copied as it is.
      let end = at + 1;
      if (char === "#") {
        while (end < program.length && program[end] !== "\n") end++;
      } else {
        let bracket = false;
        while (end < program.length) {
          const inner = program[end];
          if (inner === "\\") end += 2;
          else if (char === "/" && inner === "[") bracket = true, end++;
          else if (char === "/" && inner === "]") bracket = false, end++;
          else if (inner === char && !bracket) {
            end++;
            break;
          } else if (inner === "\n") break;
          else end++;
        }
      }
      out += program.slice(at, end);
      at = end;
      operand = char !== "#";
      continue;
    }
    if (char === "$") {
      const end = fieldEnd(program, at);
      if (end > 0) {
        POWER.lastIndex = end;
        const field = program.slice(at, end);
        out += POWER.test(program) ? `(${field})` : field;
        at = end;
        operand = true;
        continue;
      }
    }
    out += char;
    at++;
    if (!/[ \t]/.test(char)) operand = /[A-Za-z0-9_)\].]/.test(char);
  }
  return out;
}
