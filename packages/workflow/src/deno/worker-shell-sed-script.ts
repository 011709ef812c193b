/**
 * A GNU sed script spelled so just-bash's `sed` reads it as GNU sed does
 * (WS-138). just-bash read two things differently:
 *
 * - The text of `a`, `i` and `c`. GNU's one-line forms (`1i\header`,
 *   `$a\last`, `a\  indented`) kept the backslash (`\header`) or lost the
 *   blanks; `$a\` at the end of a script (the idiom that ends a file with a
 *   newline) appended a line holding a backslash; `\\` in the text stayed
 *   two backslashes. Here GNU's text is worked out (its escapes `\n`, `\t`,
 *   `\r`, `\a`, `\f`, `\v`, a backslash before a newline or any other
 *   character standing for that character) and written in the classic form
 *   (`a\`, a newline, the text), which just-bash reads as GNU does.
 * - A replacement's `\\`, an escaped backslash: just-bash's reader turned it
 *   into one backslash, which its substitution then read as an escape of the
 *   next character, so `s/"/\\"/g` changed nothing and `s/\\/\\\\/g` did not
 *   double a backslash. Each `\\` of a replacement is written twice.
 *
 * Everything else is copied as it is. A text this cannot write for
 * just-bash (a backslash before `n`, `t` or `r`, or at a line's end, or an
 * escape such as `\x41`) is left as it was. The script is read as GNU sed
 * reads it: `#` comments, labels, addresses (numbers, `$`, `first~step`,
 * `/regex/` and `\cregexc` with their `I`/`M` flags, `addr,+N`, `addr,~N`),
 * `!`, `{`/`}`, `;`, and each command's own argument (`s` and `y` with their
 * delimiters, a file name or label to the end of the line, a text); an `s`
 * pattern ends where just-bash's reader ends it (a delimiter inside
 * `[...]` does not end it).
 *
 * @module
 */
import { CASE_END, caseMarker } from "./worker-shell-sed-case.ts";

/** What a script holds that only GNU's reading gives: an `a` with no text at all (`$a\`). */
export interface SedScript {
  /** The script as just-bash should read it. */
  script: string;
  /**
   * Whether the script has `$a\` with nothing after the backslash, whose
   * only effect is GNU's newline at the end of an input that lacked one.
   */
  endsWithNewline: boolean;
  /** Whether a replacement converts case (`\U`, `\L`, `\u`, `\l`, `\E`), written as markers (WS-159). */
  convertsCase: boolean;
}

/** Escapes GNU's text of `a`, `i` and `c` turns into characters. */
const TEXT_ESCAPES: Readonly<Record<string, string>> = {
  n: "\n",
  t: "\t",
  r: "\r",
  a: "\x07",
  f: "\f",
  v: "\v",
};

/** GNU's text from its raw form (escapes kept), or undefined when it holds one this does not read. */
function gnuText(raw: string): string | undefined {
  let text = "";
  for (let index = 0; index < raw.length; index++) {
    const char = raw[index];
    if (char !== "\\" || index + 1 === raw.length) {
      text += char;
      continue;
    }
    const next = raw[++index];
    if (next in TEXT_ESCAPES) text += TEXT_ESCAPES[next];
    else if ("doxc".includes(next)) return undefined;
    else text += next;
  }
  return text;
}

/** `text` as just-bash's reader of a classic `a\` text reads it back, or undefined if it cannot. */
function classicText(text: string): string | undefined {
  // just-bash reads `\n`, `\t`, `\r` as escapes and a backslash at a line's end as a continuation.
  if (/\\[ntr]|\\(\n|$)/.test(text)) return undefined;
  return text.replaceAll("\n", "\\n");
}

class Reader {
  index = 0;
  out = "";
  endsWithNewline = false;
  convertsCase = false;

  constructor(readonly script: string) {}

  get done(): boolean {
    return this.index >= this.script.length;
  }

  peek(offset = 0): string {
    return this.script[this.index + offset] ?? "";
  }

  /** Copies `count` characters as they are. */
  copy(count = 1): void {
    this.out += this.script.slice(this.index, this.index + count);
    this.index += count;
  }

  /** Copies up to (not including) the next newline. */
  copyLine(): void {
    while (!this.done && this.peek() !== "\n") this.copy();
  }

  copyBlanks(): void {
    while (this.peek() === " " || this.peek() === "\t") this.copy();
  }

