/**
 * Glob patterns over POSIX relative paths, compiled once to a `RegExp`.
 *
 * Invariant: a compiled matcher only ever answers for normalized relative
 * paths (`a/b.txt`, no leading `/`, no `.` or `..` segments, no empty
 * segments), and a pattern that could not match such a path by construction —
 * absolute, with a `.`, `..` or empty segment, or unbalanced — is refused with
 * a {@linkcode GlobPatternError} instead of silently matching nothing.
 *
 * Syntax:
 * - `*` matches any run of characters within one segment (never `/`);
 * - `?` matches exactly one character other than `/`;
 * - `**` as a whole segment matches zero or more whole segments
 *   (`a/**` matches `a` and everything under it); elsewhere it means `*`;
 * - `[abc]`, `[a-z]`, `[!a]` (or `[^a]`) match one character of a class, never
 *   `/`; a `]` right after `[` or `[!` is a member;
 * - `{a,b}` matches either alternative; alternatives nest and may contain
 *   `/` and `**`; `{a}` matches `a`;
 * - `\x` matches `x` literally.
 *
 * Dotfiles are not special: `*`, `?`, `**` and classes match a leading `.`
 * like any other character, so `**\/*` lists `.env` too. Documents list the
 * files of a directory they own, and hiding some of them by name would be a
 * surprise; exclude them explicitly (`exclude="**\/.*"`).
 *
 * Uses no runtime API, so the same matcher serves the host filesystem and a
 * virtual one.
 *
 * @module
 */
import { XmdError } from "../errors/xmd-error.ts";

/** Alternatives a pattern may expand to through `{…}` before it is refused. */
const MAX_ALTERNATIVES = 1024;

/**
 * A glob pattern that cannot be compiled. The message quotes the pattern and
 * says what is wrong and how to fix it.
 *
 * @example Refusing an absolute pattern
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileGlob, GlobPatternError } from "./glob-pattern.ts";
 * assert.throws(() => compileGlob("/etc/*"), GlobPatternError);
 * ```
 */
export class GlobPatternError extends XmdError {
  /** The class name, which journals record. */
  override name = "GlobPatternError";
  /** Its stable code. */
  readonly code = "glob.pattern";
  /** The refused pattern. */
  readonly pattern: string;
  /** What is wrong with it, without the pattern. */
  readonly reason: string;

  /** A refusal of `pattern` for `reason`. */
  constructor(pattern: string, reason: string, options?: ErrorOptions) {
    super(`Cannot compile glob "${pattern}": ${reason}`, options);
    this.pattern = pattern;
    this.reason = reason;
  }
}

type Atom =
  | { kind: "char"; value: string }
  | { kind: "star" }
  | { kind: "question" }
  | { kind: "class"; source: string }
  | { kind: "slash" };

type Node = Atom | { kind: "alternation"; options: Node[][] };

/**
 * Compiles `pattern` to a predicate over normalized POSIX relative paths.
 * Throws a {@linkcode GlobPatternError} for a pattern it refuses.
 *
 * @example Matching TypeScript sources
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileGlob } from "./glob-pattern.ts";
 * const isSource = compileGlob("src/**\/*.{ts,tsx}");
 * assert.equal(isSource("src/a/b.tsx"), true);
 * assert.equal(isSource("test/a.ts"), false);
 * ```
 */
export function compileGlob(pattern: string): (path: string) => boolean {
  if (pattern === "") throw new GlobPatternError(pattern, "the pattern is empty");
  if (pattern.startsWith("/")) {
    throw new GlobPatternError(
      pattern,
      "the pattern is absolute; write it relative to the listed directory",
    );
  }
  const tree = new Parser(pattern).parse();
  const sources = new Set<string>();
  for (const atoms of expand(pattern, tree)) sources.add(toRegExpSource(pattern, atoms));
  const regExp = new RegExp(`^(?:${[...sources].join("|")})$`, "u");
  return (path) => regExp.test(path);
}

/** A recursive-descent reader of one pattern into atoms and alternations. */
class Parser {
  readonly #pattern: string;
  /** The pattern as code points, so classes and `?` treat astral characters as one. */
  readonly #chars: string[];
  #index = 0;

  constructor(pattern: string) {
    this.#pattern = pattern;
    this.#chars = [...pattern];
  }

  parse(): Node[] {
    const nodes = this.#sequence(0);
    if (this.#index < this.#chars.length) {
      // Only a `}` outside any group stops the top-level sequence early.
      this.#fail(`unbalanced "}" at column ${this.#index + 1}; escape it as "\\}"`);
    }
    return nodes;
  }

