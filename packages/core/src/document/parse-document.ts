/**
 * Parsing: Markdown + MDX JSX + MDX expressions + YAML frontmatter, through the
 * unified micromark packages, into the validated internal tree (`tree.ts`).
 *
 * Invariant: a document that parses is fully checked: every element is a
 * built-in with valid attributes or a component name, every expression
 * compiles under the safe evaluator, every exec block's modifiers are valid.
 * Anything else is a `DocumentError` naming file, line and column, raised
 * before anything runs.
 *
 * @module
 */
import { parseExpressionAt } from "acorn";
import type { Program } from "estree";
import type { Nodes, Root, RootContent } from "mdast";
import { type CompiledExpression, compileEstree, compileSource } from "../expression/mod.ts";
import { compileGlob, GlobPatternError } from "../glob/mod.ts";
import type { JsonObject } from "../json/json-value.ts";
import { frontmatterNeedsYamlLibrary } from "../props/frontmatter.ts";
import { parseFrontmatter, type PropsSpec } from "../props/mod.ts";
import { loadYamlLibrary } from "../props/yaml-library.ts";
import { type AttributeRule, BUILTINS, RESERVED_NAMES } from "./builtins.ts";
import { parseCodeModifiers } from "./code-info.ts";
import { DocumentError } from "./document-error.ts";
import { documentLibraries } from "./document-libraries.ts";
import { documentText } from "./document-text.ts";
import { checkNesting } from "./nesting-limit.ts";
import { parsePlainProseShort } from "./plain-prose.ts";
import type { SourcePosition } from "./source-position.ts";
import { selectTarget } from "./select-target.ts";
import type { AttributeValue, Element, ExecCode, Part } from "./tree.ts";

/** Default bound for an exec block without `timeout=`. */
export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;

/** A parsed, validated document. */
export interface ParsedDocument {
  /** The file label used in positions (relative to the root document's folder). */
  file: string;
  /** The typed props its frontmatter declares. */
  props: PropsSpec;
  /** The rest of its frontmatter. */
  meta: JsonObject;
  /** The parts to render. */
  parts: readonly Part[];
  /** Every component name it invokes, with the first position of each. */
  components: ReadonlyMap<string, SourcePosition>;
}

/** Options for {@linkcode parseDocument}. */
export interface ParseOptions {
  /** `Section/Sub`: render only the preamble, the ancestors' direct content and this subtree. */
  target?: string;
  /** Whether the document is a component (so `<Content />` is allowed). */
  component?: boolean;
}

type MdxNode = Nodes & {
  name?: string | null;
  attributes?: MdxAttribute[];
  data?: { estree?: Program | null };
};
type MdxAttribute = {
  type: string;
  name: string;
  value?: string | null | { type: string; value: string; data?: { estree?: Program | null } };
  position?: { start: { line: number; column: number } };
};

