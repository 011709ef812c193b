/**
 * The lexer and parser of Worker Shell's `bc` (WS-181): the text of a `bc`
 * program to a tree, one input item at a time, as GNU bc 1.07 reads it.
 *
 * Invariants, each GNU's:
 * - An input item is a function definition, or statements separated by `;`
 *   up to a newline at the outermost level; it is parsed whole before it
 *   runs, so a syntax error anywhere in it keeps all of it from running
 *   (`1; 2+` prints only the error). Input ending inside an item, even
 *   without its newline (`printf 1 | bc`), is a syntax error.
 * - A syntax error is reported as `NAME LINE: syntax error` (`NAME` is
 *   `(standard_in)` or the FILE), LINE counting the newline the error was
 *   found at (and 1 at the end of the input). Parsing then goes on past the
 *   newline when the error was in the item's first statement, else from
 *   the next token that can start a statement (which then belongs to the
 *   failed item, and errors in its next three tokens are not reported). This
 *   is yacc's recovery in GNU's grammar, approximated. An illegal
 *   character is reported and skipped, and fails its item.
 * - The FILEs and standard input are one stream of tokens, as GNU's: an
 *   item a FILE leaves open goes on in the next.
 * - `quit` ends the program when it is read, wherever it is: the item it is
 *   in never runs.
 * - Names are lowercase letters, digits and `_`, starting with a letter;
 *   numerals are digits and uppercase letters, valued when they run (by the
 *   `ibase` then in force); a backslash before a newline joins the lines.
 *
 * @module
 */

/** A place a value is stored: a variable, an array element or one of `bc`'s own. */
export type BcTarget =
  | { kind: "var"; name: string }
  | { kind: "elem"; name: string; index: BcExpr }
  | { kind: "special"; name: "scale" | "ibase" | "obase" | "last" };

/** An argument of a call: a value, or an array passed whole (`f(a[])`). */
export type BcArgument = { kind: "value"; expr: BcExpr } | { kind: "array"; name: string };

/** An expression. */
export type BcExpr =
  | { kind: "num"; text: string }
  | { kind: "load"; target: BcTarget }
  | { kind: "assign"; target: BcTarget; op: string; value: BcExpr; grouped: boolean }
  | { kind: "step"; target: BcTarget; delta: 1 | -1; prefix: boolean }
  | { kind: "binary"; op: string; left: BcExpr; right: BcExpr }
  | { kind: "and" | "or"; left: BcExpr; right: BcExpr }
  | { kind: "neg" | "not"; operand: BcExpr }
  | { kind: "call"; name: string; args: BcArgument[] }
  | { kind: "builtin"; name: "sqrt" | "length" | "scale"; operand: BcExpr };

/** A statement. */
export type BcStatement =
  | { kind: "expr"; expr: BcExpr }
  | { kind: "string"; text: string }
  | { kind: "print"; items: ({ kind: "text"; text: string } | { kind: "value"; expr: BcExpr })[] }
  | { kind: "block"; body: BcStatement[] }
  | { kind: "if"; test: BcExpr; then: BcStatement; otherwise?: BcStatement }
  | { kind: "while"; test: BcExpr; body: BcStatement }
  | { kind: "for"; init?: BcExpr; test?: BcExpr; step?: BcExpr; body: BcStatement }
  | { kind: "break" | "continue" | "halt" | "limits" }
  | { kind: "return"; value?: BcExpr };

/** A parameter or `auto` name of a function: a variable, or an array (`a[]`). */
export type BcLocal = { name: string; array: boolean };

/** A function definition. */
export type BcFunction = {
  name: string;
  params: BcLocal[];
  autos: BcLocal[];
  body: BcStatement[];
  void: boolean;
};

/** What one input item is: statements to run, a function, or the end of the text. */
export type BcItem =
  | { kind: "run"; statements: BcStatement[] }
  | { kind: "define"; fn: BcFunction }
  | { kind: "failed" }
  | { kind: "end" };

