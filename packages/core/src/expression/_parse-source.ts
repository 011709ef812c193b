/**
 * Parses an expression from raw source text that sits at a known place in a
 * document. Invariant: every position it reports, for a node or a syntax
 * error, is absolute in the document, never relative to the source text.
 *
 * @module
 */
import {
  getLineInfo,
  type Options,
  parseExpressionAt,
  type Position,
  tokenizer,
  tokTypes,
} from "acorn";
import type * as estree from "estree";
import { DocumentError } from "../document/document-error.ts";
import type { SourcePosition } from "../document/source-position.ts";
import type { Locate } from "./_compile-tree.ts";

const OPTIONS: Options = { ecmaVersion: "latest", sourceType: "module", locations: true };

/** An expression parsed from source, with the way to place its nodes in the document. */
export interface ParsedSource {
  readonly expression: estree.Expression;
  readonly locate: Locate;
}

/**
 * Parses `source` as exactly one expression whose first character is at
 * `start`; throws a positioned {@linkcode DocumentError} when it is empty,
 * only a comment, not valid JavaScript, or followed by more code.
 */
export function parseSource(source: string, start: SourcePosition): ParsedSource {
  // acorn reports 1-based lines and 0-based columns relative to `source`.
  const place = ({ line, column }: Position): SourcePosition =>
    line === 1
      ? { file: start.file, line: start.line, column: start.column + column }
      : { file: start.file, line: start.line + line - 1, column: column + 1 };
  const at = (offset: number) => place(getLineInfo(source, offset));

  if (firstTokenOffset(source, 0, at) === undefined) {
    throw new DocumentError(
      source.trim() === ""
        ? "Expression is empty: write a value between the braces, e.g. {props.name}"
        : "Expression contains only a comment: write a value between the braces, e.g. {props.name}",
      start,
    );
  }
  let expression: estree.Expression;
  try {
    expression = parseExpressionAt(source, 0, OPTIONS) as unknown as estree.Expression;
  } catch (error) {
    throw syntaxError(error, 0, at);
  }
  const end = (expression as unknown as { end: number }).end;
  const extra = firstTokenOffset(source.slice(end), end, at);
  if (extra !== undefined) {
    throw new DocumentError(
      "Unexpected code after the expression: write exactly one expression",
      at(extra),
    );
  }
  const fallback = place({ line: 1, column: 0 });
  return {
    expression,
    locate: (node) => (node.loc ? place(node.loc.start) : fallback),
  };
}

/** The absolute offset of the first token of `text` (found at `base`), or undefined at its end. */
function firstTokenOffset(
  text: string,
  base: number,
  at: (offset: number) => SourcePosition,
): number | undefined {
  try {
    const token = tokenizer(text, OPTIONS).getToken();
    return token.type === tokTypes.eof ? undefined : base + token.start;
  } catch (error) {
    throw syntaxError(error, base, at);
  }
}

function syntaxError(
  error: unknown,
  base: number,
  at: (offset: number) => SourcePosition,
): unknown {
  const offset = (error as { pos?: unknown }).pos;
  if (!(error instanceof SyntaxError) || typeof offset !== "number") return error;
  // acorn appends "(line:column)" relative to the parsed text; the position replaces it.
  const message = error.message.replace(/ \(\d+:\d+\)$/, "");
  return new DocumentError(`Invalid expression syntax: ${message}`, at(base + offset), {
    cause: error,
  });
}
