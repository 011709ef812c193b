/**
 * The internal document tree. A document is a sequence of parts: verbatim
 * Markdown source text and the holes in it (expressions, elements, exec code
 * blocks). Rendering writes the text and fills the holes in order, so output
 * keeps the author's own formatting and streams as expansion reaches it.
 *
 * Every hole carries its source position; every tree is fully validated when
 * built, so expansion never meets an unknown element or a malformed attribute.
 *
 * @module
 */
import type { CompiledExpression } from "../expression/mod.ts";
import type { SourcePosition } from "./source-position.ts";

/** A part of a rendered region. */
export type Part = TextPart | ExpressionPart | ElementPart | CodePart;

/** Verbatim Markdown source. */
export interface TextPart {
  /** Discriminant. */
  kind: "text";
  /** The text, with the region's indentation removed. */
  text: string;
}

/** An `{expression}` whose value is interpolated. */
export interface ExpressionPart {
  /** Discriminant. */
  kind: "expression";
  /** The compiled expression. */
  expression: CompiledExpression;
}

/** A built-in element or a markdown component invocation. */
export interface ElementPart {
  /** Discriminant. */
  kind: "element";
  /** The element. */
  element: Element;
}

/** An `exec` code block. */
export interface CodePart {
  /** Discriminant. */
  kind: "code";
  /** The block. */
  code: ExecCode;
}

/** An attribute value: a literal string or an expression. */
export type AttributeValue =
  | { kind: "literal"; value: string; position: SourcePosition }
  | { kind: "expression"; expression: CompiledExpression; position: SourcePosition };

/** One element occurrence. */
export interface Element {
  /** `File`, `If`, … or a component name such as `Git.Commit`. */
  name: string;
  /** Whether `name` is a markdown component (resolved at load time) rather than a built-in. */
  component: boolean;
  /** Attributes by name. */
  attributes: ReadonlyMap<string, AttributeValue>;
  /** The rendered children. */
  children: readonly Part[];
  /** Whether the children span several lines (then written files end with a newline). */
  multiline: boolean;
  /** For `<If>`: the `<Else>` that follows it, if any. */
  otherwise?: Element;
  /** Where the element starts. */
  position: SourcePosition;
}

/** An `exec` code block, parsed from its info string. */
export interface ExecCode {
  /** The language (`sh`, `bash`, …). */
  lang: string;
  /** The script: literal text and `{name}` interpolations. */
  script: readonly (string | CompiledExpression)[];
  /** `as="name"`: bind the result instead of printing it. */
  as?: string;
  /** `timeout=…` in milliseconds. */
  timeoutMs: number;
  /** `silent`: hide the output. */
  silent: boolean;
  /** Where the block starts. */
  position: SourcePosition;
}