/** A syntax error; `reported` when its message was already written. */
export class BcSyntaxError extends Error {
  constructor(message: string, readonly reported = false) {
    super(message);
    this.name = "BcSyntaxError";
  }
}

/** `quit` was read: the program ends here. */
export class BcQuit extends Error {
  constructor() {
    super("quit");
    this.name = "BcQuit";
  }
}

type Token = { type: "num" | "name" | "key" | "str" | "op" | "nl" | "eof"; text: string };

const KEYWORDS = new Set([
  "auto",
  "break",
  "continue",
  "define",
  "else",
  "for",
  "halt",
  "ibase",
  "if",
  "last",
  "length",
  "limits",
  "obase",
  "print",
  "quit",
  "read",
  "return",
  "scale",
  "sqrt",
  "warranty",
  "while",
]);

const OPERATORS = [
  "++",
  "--",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "^=",
  "==",
  "!=",
  "<=",
  ">=",
  "&&",
  "||",
  "+",
  "-",
  "*",
  "/",
  "%",
  "^",
  "=",
  "<",
  ">",
  "!",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  ";",
  ".",
];

const ASSIGNMENTS = new Set(["=", "+=", "-=", "*=", "/=", "%=", "^="]);
const RELATIONS = new Set(["==", "!=", "<", "<=", ">", ">="]);
const DIGIT = /[0-9A-Z]/;
const NAME = /[a-z0-9_]/;

/** A text a program is read from, a FILE or standard input; `text` is undefined when it could not be read. */
export type BcSource = { name: string; text: string | undefined };

/** A FILE could not be read: the program ends here. */
export class BcUnavailable extends Error {
  constructor(readonly file: string) {
    super(`File ${file} is unavailable.`);
    this.name = "BcUnavailable";
  }
}

/**
 * Splits a program's texts into tokens, on demand, counting their lines:
 * one stream, as GNU's, so an item a FILE leaves open goes on in the next.
 */
class Lexer {
  private source = -1;
  private at = 0;
  private text = "";
  /** The text being read, as errors name it. */
  name = "(standard_in)";
  /** The line the next character is on (1 again at the end, as GNU's). */
  line = 1;

  constructor(
    private readonly sources: readonly BcSource[],
    private readonly report: (message: string, failed: boolean) => void,
  ) {}

  /** Moves to the next text; false at the end of the last. */
  private advance(): boolean {
    if (this.source + 1 >= this.sources.length) {
      this.line = 1;
      return false;
    }
    const { name, text } = this.sources[++this.source];
    if (text === undefined) throw new BcUnavailable(name);
    this.name = name;
    this.text = text;
    this.at = 0;
    this.line = 1;
    return true;
  }

  next(): Token {
    for (;;) {
      const text = this.text;
      const char = text[this.at];
      if (char === undefined) {
        if (this.advance()) continue;
        return { type: "eof", text: "" };
      }
      if (char === " " || char === "\t" || char === "\r" || char === "\f" || char === "\v") {
        this.at++;
      } else if (char === "\\" && text[this.at + 1] === "\n") {
        this.at += 2;
        this.line++;
      } else if (char === "#") {
        while (this.at < text.length && text[this.at] !== "\n") this.at++;
      } else if (char === "/" && text[this.at + 1] === "*") {
        const end = text.indexOf("*/", this.at + 2);
        const comment = text.slice(this.at, end < 0 ? text.length : end + 2);
        this.line += comment.split("\n").length - 1;
        this.at += comment.length;
        if (end < 0) {
          this.report("EOF encountered in a comment.", false);
          throw new BcQuit();
        }
      } else {
        break;
      }
    }
    const text = this.text;
    const start = this.at;
    const char = text[start];
    if (char === "\n") {
      this.at++;
      this.line++;
      return { type: "nl", text: "\n" };
    }
    if (DIGIT.test(char) || (char === "." && DIGIT.test(text[start + 1] ?? ""))) {
      this.at++;
      let seenPoint = char === ".";
      for (;;) {
        const c = text[this.at];
        if (c !== undefined && DIGIT.test(c)) {
          this.at++;
        } else if (c === "." && !seenPoint) {
          seenPoint = true;
          this.at++;
        } else if (c === "\\" && text[this.at + 1] === "\n") {
          this.at += 2;
          this.line++;
        } else {
          break;
        }
      }
      return { type: "num", text: text.slice(start, this.at) };
    }
    if (char >= "a" && char <= "z") {
      while (this.at < text.length && NAME.test(text[this.at])) this.at++;
      const word = text.slice(start, this.at);
      return { type: KEYWORDS.has(word) ? "key" : "name", text: word };
    }
    if (char === '"') {
      const end = text.indexOf('"', start + 1);
      if (end >= 0) {
        const body = text.slice(start + 1, end);
        this.line += body.split("\n").length - 1;
        this.at = end + 1;
        return { type: "str", text: body };
      }
    }
    for (const op of OPERATORS) {
      if (text.startsWith(op, start)) {
        this.at += op.length;
        return { type: "op", text: op };
      }
    }
    this.at++;
    this.report(`illegal character: ${char}`, true);
    return this.next();
  }
}

