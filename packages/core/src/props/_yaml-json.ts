/**
 * YAML nodes read as JSON, with source positions. Invariant: a value that has
 * no exact JSON form (dates, binary, sets, custom tags, non-finite numbers,
 * non-string keys, recursive aliases) is refused at its position rather than
 * converted, so frontmatter means the same in every runtime.
 *
 * @module
 */
import { type Document, isAlias, isMap, isScalar, isSeq, type LineCounter } from "yaml";
import { DocumentError } from "../document/document-error.ts";
import type { SourcePosition } from "../document/source-position.ts";
import type { JsonValue } from "../json/json-value.ts";

/** A parsed YAML text and where it sits in its document. */
export interface YamlSource {
  /** The parsed YAML. */
  readonly doc: Document;
  /** Maps offsets in the YAML text to its lines and columns. */
  readonly lineCounter: LineCounter;
  /** The document's path. */
  readonly file: string;
  /** The document line of the YAML text's first line. */
  readonly startLine: number;
}

const jsonTags: ReadonlySet<string> = new Set(
  ["str", "int", "float", "bool", "null", "map", "seq"].map((name) => `tag:yaml.org,2002:${name}`),
);

/** The document position of `offset` in the YAML text. */
export function positionAt(source: YamlSource, offset: number): SourcePosition {
  const { line, col } = source.lineCounter.linePos(offset);
  return { file: source.file, line: source.startLine + line - 1, column: col };
}

/**
 * The document position where `node` starts, or `fallback` for a node with no
 * source text (the implicit null of `key:`), which is better reported at its key.
 */
export function positionOf(
  source: YamlSource,
  node: unknown,
  fallback: SourcePosition,
): SourcePosition {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  return range === undefined || range[0] === range[1] ? fallback : positionAt(source, range[0]);
}

/** The string a mapping key holds; refuses any other key. */
export function keyString(source: YamlSource, key: unknown, fallback: SourcePosition): string {
  if (isScalar(key) && typeof key.value === "string" && !hasForeignTag(key)) return key.value;
  throw new DocumentError(
    "Cannot use this key: frontmatter keys must be strings; quote it",
    positionOf(source, key, fallback),
  );
}

/** Converts `node` to JSON, refusing what JSON cannot hold exactly. */
export function yamlToJson(source: YamlSource, node: unknown, fallback: SourcePosition): JsonValue {
  return convert(source, node, fallback, new Set());
}

function convert(
  source: YamlSource,
  node: unknown,
  fallback: SourcePosition,
  open: Set<unknown>,
): JsonValue {
  if (node === null || node === undefined) return null;
  const position = positionOf(source, node, fallback);
  if (isAlias(node)) {
    const target = node.resolve(source.doc);
    if (open.has(target)) {
      throw new DocumentError(
        "Cannot use a recursive alias: JSON values cannot contain themselves",
        position,
      );
    }
    return convert(source, target, position, open);
  }
  if (hasForeignTag(node)) {
    const tag = (node as { tag: string }).tag.replace(/^tag:yaml\.org,2002:/, "!!");
    throw new DocumentError(
      `Cannot use the tag ${tag}: frontmatter values must be JSON (strings, numbers, booleans, null, lists and maps)`,
      position,
    );
  }
  if (isScalar(node)) {
    const value = node.value;
    if (value === null || typeof value === "boolean" || typeof value === "string") return value;
    if (typeof value === "number" && Number.isFinite(value)) return value;
    throw new DocumentError(
      "Cannot use this value: frontmatter values must be JSON (finite numbers, strings, booleans, null)",
      position,
    );
  }
  open.add(node);
  try {
    if (isSeq(node)) return node.items.map((item) => convert(source, item, position, open));
    if (isMap(node)) {
      return Object.fromEntries(
        node.items.map((pair) => {
          const keyPosition = positionOf(source, pair.key, position);
          return [
            keyString(source, pair.key, position),
            convert(source, pair.value, keyPosition, open),
          ];
        }),
      );
    }
  } finally {
    open.delete(node);
  }
  throw new DocumentError("Cannot use this value: frontmatter values must be JSON", position);
}

function hasForeignTag(node: unknown): boolean {
  const tag = (node as { tag?: string }).tag;
  return tag !== undefined && !jsonTags.has(tag);
}