interface Hole {
  start: number;
  end: number;
  part: Part | null;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const COMPONENT_NAME = /^[A-Z][A-Za-z0-9]*(\.[A-Z][A-Za-z0-9]*)*$/;

/**
 * Parses and validates one document.
 *
 * @example Parsing a document
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadDocumentLibraries } from "./document-libraries.ts";
 * import { parseDocument } from "./parse-document.ts";
 * await loadDocumentLibraries();
 * const doc = parseDocument("# Hello {props.name}\n", "hello.md");
 * assert.deepEqual(doc.parts.map((part) => part.kind), ["text", "expression"]);
 * assert.deepEqual(doc.parts[0], { kind: "text", text: "# Hello " });
 * ```
 */
export function parseDocument(
  text: string,
  file: string,
  options: ParseOptions = {},
): ParsedDocument {
  const source = documentText(text);
  const tree = parseMdast(source, file);
  checkNesting(tree, file);
  return new DocumentBuilder(source, file, options).build(tree);
}

/**
 * {@linkcode parseDocument}, loading the `yaml` package first when the
 * document's frontmatter is beyond the plain reader (MDX-111): what
 * `loadProgram` calls, so only such documents load it.
 */
export async function parseDocumentLoadingYaml(
  text: string,
  file: string,
  options: ParseOptions = {},
): Promise<ParsedDocument> {
  const source = documentText(text);
  const tree = parseMdast(source, file);
  checkNesting(tree, file);
  const yaml = tree.children.find((node) => node.type === "yaml");
  if (yaml !== undefined && frontmatterNeedsYamlLibrary(yaml.value)) await loadYamlLibrary();
  return new DocumentBuilder(source, file, options).build(tree);
}

function parseMdast(text: string, file: string): Root {
  const { frontmatter, frontmatterFromMarkdown, fromMarkdown, mdxFromMarkdown, mdxjs } =
    documentLibraries();
  try {
    return parsePlainProseShort(text, (source) =>
      fromMarkdown(source, {
        extensions: [frontmatter(["yaml"]), mdxjs()],
        mdastExtensions: [frontmatterFromMarkdown(["yaml"]), mdxFromMarkdown()],
      }));
  } catch (error) {
    const place = (error as { place?: unknown }).place as
      | { line?: number; column?: number; start?: { line: number; column: number } }
      | undefined;
    const reason = (error as { reason?: string }).reason ?? String(error);
    // Some mdast-util-mdx-jsx errors carry their place only in the reason: "(3:1-3:22)".
    const inReason = /\((\d+):(\d+)(?:-\d+:\d+)?\)\s*$/.exec(reason);
    const point = place?.start ?? place ??
      (inReason ? { line: Number(inReason[1]), column: Number(inReason[2]) } : undefined);
    const position = { file, line: point?.line ?? 1, column: point?.column ?? 1 };
    if ((error as { ruleId?: unknown }).ruleId === "acorn") {
      // The markdown parser names the expression parser it uses; the user needs the
      // JavaScript syntax error it found, as for an expression xmd parses itself.
      const cause = (error as { cause?: unknown }).cause;
      const syntax = cause instanceof Error ? `: ${sentence(cause.message)}` : "";
      throw new DocumentError(
        reason.includes("import/export")
          ? `Invalid import or export syntax${syntax}: a document cannot use import or export; use markdown components and props instead`
          : `Invalid expression syntax${syntax}: write one JavaScript expression between the braces`,
        position,
      );
    }
    throw new DocumentError(
      `${sentence(reason)}: check that every element is closed and every { has a matching }`,
      position,
    );
  }
}

class DocumentBuilder {
  #components = new Map<string, SourcePosition>();

  constructor(
    readonly text: string,
    readonly file: string,
    readonly options: ParseOptions,
  ) {}