  /** Copies a delimited part after its opening delimiter, and the closing one. */
  copyDelimited(delimiter: string, brackets = false): void {
    let inBracket = false;
    while (!this.done) {
      const char = this.peek();
      if (char === "\\") {
        this.copy(2);
        continue;
      }
      if (brackets && !inBracket && char === "[") {
        inBracket = true;
        this.copy();
        if (this.peek() === "^") this.copy();
        if (this.peek() === "]") this.copy();
        continue;
      }
      if (inBracket && char === "]") inBracket = false;
      this.copy();
      if (char === delimiter && !inBracket) return;
    }
  }

  /** One address, if one starts here. */
  address(): boolean {
    const char = this.peek();
    if (/[0-9]/.test(char)) {
      while (/[0-9~]/.test(this.peek())) this.copy();
      return true;
    }
    if (char === "$") {
      this.copy();
      return true;
    }
    if (char === "/" || char === "\\") {
      if (char === "\\") this.copy();
      const delimiter = this.peek();
      this.copy();
      this.copyDelimited(delimiter);
      while (this.peek() === "I" || this.peek() === "M") this.copy();
      return true;
    }
    return false;
  }

  /** The substitution's replacement and flags, after its pattern. */
  replacement(delimiter: string): void {
    let converts = false;
    while (!this.done) {
      const char = this.peek();
      if (char === "\\" && this.peek(1) === "\\") {
        // just-bash reads `\\` as `\`, then its substitution reads that as an escape: doubled.
        this.out += "\\\\\\\\";
        this.index += 2;
        continue;
      }
      const marker = char === "\\" ? caseMarker(this.peek(1)) : undefined;
      if (marker !== undefined) {
        // A case conversion, which just-bash's sed does not make: a marker it copies (WS-159).
        this.out += marker;
        this.index += 2;
        converts = this.convertsCase = true;
        continue;
      }
      if (char === "\\") {
        this.copy(2);
        continue;
      }
      if (char === delimiter && converts) this.out += CASE_END;
      this.copy();
      if (char === delimiter) break;
    }
    while (/[gpiImMe0-9]/.test(this.peek())) this.copy();
    if (this.peek() === "w") this.copyLine();
  }

  /** The text of `a`, `i` or `c` (the command letter already copied), as GNU reads it. */
  text(command: string, address: string, negated: boolean): void {
    const start = this.index;
    let at = this.index;
    while (this.script[at] === " " || this.script[at] === "\t") at++;
    let raw = "";
    let empty = false;
    const backslash = this.script[at] === "\\";
    if (backslash) {
      at++;
      if (at >= this.script.length) empty = true;
      else if (this.script[at] === "\n") at++;
      else raw += this.script[at++];
    }
    if (!empty) {
      while (at < this.script.length && this.script[at] !== "\n") {
        if (this.script[at] === "\\" && at + 1 < this.script.length) {
          raw += this.script.slice(at, at + 2);
          at += 2;
        } else raw += this.script[at++];
      }
    }
    if (empty) {
      // Nothing to write: `a` only ends an input that lacked it with a newline, `c` deletes.
      this.out = this.out.slice(0, -1) + (command === "c" ? "d" : "{}");
      if (command === "a" && address === "$" && !negated) this.endsWithNewline = true;
      this.index = at;
      return;
    }
    // `a` with nothing after it is GNU's error ("expected \\ after a, c or i"): just-bash's to report.
    const text = backslash || raw !== "" ? gnuText(raw) : undefined;
    const written = text === undefined ? undefined : classicText(text);
    if (written === undefined) {
      this.out += this.script.slice(start, at);
      this.index = at;
      return;
    }
    this.out += `\\\n${written}`;
    this.index = at;
  }

