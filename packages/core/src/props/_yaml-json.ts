/**
 * YAML nodes read as JSON, with source positions. Invariant: a value that has
 * no exact JSON form (dates, binary, sets, custom tags, non-finite numbers,
 * non-string keys, recursive aliases) is refused at its position rather than
 * converted, so frontmatter means the same in every runtime.
 *
 * @module
 */
import type { Document, LineCounter } from "yaml";
import { documentLibraries } from "../document/document-libraries.ts";
import { DocumentError } from "../document/document-error.ts";
import type { SourcePosition } from "../document/source-position.ts";
import { MAX_JSON_DEPTH } from "../json/json-depth.ts";
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

const yaml = () => documentLibraries().yaml;

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
  if (yaml().isScalar(key) && typeof key.value === "string" && !hasForeignTag(key)) {
    return key.value;
  }
  throw new DocumentError(
    "Cannot use this key: frontmatter keys must be strings; quote it",
    positionOf(source, key, fallback),
  );
}

/** How many values aliases may copy into one frontmatter, counting each copy. */
export const MAX_ALIAS_VALUES = 10_000;

/** A conversion's state: the nodes being converted (a recursive alias reaches one of them again). */
interface Conversion {
  readonly open: Set<unknown>;
  /** Values copied so far by expanding aliases. */
  copied: number;
  /** The outermost alias being expanded, if any. */
  alias: SourcePosition | undefined;
}

/**
 * Converts `node` to JSON, refusing what JSON cannot hold exactly, a value
 * nested more than `MAX_JSON_DEPTH` deep, and aliases that would copy more
 * than `MAX_ALIAS_VALUES` values (a few lines of aliases of aliases expand
 * exponentially).
 */
export function yamlToJson(source: YamlSource, node: unknown, fallback: SourcePosition): JsonValue {
  return convert(source, node, fallback, { open: new Set(), copied: 0, alias: undefined }, 0);
}

function convert(
  source: YamlSource,
  node: unknown,
  fallback: SourcePosition,
  state: Conversion,
  depth: number,
): JsonValue {
  if (node === null || node === undefined) return null;
  const position = positionOf(source, node, fallback);
  if (yaml().isAlias(node)) {
    const target = node.resolve(source.doc);
    if (state.open.has(target)) {
      throw new DocumentError(
        "Cannot use a recursive alias: JSON values cannot contain themselves",
        position,
      );
    }
    const outermost = state.alias === undefined;
    if (outermost) state.alias = position;
    try {
      return convert(source, target, position, state, depth);
    } finally {
      if (outermost) state.alias = undefined;
    }
  }
  if (state.alias !== undefined && ++state.copied > MAX_ALIAS_VALUES) {
    throw new DocumentError(
      `Cannot expand this alias: it would copy more than ${MAX_ALIAS_VALUES} values; write the values out or use fewer aliases`,
      state.alias,
    );
  }
  if (hasForeignTag(node)) {
    const tag = (node as { tag: string }).tag.replace(/^tag:yaml\.org,2002:/, "!!");
    throw new DocumentError(
      `Cannot use the tag ${tag}: frontmatter values must be JSON (strings, numbers, booleans, null, lists and maps)`,
      position,
    );
  }
  if (yaml().isScalar(node)) {
    const value = node.value;
    if (value === null || typeof value === "boolean" || typeof value === "string") return value;
    if (typeof value === "number" && Number.isFinite(value)) return value;
    throw new DocumentError(
      "Cannot use this value: frontmatter values must be JSON (finite numbers, strings, booleans, null)",
      position,
    );
  }
  if (depth === MAX_JSON_DEPTH) {
    throw new DocumentError(
      `Cannot nest lists and maps more than ${MAX_JSON_DEPTH} levels deep in the frontmatter`,
      position,
    );
  }
  state.open.add(node);
  try {
    if (yaml().isSeq(node)) {
      return node.items.map((item) => convert(source, item, position, state, depth + 1));
    }
    if (yaml().isMap(node)) {
      return Object.fromEntries(
        node.items.map((pair) => {
          const keyPosition = positionOf(source, pair.key, position);
          return [
            keyString(source, pair.key, position),
            convert(source, pair.value, keyPosition, state, depth + 1),
          ];
        }),
      );
    }
  } finally {
    state.open.delete(node);
  }
  throw new DocumentError("Cannot use this value: frontmatter values must be JSON", position);
}

function hasForeignTag(node: unknown): boolean {
  const tag = (node as { tag?: string }).tag;
  return tag !== undefined && !jsonTags.has(tag);
}