/** The escapes of a `print` string: `\n`, `\t`, `\q` (a `"`) and the rest of GNU's. */
const PRINT_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  q: '"',
  "\\": "\\",
};

function printText(text: string): string {
  return text.replace(/\\(.?)/gs, (_, char: string) => PRINT_ESCAPES[char] ?? "");
}

/** Reads a program's input items one at a time, reporting its errors through `report`. */
export class BcParser {
  private readonly lexer: Lexer;
  private readonly tokens: Token[] = [];
  /** Tokens still to be read before errors are reported again. */
  private quiet = 0;
  private failed = false;
  private loops = 0;
  private fn: BcFunction | undefined;

  constructor(sources: readonly BcSource[], private readonly write: (message: string) => void) {
    this.lexer = new Lexer(sources, (message, failed) => {
      if (failed) this.error(message);
      else this.write(`${message}\n`);
    });
  }

  /** Writes `message` on the error stream with where it was found; the item then fails. */
  private error(message: string): void {
    this.write(`${this.lexer.name} ${this.lexer.line}: ${message}\n`);
    this.failed = true;
  }

  private peek(ahead = 0): Token {
    while (this.tokens.length <= ahead) {
      const token = this.lexer.next();
      if (token.type === "key" && token.text === "quit") throw new BcQuit();
      this.tokens.push(token);
    }
    return this.tokens[ahead];
  }

  private take(): Token {
    const token = this.peek();
    this.tokens.shift();
    if (this.quiet > 0) this.quiet--;
    return token;
  }

  private is(text: string, ahead = 0): boolean {
    const token = this.peek(ahead);
    return (token.type === "op" || token.type === "key") && token.text === text;
  }

  private expect(text: string): void {
    if (!this.is(text)) throw new BcSyntaxError("syntax error");
    this.take();
  }

  private skipNewlines(): void {
    while (this.peek().type === "nl") this.take();
  }

  /** The next input item; errors in it are written, and it then is `failed`. */
  nextItem(): BcItem {
    this.failed = false;
    const first = this.peek();
    if (first.type === "eof") return { kind: "end" };
    if (first.type === "key" && first.text === "define") {
      try {
        const fn = this.parseFunction();
        if (!this.failed) return { kind: "define", fn };
      } catch (error) {
        if (!(error instanceof BcSyntaxError)) throw error;
        this.recover(error, true);
      }
      return { kind: "failed" };
    }
    const statements = this.parseList(false);
    return this.failed ? { kind: "failed" } : { kind: "run", statements };
  }