  read(): void {
    while (!this.done) {
      const char = this.peek();
      if (" \t\n;}".includes(char)) {
        this.copy();
        continue;
      }
      if (char === "#") {
        this.copyLine();
        continue;
      }
      if (char === ":") {
        // A label ends at a newline or, in GNU sed, a semicolon (`:a;N;$!ba`).
        while (!this.done && this.peek() !== "\n" && this.peek() !== ";") this.copy();
        continue;
      }
      const from = this.out.length;
      if (this.address()) {
        this.copyBlanks();
        if (this.peek() === ",") {
          this.copy();
          this.copyBlanks();
          if (this.peek() === "+" || this.peek() === "~") this.copy();
          this.address();
        }
      }
      const address = this.out.slice(from).trim();
      this.copyBlanks();
      let negated = false;
      while (this.peek() === "!") {
        negated = true;
        this.copy();
        this.copyBlanks();
      }
      const command = this.peek();
      this.copy();
      if (command === "a" || command === "i" || command === "c") {
        this.text(command, address, negated);
      } else if (command === "s" && !this.done) {
        const delimiter = this.peek();
        this.copy();
        this.copyDelimited(delimiter, true);
        this.replacement(delimiter);
      } else if (command === "y" && !this.done) {
        const delimiter = this.peek();
        this.copy();
        this.copyDelimited(delimiter);
        this.copyDelimited(delimiter);
      } else if ("btTrRwWe".includes(command)) {
        // A label or file name: GNU ends a label at `;`, a file name or command at the line's end.
        while (
          !this.done && this.peek() !== "\n" && !("btT".includes(command) && this.peek() === ";")
        ) {
          this.copy();
        }
      }
    }
  }
}

/** `script` (every `-e` joined by newlines, as GNU joins them) spelled for just-bash. */
export function sedScriptForJustBash(script: string): SedScript {
  const reader = new Reader(script);
  reader.read();
  return {
    script: reader.out,
    endsWithNewline: reader.endsWithNewline,
    convertsCase: reader.convertsCase,
  };
}

/** Short options of GNU sed that take a value (joined or in the next argument). */
const VALUED = new Set(["e", "f", "l"]);

/**
 * `args` of a `sed` command with its script spelled for just-bash: every
 * `-e` (or the script operand) joined as GNU joins them and passed as one
 * `-e`. Unchanged (and `endsWithNewline` false) when the script needs no
 * other spelling, or is read from a file (`-f`).
 */
export function sedArgsForJustBash(
  args: readonly string[],
): { args: string[]; endsWithNewline: boolean; convertsCase: boolean } {
  const pieces: string[] = [];
  const kept: (string | null)[] = [];
  let operand = -1;
  let fromFile = false;
  let ended = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (ended || arg === "-" || !arg.startsWith("-")) {
      if (operand < 0 && pieces.length === 0) operand = kept.length;
      kept.push(arg);
      continue;
    }
    if (arg === "--") {
      ended = true;
      kept.push(arg);
      continue;
    }
    if (arg.startsWith("--")) {
      const [name] = arg.split("=", 1);
      const value = arg.length > name.length ? arg.slice(name.length + 1) : undefined;
      if (name === "--expression") {
        if (pieces.length === 0) kept.push(null);
        pieces.push(value ?? args[++index] ?? "");
        continue;
      }
      if (name === "--file") fromFile = true;
      kept.push(arg);
      if ((name === "--file" || name === "--line-length") && value === undefined) {
        kept.push(args[++index] ?? "");
      }
      continue;
    }
    // A cluster: flags, then at most one option that takes the rest (or the next argument).
    let at = 1;
    while (at < arg.length && !VALUED.has(arg[at]) && arg[at] !== "i") at++;
    if (at === arg.length || arg[at] === "i") {
      kept.push(arg);
      continue;
    }
    const flag = arg[at];
    const value = at + 1 < arg.length ? arg.slice(at + 1) : args[++index] ?? "";
    if (flag === "e") {
      if (at > 1) kept.push(arg.slice(0, at));
      if (pieces.length === 0) kept.push(null);
      pieces.push(value);
      continue;
    }
    if (flag === "f") fromFile = true;
    kept.push(arg.slice(0, at + 1), value);
  }
  const unchanged = { args: [...args], endsWithNewline: false, convertsCase: false };
  if (fromFile) return unchanged;
  if (pieces.length === 0) {
    // Without -e the first operand is the script.
    if (operand < 0) return unchanged;
    const read = sedScriptForJustBash(kept[operand]!);
    if (read.script === kept[operand] && !read.endsWithNewline) return unchanged;
    const spelled = [...kept] as string[];
    spelled[operand] = read.script;
    return {
      args: spelled,
      endsWithNewline: read.endsWithNewline,
      convertsCase: read.convertsCase,
    };
  }
  const joined = pieces.join("\n");
  const read = sedScriptForJustBash(joined);
  if (read.script === joined && !read.endsWithNewline) return unchanged;
  return {
    args: kept.flatMap((arg) => arg === null ? ["-e", read.script] : [arg]),
    endsWithNewline: read.endsWithNewline,
    convertsCase: read.convertsCase,
  };
}
