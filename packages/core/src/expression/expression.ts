/**
 * Safe expressions: the `{…}` and `name={…}` JavaScript of a document,
 * compiled once into closures and evaluated against a {@linkcode Scope}.
 *
 * Invariant: an expression can only read JSON. It sees no globals, no
 * prototypes and no functions; it reads own data properties only, calls only
 * allowlisted pure methods with bounded results, cannot assign or allocate
 * without bound, and every value it returns is JSON. Refusals are
 * {@linkcode DocumentError}s at the offending node, and their messages never
 * contain a bound value.
 *
 * Bitwise operators are refused, like `in`, `instanceof`, `delete` and `void`.
 * Arithmetic and comparison operands must be numbers (comparisons: two numbers
 * or two strings); `+` adds numbers or, when either side is a string, joins
 * text. Text conversion refuses `undefined`, arrays and objects. Any
 * arithmetic result that is not finite is refused where it happens.
 *
 * @module
 */
import type * as estree from "estree";
import { DocumentError } from "../document/document-error.ts";
import type { SourcePosition } from "../document/source-position.ts";
import type { JsonValue } from "../json/json-value.ts";
import { compileTree, type Locate } from "./_compile-tree.ts";
import { parseSource } from "./_parse-source.ts";
import type { Scope } from "./scope.ts";

export type { Scope } from "./scope.ts";

/**
 * An expression validated and compiled once, ready to be evaluated many times.
 *
 * @example Evaluating against bindings
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileSource } from "./expression.ts";
 * const expression = compileSource("props.name.toUpperCase()", { file: "doc.md", line: 3, column: 2 });
 * const value = expression.evaluate((name) => (name === "props" ? { name: "ada" } : undefined));
 * assert.equal(value, "ADA");
 * assert.deepEqual(expression.identifiers, ["props"]);
 * ```
 */
export interface CompiledExpression {
  /** The expression's source text; `""` when compiled from a tree without it. */
  readonly source: string;
  /** Where the expression starts in the document. */
  readonly position: SourcePosition;
  /**
   * Computes the value; `undefined` becomes `null`. Throws a positioned
   * {@linkcode DocumentError} for an unknown name, a read of a member of
   * `null`, a misused method, an oversized result or a non-finite number.
   */
  evaluate(scope: Scope): JsonValue;
  /** The free names the expression reads (`undefined` excluded), in order of first use. */
  readonly identifiers: readonly string[];
}

/**
 * Compiles the ESTree `Program` the MDX parser attaches to an expression
 * (`node.data.estree`), whose `loc` lines are 1-based and columns 0-based,
 * both absolute in `file`. Throws a positioned {@linkcode DocumentError} when
 * the program is not exactly one allowed expression.
 *
 * @example Compiling an expression parsed by micromark
 * ```ts
 * import assert from "node:assert/strict";
 * import { fromMarkdown } from "mdast-util-from-markdown";
 * import { mdxjs } from "micromark-extension-mdxjs";
 * import { mdxFromMarkdown } from "mdast-util-mdx";
 * import type { Program } from "estree";
 * import { compileEstree } from "./expression.ts";
 * const tree = fromMarkdown("Hi {props.name}!", {
 *   extensions: [mdxjs()],
 *   mdastExtensions: [mdxFromMarkdown()],
 * });
 * const paragraph = tree.children[0] as { children: { data?: { estree?: Program } }[] };
 * const expression = compileEstree(paragraph.children[1].data!.estree!, "doc.md");
 * assert.equal(expression.evaluate(() => ({ name: "Ada" })), "Ada");
 * ```
 */
export function compileEstree(program: estree.Program, file: string): CompiledExpression {
  const toPosition = (loc: estree.SourceLocation | null | undefined): SourcePosition | undefined =>
    loc ? { file, line: loc.start.line, column: loc.start.column + 1 } : undefined;
  const start = toPosition(program.loc) ?? { file, line: 1, column: 1 };
  const locate: Locate = (node) => toPosition(node.loc) ?? start;
  const [first, second] = program.body;
  if (first === undefined) {
    const comments = (program as { comments?: readonly unknown[] }).comments ?? [];
    throw new DocumentError(
      comments.length > 0
        ? "Expression contains only a comment: write a value between the braces, e.g. {props.name}"
        : "Expression is empty: write a value between the braces, e.g. {props.name}",
      start,
    );
  }
  if (second !== undefined) {
    throw new DocumentError("Only one expression is allowed: remove the rest", locate(second));
  }
  if (first.type !== "ExpressionStatement") {
    throw new DocumentError(
      "Statements and declarations are not allowed: write a single expression",
      locate(first),
    );
  }
  return finish("", locate(first.expression), first.expression, locate);
}

/**
 * Compiles an expression from its source text, given the absolute position of
 * its first character (used for `{name}` interpolation in code blocks). Throws
 * a {@linkcode DocumentError} at the absolute position of a syntax error or of
 * the first construct that is not allowed.
 *
 * @example Positions are absolute in the document
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileSource } from "./expression.ts";
 * assert.throws(
 *   () => compileSource("a +\n  b++", { file: "doc.md", line: 5, column: 10 }),
 *   /^DocumentError: doc\.md:6:3: Increment and decrement are not allowed/,
 * );
 * ```
 */
export function compileSource(source: string, start: SourcePosition): CompiledExpression {
  const { expression, locate } = parseSource(source, start);
  return finish(source, locate(expression), expression, locate);
}

function finish(
  source: string,
  position: SourcePosition,
  expression: estree.Expression,
  locate: Locate,
): CompiledExpression {
  const { run, identifiers } = compileTree(expression, locate);
  return Object.freeze({
    source,
    position,
    identifiers: Object.freeze([...identifiers]),
    evaluate(scope: Scope): JsonValue {
      const value = run(scope);
      return value === undefined ? null : value;
    },
  });
}