  build(tree: Root): ParsedDocument {
    let props: PropsSpec = [];
    let meta: JsonObject = {};
    const body: RootContent[] = [];
    for (const node of tree.children) {
      if (node.type === "yaml") {
        const fm = parseFrontmatter(node.value, this.file, node.position!.start.line + 1);
        props = fm.props;
        meta = fm.meta;
      } else {
        body.push(node);
      }
    }
    const ranges = this.options.target === undefined
      ? [body]
      : selectTarget(body, this.options.target, this.file);
    const parts: Part[] = [];
    for (const range of ranges) {
      if (range.length === 0) continue;
      if (parts.length > 0) parts.push({ kind: "text", text: "\n\n" });
      parts.push(...this.region(range, 0));
    }
    return { file: this.file, props, meta, parts, components: this.#components };
  }

  /** Renders a run of sibling nodes as source text with holes, removing `indent` leading spaces per line. */
  region(nodes: readonly Nodes[], indent: number): Part[] {
    if (nodes.length === 0) return [];
    const start = nodes[0].position!.start.offset!;
    const end = nodes[nodes.length - 1].position!.end.offset!;
    const holes: Hole[] = [];
    for (const node of nodes) this.collect(node as MdxNode, holes);
    const parts: Part[] = [];
    let cursor = start;
    for (const hole of holes) {
      this.pushText(parts, this.text.slice(cursor, hole.start), indent);
      if (hole.part) parts.push(hole.part);
      cursor = hole.end;
    }
    this.pushText(parts, this.text.slice(cursor, end), indent);
    return attachElse(parts);
  }

  pushText(parts: Part[], text: string, indent: number): void {
    if (text === "") return;
    const dedented = indent > 0 ? text.replace(new RegExp(`\\n {1,${indent}}`, "g"), "\n") : text;
    parts.push({ kind: "text", text: dedented });
  }

  collect(node: MdxNode, holes: Hole[]): void {
    const start = node.position!.start.offset!;
    const end = node.position!.end.offset!;
    switch (node.type) {
      case "mdxTextExpression":
      case "mdxFlowExpression": {
        const program = node.data?.estree;
        const part: Part | null = program && program.body.length > 0
          ? { kind: "expression", expression: compileEstree(program, this.file) }
          : null; // `{/* comment */}` renders nothing
        holes.push({ start, end, part });
        return;
      }
      case "mdxJsxFlowElement":
      case "mdxJsxTextElement": {
        const name = node.name ?? "";
        if (/^[a-z]/.test(name)) {
          this.checkHtmlAttributes(node);
          break; // HTML-like elements render verbatim; their children may hold holes
        }
        holes.push({ start, end, part: this.element(node) });
        return;
      }
      case "mdxjsEsm":
        throw new DocumentError(
          "Cannot use import or export in a document: use markdown components and props instead",
          this.position(node),
        );
      case "code": {
        const modifiers = parseCodeModifiers(node.meta ?? null, this.position(node));
        this.checkFenceClosed(node);
        if (modifiers.exec) {
          const code: ExecCode = {
            lang: node.lang ?? "",
            script: this.script(node.value, node),
            as: modifiers.as,
            timeoutMs: modifiers.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS,
            silent: modifiers.silent,
            position: this.position(node),
          };
          if (code.as && RESERVED_NAMES.has(code.as)) {
            throw new DocumentError(`Cannot bind "${code.as}": it is reserved`, code.position);
          }
          holes.push({ start, end, part: { kind: "code", code } });
        }
        return;
      }
    }
    if ("children" in node) {
      for (const child of node.children) this.collect(child as MdxNode, holes);
    }
  }

  element(node: MdxNode): Part {
    const name = node.name;
    const position = this.position(node);
    if (!name) {
      throw new DocumentError(
        "Cannot use a fragment <>…</>: remove it or use an element",
        position,
      );
    }
    const builtin = BUILTINS[name];
    if (!builtin && !COMPONENT_NAME.test(name)) {
      throw new DocumentError(
        `Unknown element <${name}>: use a built-in (${
          Object.keys(BUILTINS).join(", ")
        }) or a component name like Greeting or Git.Commit`,
        position,
      );
    }
    const attributes = this.attributes(node, name, builtin?.attributes);
    if (builtin) {
      for (const required of builtin.required) {
        if (!attributes.has(required)) {
          throw new DocumentError(`<${name}> needs the attribute ${required}`, position);
        }
      }
      const as = attributes.get("as");
      if (as?.kind === "literal" && RESERVED_NAMES.has(as.value)) {
        throw new DocumentError(`Cannot bind "${as.value}": it is reserved`, as.position);
      }
      if (name === "Content" && !this.options.component) {
        throw new DocumentError(
          "<Content /> is only allowed inside a markdown component",
          position,
        );
      }
    } else if (!this.#components.has(name)) {
      this.#components.set(name, position);
    }
    const kids = ("children" in node ? node.children : []) as Nodes[];
    const ownLines = node.type === "mdxJsxFlowElement" && kids.length > 0 &&
      kids[0].position!.start.line > node.position!.start.line;
    const indent = ownLines ? kids[0].position!.start.column - 1 : 0;
    const element: Element = {
      name,
      component: !builtin,
      attributes,
      children: this.region(kids, indent),
      multiline: ownLines,
      position,
    };
    if (builtin) this.checkChildren(element);
    return { kind: "element", element };
  }

  checkChildren(element: Element): void {
    const hasChildren = element.children.some((part) =>
      part.kind !== "text" || part.text.trim() !== ""
    );
    const forbidChildren = (why: string) => {
      if (hasChildren) throw new DocumentError(why, element.position);
    };
    switch (element.name) {
      case "Let":
        if (element.attributes.has("value")) {
          forbidChildren("<Let> takes either value={…} or children, not both");
        }
        break;
      case "File":
        if (element.attributes.has("as")) {
          forbidChildren(`<File as="…"> reads a file and takes no children`);
        }
        break;
      case "Glob":
        forbidChildren("<Glob> takes no children");
        for (const name of ["include", "exclude"]) {
          const value = element.attributes.get(name);
          if (value?.kind !== "literal") continue;
          try {
            compileGlob(value.value);
          } catch (error) {
            if (!(error instanceof GlobPatternError)) throw error;
            throw new DocumentError(error.message, value.position);
          }
        }
        break;
      case "Fail":
        forbidChildren("<Fail> takes no children: put the text in message");
        break;
      case "Content":
        forbidChildren("<Content /> takes no children");
        break;
    }
  }

  attributes(
    node: MdxNode,
    name: string,
    rules: Readonly<Record<string, AttributeRule>> | undefined,
  ): Map<string, AttributeValue> {
    const result = new Map<string, AttributeValue>();
    for (const attribute of node.attributes ?? []) {
      const position = attribute.position
        ? {
          file: this.file,
          line: attribute.position.start.line,
          column: attribute.position.start.column,
        }
        : this.position(node);
      if (attribute.type !== "mdxJsxAttribute") {
        throw new DocumentError(
          `Cannot spread attributes into <${name}>: write each attribute by name`,
          position,
        );
      }
      if (result.has(attribute.name)) {
        throw new DocumentError(`Duplicate attribute ${attribute.name} on <${name}>`, position);
      }
      const rule = rules ? rules[attribute.name] : "any";
      if (rule === undefined) {
        const known = Object.keys(rules!);
        throw new DocumentError(
          `Unknown attribute ${attribute.name} on <${name}>: ${
            known.length ? `it accepts ${known.join(", ")}` : "it accepts none"
          }`,
          position,
        );
      }
      const value = attribute.value;
      if (value === null || value === undefined) {
        throw new DocumentError(
          `Attribute ${attribute.name} on <${name}> needs a value: write ${attribute.name}="…" or ${attribute.name}={…}`,
          position,
        );
      }
      if (typeof value === "string") {
        if (rule === "expression") {
          throw new DocumentError(
            `Attribute ${attribute.name} on <${name}> takes an expression: write ${attribute.name}={…}`,
            position,
          );
        }
        if (rule === "name" && !IDENTIFIER.test(value)) {
          throw new DocumentError(
            `Invalid ${attribute.name}="${value}" on <${name}>: use a name made of letters, digits and _`,
            position,
          );
        }
        result.set(attribute.name, { kind: "literal", value, position });
        continue;
      }
      if (rule === "name") {
        throw new DocumentError(
          `Attribute ${attribute.name} on <${name}> takes a literal name: write ${attribute.name}="x"`,
          position,
        );
      }
      const program = value.data?.estree;
      if (!program || program.body.length === 0) {
        throw new DocumentError(
          `Attribute ${attribute.name} on <${name}> has an empty expression`,
          position,
        );
      }
      result.set(attribute.name, {
        kind: "expression",
        expression: compileEstree(program, this.file),
        position,
      });
    }
    return result;
  }

  checkHtmlAttributes(node: MdxNode): void {
    for (const attribute of node.attributes ?? []) {
      if (attribute.type !== "mdxJsxAttribute" || typeof attribute.value === "object") {
        throw new DocumentError(
          `Cannot use an expression in an attribute of the HTML element <${node.name}>: HTML is rendered verbatim`,
          this.position(node),
        );
      }
    }
  }

  checkFenceClosed(node: MdxNode): void {
    const source = this.text.slice(node.position!.start.offset!, node.position!.end.offset!);
    const open = /^[ \t]*(`{3,}|~{3,})/.exec(source);
    if (!open) return; // indented code block
    // Inside a blockquote every line after the first repeats the `>` markers
    // that precede the opening fence; strip as many before reading the last line.
    const start = node.position!.start.offset!;
    const prefix = this.text.slice(this.text.lastIndexOf("\n", start - 1) + 1, start);
    const quotes = prefix.split(">").length - 1;
    const lines = source.split("\n");
    const last = lines[lines.length - 1].replace(new RegExp(`^(?:[ \\t]*>){${quotes}}`), "")
      .trim();
    const fence = open[1];
    const closed = lines.length > 1 && last.startsWith(fence[0].repeat(fence.length)) &&
      /^(`+|~+)$/.test(last);
    if (!closed) {
      throw new DocumentError(
        `Unterminated code block: close it with ${fence} on a line of its own`,
        this.position(node),
      );
    }
  }

  /** Splits an exec block's text into literal text and `{expr}` interpolations. */
  script(value: string, node: MdxNode): (string | CompiledExpression)[] {
    const result: (string | CompiledExpression)[] = [];
    const firstLine = node.position!.start.line + 1;
    const indent = node.position!.start.column - 1;
    let literal = "";
    let index = 0;
    while (index < value.length) {
      const char = value[index];
      if (char === "\\" && value[index + 1] === "{") {
        literal += "{";
        index += 2;
        continue;
      }
      if (char === "{" && value[index - 1] !== "$" && /[^\s}]/.test(value[index + 1] ?? " ")) {
        const close = matchingBrace(value, index);
        const inner = close < 0 ? "" : value.slice(index + 1, close);
        if (close >= 0 && isExpression(inner)) {
          const at = pointAt(value, index + 1, firstLine, indent, this.file);
          if (literal) result.push(literal);
          literal = "";
          result.push(compileSource(inner, at));
          index = close + 1;
          continue;
        }
        // Not JavaScript (awk '{print $1}', {1..3}): shell text, kept as written.
      }
      literal += char;
      index++;
    }
    if (literal) result.push(literal);
    return result;
  }