  /**
   * Reports `error` unless recovering from the last one, then skips past the
   * newline (`toLineEnd`: an error in an item's first statement) or to the
   * next token that can start a statement, as GNU's parser does.
   */
  private recover(error: BcSyntaxError, toLineEnd: boolean): void {
    const quiet = this.quiet > 0;
    if (!error.reported && !quiet) this.error("syntax error");
    this.failed = true;
    for (;;) {
      const token = this.peek();
      if (token.type === "eof") break;
      if (toLineEnd ? token.type === "nl" : this.startsStatement(token)) {
        if (toLineEnd) this.tokens.shift();
        break;
      }
      this.tokens.shift();
    }
    this.quiet = toLineEnd ? 0 : 3;
  }

  private startsStatement(token: Token): boolean {
    if (token.type === "num" || token.type === "name" || token.type === "str") return true;
    if (token.type === "key") return !["auto", "define", "else"].includes(token.text);
    return token.type === "op" && ["(", "-", "!", "++", "--", "{", "."].includes(token.text);
  }

  /**
   * Statements separated by `;` (and newlines within braces) up to the
   * newline ending the item, or to the `}` ending a block (not taken).
   */
  private parseList(inBlock: boolean): BcStatement[] {
    const statements: BcStatement[] = [];
    let first = true;
    for (;;) {
      try {
        const token = this.peek();
        if (token.type === "eof") {
          if (statements.length === 0 && !inBlock && !this.failed) return statements;
          throw new BcSyntaxError("syntax error");
        }
        if (token.type === "nl") {
          this.take();
          if (!inBlock) return statements;
          continue;
        }
        if (this.is(";")) {
          this.take();
          first = false;
          continue;
        }
        if (inBlock && this.is("}")) return statements;
        statements.push(this.parseStatement());
        if (!this.is(";") && this.peek().type !== "nl" && !(inBlock && this.is("}"))) {
          throw new BcSyntaxError("syntax error");
        }
      } catch (error) {
        if (!(error instanceof BcSyntaxError)) throw error;
        const toLineEnd = !inBlock && first;
        this.recover(error, toLineEnd);
        if (toLineEnd) return statements;
        if (this.peek().type === "eof") {
          if (inBlock) throw new BcSyntaxError("syntax error", true);
          return statements;
        }
      }
    }
  }

  /** A statement that is not empty (the body of `if`, `while` or `for`). */
  private parseBody(): BcStatement {
    this.skipNewlines();
    return this.parseStatement();
  }

  private parseStatement(): BcStatement {
    const token = this.peek();
    if (token.type === "str") {
      this.take();
      return { kind: "string", text: token.text };
    }
    if (token.type === "op" && token.text === "{") {
      this.take();
      const body = this.parseList(true);
      this.expect("}");
      return { kind: "block", body };
    }
    if (token.type === "key") {
      switch (token.text) {
        case "if":
          return this.parseIf();
        case "while": {
          this.take();
          this.expect("(");
          const test = this.parseExpr();
          this.expect(")");
          return { kind: "while", test, body: this.parseLoopBody() };
        }
        case "for":
          return this.parseFor();
        case "break":
        case "continue":
          this.take();
          if (this.loops === 0) {
            this.error(
              token.text === "break" ? "Break outside a for/while" : "Continue outside a for",
            );
            this.failed = true;
          }
          return { kind: token.text };
        case "halt":
        case "limits":
          this.take();
          return { kind: token.text };
        case "warranty":
          this.take();
          return { kind: "string", text: "" };
        case "return":
          return this.parseReturn();
        case "print":
          return this.parsePrint();
      }
    }
    return { kind: "expr", expr: this.parseExpr() };
  }

  private parseIf(): BcStatement {
    this.take();
    this.expect("(");
    const test = this.parseExpr();
    this.expect(")");
    const then = this.parseBody();
    if (!this.is("else")) return { kind: "if", test, then };
    this.take();
    return { kind: "if", test, then, otherwise: this.parseBody() };
  }

  private parseLoopBody(): BcStatement {
    this.loops++;
    try {
      return this.parseBody();
    } finally {
      this.loops--;
    }
  }