  #sequence(depth: number): Node[] {
    const nodes: Node[] = [];
    while (this.#index < this.#chars.length) {
      const char = this.#chars[this.#index];
      if (char === "}" || (char === "," && depth > 0)) break;
      this.#index++;
      switch (char) {
        case "\\":
          nodes.push(this.#escaped());
          break;
        case "*":
          nodes.push({ kind: "star" });
          break;
        case "?":
          nodes.push({ kind: "question" });
          break;
        case "/":
          nodes.push({ kind: "slash" });
          break;
        case "[":
          nodes.push(this.#class());
          break;
        case "]":
          this.#fail(`unbalanced "]" at column ${this.#index}; escape it as "\\]"`);
          break;
        case "{":
          nodes.push(this.#alternation(depth));
          break;
        default:
          nodes.push({ kind: "char", value: char });
      }
    }
    return nodes;
  }

  #escaped(): Atom {
    const char = this.#chars[this.#index++];
    if (char === undefined) {
      this.#fail('the pattern ends with "\\"; escape a backslash as "\\\\"');
    }
    return char === "/" ? { kind: "slash" } : { kind: "char", value: char };
  }

  #alternation(depth: number): Node {
    const open = this.#index;
    const options: Node[][] = [];
    for (;;) {
      options.push(this.#sequence(depth + 1));
      const char = this.#chars[this.#index++];
      if (char === "}") return { kind: "alternation", options };
      if (char === undefined) {
        this.#fail(`unbalanced "{" at column ${open}; close it with "}" or escape it as "\\{"`);
      }
    }
  }

  #class(): Atom {
    const open = this.#index;
    let negated = false;
    if (this.#chars[this.#index] === "!" || this.#chars[this.#index] === "^") {
      negated = true;
      this.#index++;
    }
    let members = "";
    let first = true;
    for (;;) {
      let char = this.#chars[this.#index++];
      if (char === undefined) {
        this.#fail(`unbalanced "[" at column ${open}; close it with "]" or escape it as "\\["`);
      }
      if (char === "]" && !first) break;
      first = false;
      if (char === "\\") char = this.#classChar(open);
      if (char === "/") {
        this.#fail(`the class at column ${open} contains "/", which no segment holds`);
      }
      if (this.#chars[this.#index] === "-" && this.#chars[this.#index + 1] !== "]") {
        this.#index++;
        let end = this.#chars[this.#index++];
        if (end === undefined) {
          this.#fail(`unbalanced "[" at column ${open}; close it with "]" or escape it as "\\["`);
        }
        if (end === "\\") end = this.#classChar(open);
        if (end.codePointAt(0)! < char.codePointAt(0)!) {
          this.#fail(`the range "${char}-${end}" at column ${open} is reversed`);
        }
        if (char <= "/" && end >= "/") {
          this.#fail(`the range "${char}-${end}" at column ${open} contains "/"`);
        }
        members += `${codePointEscape(char)}-${codePointEscape(end)}`;
      } else {
        members += codePointEscape(char);
      }
    }
    return { kind: "class", source: negated ? `[^/${members}]` : `[${members}]` };
  }

  #classChar(open: number): string {
    const char = this.#chars[this.#index++];
    if (char === undefined) {
      this.#fail(`unbalanced "[" at column ${open}; close it with "]" or escape it as "\\["`);
    }
    return char;
  }

  #fail(reason: string): never {
    throw new GlobPatternError(this.#pattern, reason);
  }
}

/** Expands alternations into brace-free atom sequences, refusing an explosion. */
function expand(pattern: string, nodes: readonly Node[]): Atom[][] {
  let results: Atom[][] = [[]];
  for (const node of nodes) {
    if (node.kind !== "alternation") {
      for (const result of results) result.push(node);
      continue;
    }
    const tails = node.options.flatMap((option) => expand(pattern, option));
    if (results.length * tails.length > MAX_ALTERNATIVES) {
      throw new GlobPatternError(
        pattern,
        `the braces expand to more than ${MAX_ALTERNATIVES} alternatives; use fewer patterns`,
      );
    }
    results = results.flatMap((head) => tails.map((tail) => [...head, ...tail]));
  }
  return results;
}

/** A whole-segment `**`, or one segment compiled to a regular expression fragment. */
type Segment = "globstar" | string;

function toRegExpSource(pattern: string, atoms: readonly Atom[]): string {
  const segments: Atom[][] = [[]];
  for (const atom of atoms) {
    if (atom.kind === "slash") segments.push([]);
    else segments[segments.length - 1].push(atom);
  }
  const compiled: Segment[] = [];
  for (const segment of segments) {
    const literal = segment.every((atom) => atom.kind === "char")
      ? segment.map((atom) => (atom as { value: string }).value).join("")
      : undefined;
    if (literal === "") {
      throw new GlobPatternError(pattern, 'the pattern has an empty segment; remove the extra "/"');
    }
    if (literal === "." || literal === "..") {
      throw new GlobPatternError(
        pattern,
        `the pattern has a "${literal}" segment; write paths relative to the listed directory without "." or ".."`,
      );
    }
    const isGlobstar = segment.length === 2 && segment.every((atom) => atom.kind === "star");
    if (isGlobstar) {
      // `**/**` means the same as `**`; collapsing keeps the joins below simple.
      if (compiled.at(-1) !== "globstar") compiled.push("globstar");
    } else {
      compiled.push(segmentSource(segment));
    }
  }
  if (compiled.length === 1 && compiled[0] === "globstar") return "[^/]+(?:/[^/]+)*";
  let source = "";
  compiled.forEach((segment, index) => {
    const last = index === compiled.length - 1;
    if (segment === "globstar" && last) {
      source += "(?:/[^/]+)*";
      return;
    }
    if (index > 0 && compiled[index - 1] !== "globstar") source += "/";
    source += segment === "globstar" ? "(?:[^/]+/)*" : segment;
  });
  return source;
}

function segmentSource(segment: readonly Atom[]): string {
  let source = "";
  let previous: Atom["kind"] | undefined;
  for (const atom of segment) {
    switch (atom.kind) {
      case "char":
        source += atom.value.replace(/[\\^$.*+?()[\]{}|/]/gu, "\\$&");
        break;
      case "star":
        if (previous !== "star") source += "[^/]*";
        break;
      case "question":
        source += "[^/]";
        break;
      case "class":
        source += atom.source;
        break;
    }
    previous = atom.kind;
  }
  return source;
}

function codePointEscape(char: string): string {
  return `\\u{${char.codePointAt(0)!.toString(16)}}`;
}