  position(node: Nodes): SourcePosition {
    return {
      file: this.file,
      line: node.position?.start.line ?? 1,
      column: node.position?.start.column ?? 1,
    };
  }
}

/** Whether `text` is exactly one JavaScript expression other than a comma list (it may still be a refused one). */
function isExpression(text: string): boolean {
  try {
    const node = parseExpressionAt(text, 0, { ecmaVersion: "latest" }) as unknown as {
      type: string;
      end: number;
    };
    // `{a,b}` is shell brace expansion, never a (refused) comma expression.
    return node.type !== "SequenceExpression" && text.slice(node.end).trim() === "";
  } catch {
    return false;
  }
}

function matchingBrace(text: string, open: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let index = open; index < text.length; index++) {
    const char = text[index];
    if (quote) {
      if (char === "\\") index++;
      else if (char === quote) quote = null;
      continue;
    }
    if (char === '"' || char === "'" || char === "`") quote = char;
    else if (char === "{") depth++;
    else if (char === "}" && --depth === 0) return index;
    else if (char === "\n" && depth === 1 && text[index - 1] === "\n") return -1;
  }
  return -1;
}

function pointAt(
  text: string,
  index: number,
  firstLine: number,
  indent: number,
  file: string,
): SourcePosition {
  const before = text.slice(0, index);
  const lineIndex = before.split("\n").length - 1;
  const column = index - (before.lastIndexOf("\n") + 1) + 1 + indent;
  return { file, line: firstLine + lineIndex, column };
}

/** Attaches each `<Else>` to the `<If>` before it (whitespace between is dropped). */
function attachElse(parts: Part[]): Part[] {
  const result: Part[] = [];
  for (const part of parts) {
    if (part.kind === "element" && part.element.name === "Else") {
      let index = result.length - 1;
      while (index >= 0 && result[index].kind === "text" && isBlank(result[index])) index--;
      const previous = result[index];
      if (
        !previous || previous.kind !== "element" || previous.element.name !== "If" ||
        previous.element.otherwise
      ) {
        throw new DocumentError(
          "<Else> must directly follow an <If>",
          part.element.position,
        );
      }
      result.length = index + 1;
      result[index] = {
        kind: "element",
        element: { ...previous.element, otherwise: part.element },
      };
      continue;
    }
    result.push(part);
  }
  return result;
}

function isBlank(part: Part): boolean {
  return part.kind === "text" && part.text.trim() === "";
}

function sentence(text: string): string {
  const trimmed = text.replace(/\s*\([^)]*\)\s*$/, "").trim();
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
}