  private parseFor(): BcStatement {
    this.take();
    this.expect("(");
    const init = this.is(";") ? undefined : this.parseExpr();
    this.expect(";");
    const test = this.is(";") ? undefined : this.parseExpr();
    this.expect(";");
    const step = this.is(")") ? undefined : this.parseExpr();
    this.expect(")");
    return { kind: "for", init, test, step, body: this.parseLoopBody() };
  }

  private parseReturn(): BcStatement {
    this.take();
    const token = this.peek();
    const value = token.type === "nl" || token.type === "eof" || this.is(";") || this.is("}")
      ? undefined
      : this.parseExpr();
    if (this.fn === undefined) {
      this.error("Return outside of a function.");
      this.failed = true;
    } else if (this.fn.void && value !== undefined) {
      this.error("Return expression in a void function.");
      this.failed = true;
    }
    return { kind: "return", value };
  }

  private parsePrint(): BcStatement {
    this.take();
    const items: ({ kind: "text"; text: string } | { kind: "value"; expr: BcExpr })[] = [];
    do {
      if (items.length > 0) this.take();
      const token = this.peek();
      if (token.type === "str") {
        this.take();
        items.push({ kind: "text", text: printText(token.text) });
      } else {
        items.push({ kind: "value", expr: this.parseExpr() });
      }
    } while (this.is(","));
    return { kind: "print", items };
  }

  private parseLocals(end: string): BcLocal[] {
    const locals: BcLocal[] = [];
    if (this.is(end)) return locals;
    for (;;) {
      const name = this.takeA("name");
      const array = this.is("[");
      if (array) {
        this.take();
        this.expect("]");
      }
      locals.push({ name: name.text, array });
      if (!this.is(",")) return locals;
      this.take();
    }
  }

  private parseFunction(): BcFunction {
    this.take();
    let isVoid = false;
    if (
      this.peek().type === "name" && this.peek().text === "void" && this.peek(1).type === "name"
    ) {
      this.take();
      isVoid = true;
    }
    const name = this.takeA("name");
    this.expect("(");
    const params = this.parseLocals(")");
    this.expect(")");
    this.skipNewlines();
    this.expect("{");
    this.skipNewlines();
    let autos: BcLocal[] = [];
    if (this.is("auto")) {
      this.take();
      autos = this.parseLocals(";");
      if (this.is(";") || this.peek().type === "nl") this.take();
      else throw new BcSyntaxError("syntax error");
    }
    const fn: BcFunction = { name: name.text, params, autos, body: [], void: isVoid };
    this.fn = fn;
    try {
      fn.body = this.parseList(true);
    } finally {
      this.fn = undefined;
    }
    this.expect("}");
    return fn;
  }

  /** An expression, lowest precedence first: `||`, `&&`, `!`, relations, assignment. */
  private parseExpr(): BcExpr {
    let left = this.parseAnd();
    while (this.is("||")) {
      this.take();
      left = { kind: "or", left, right: this.parseAnd() };
    }
    return left;
  }

  private parseAnd(): BcExpr {
    let left = this.parseNot();
    while (this.is("&&")) {
      this.take();
      left = { kind: "and", left, right: this.parseNot() };
    }
    return left;
  }

  private parseNot(): BcExpr {
    if (!this.is("!")) return this.parseRelation();
    this.take();
    return { kind: "not", operand: this.parseNot() };
  }

  private parseRelation(): BcExpr {
    let left = this.parseAssignment();
    while (this.peek().type === "op" && RELATIONS.has(this.peek().text)) {
      const op = this.take().text;
      left = { kind: "binary", op, left, right: this.parseAssignment() };
    }
    return left;
  }

  private parseAssignment(): BcExpr {
    const left = this.parseSum();
    if (!(this.peek().type === "op" && ASSIGNMENTS.has(this.peek().text))) return left;
    if (left.kind !== "load") throw new BcSyntaxError("syntax error");
    const op = this.take().text.slice(0, -1);
    const value = this.is("!") ? this.parseNot() : this.parseAssignment();
    return { kind: "assign", target: left.target, op, value, grouped: false };
  }

  private parseSum(): BcExpr {
    let left = this.parseProduct();
    while (this.is("+") || this.is("-")) {
      const op = this.take().text;
      left = { kind: "binary", op, left, right: this.parseProduct() };
    }
    return left;
  }

  private parseProduct(): BcExpr {
    let left = this.parsePower();
    while (this.is("*") || this.is("/") || this.is("%")) {
      const op = this.take().text;
      left = { kind: "binary", op, left, right: this.parsePower() };
    }
    return left;
  }

  private parsePower(): BcExpr {
    const left = this.parseUnary();
    if (!this.is("^")) return left;
    this.take();
    return { kind: "binary", op: "^", left, right: this.parsePower() };
  }

  private parseUnary(): BcExpr {
    if (this.is("-")) {
      this.take();
      return { kind: "neg", operand: this.parseUnary() };
    }
    if (this.is("++") || this.is("--")) {
      const delta = this.take().text === "++" ? 1 : -1;
      return { kind: "step", target: this.parseTarget(), delta, prefix: true };
    }
    const primary = this.parsePrimary();
    if (primary.kind === "load" && (this.is("++") || this.is("--"))) {
      const delta = this.take().text === "++" ? 1 : -1;
      return { kind: "step", target: primary.target, delta, prefix: false };
    }
    return primary;
  }

  private parseTarget(): BcTarget {
    const primary = this.parsePrimary();
    if (primary.kind !== "load") throw new BcSyntaxError("syntax error");
    return primary.target;
  }

  /** A token of `type`, taken; a syntax error (leaving it) when the next is not one. */
  private takeA(type: Token["type"]): Token {
    if (this.peek().type !== type) throw new BcSyntaxError("syntax error");
    return this.take();
  }

  private parsePrimary(): BcExpr {
    const token = this.peek();
    if (
      token.type === "num" || token.type === "name" || token.type === "key" || this.is("(") ||
      this.is(".")
    ) {
      this.take();
    }
    if (token.type === "num") return { kind: "num", text: token.text };
    if (token.type === "op" && token.text === "(") {
      const expr = this.parseExpr();
      this.expect(")");
      return expr.kind === "assign" ? { ...expr, grouped: true } : expr;
    }
    if (token.type === "op" && token.text === ".") {
      return { kind: "load", target: { kind: "special", name: "last" } };
    }
    if (token.type === "name") {
      if (this.is("(")) {
        this.take();
        return { kind: "call", name: token.text, args: this.parseArguments() };
      }
      if (this.is("[")) {
        this.take();
        const index = this.parseExpr();
        this.expect("]");
        return { kind: "load", target: { kind: "elem", name: token.text, index } };
      }
      return { kind: "load", target: { kind: "var", name: token.text } };
    }
    if (token.type === "key") {
      switch (token.text) {
        case "scale":
          if (this.is("(")) {
            return { kind: "builtin", name: "scale", operand: this.parseParenthesized() };
          }
          return { kind: "load", target: { kind: "special", name: "scale" } };
        case "ibase":
        case "obase":
        case "last":
          return { kind: "load", target: { kind: "special", name: token.text } };
        case "sqrt":
        case "length":
          return { kind: "builtin", name: token.text, operand: this.parseParenthesized() };
      }
    }
    throw new BcSyntaxError("syntax error");
  }

  private parseParenthesized(): BcExpr {
    this.expect("(");
    const expr = this.parseExpr();
    this.expect(")");
    return expr;
  }

  private parseArguments(): BcArgument[] {
    const args: BcArgument[] = [];
    if (this.is(")")) {
      this.take();
      return args;
    }
    for (;;) {
      const token = this.peek();
      if (token.type === "name" && this.is("[", 1) && this.is("]", 2)) {
        this.take();
        this.take();
        this.take();
        args.push({ kind: "array", name: token.text });
      } else {
        args.push({ kind: "value", expr: this.parseExpr() });
      }
      if (this.is(")")) {
        this.take();
        return args;
      }
      this.expect(",");
    }
  }
}
