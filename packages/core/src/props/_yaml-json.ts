/**
 * YAML nodes read as JSON, with source positions. Invariant: a value that has
 * no exact JSON form (dates, binary, sets, custom tags, non-finite numbers,
 * non-string keys, recursive aliases) is refused at its position rather than
 * converted, so frontmatter means the same in every runtime.
 *
 * @module
 */
import { DocumentError } from "../document/document-error.ts";
import type { SourcePosition } from "../document/source-position.ts";
import { MAX_JSON_DEPTH } from "../json/json-depth.ts";
import type { JsonValue } from "../json/json-value.ts";
import { positionOf, type YamlNode, type YamlSource } from "./yaml-tree.ts";

/** The string a mapping key holds; refuses any other key. */
export function keyString(
  source: YamlSource,
  key: YamlNode | null,
  fallback: SourcePosition,
): string {
  if (key?.kind === "scalar" && typeof key.value === "string" && key.foreignTag === undefined) {
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
  readonly open: Set<YamlNode>;
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
export function yamlToJson(
  source: YamlSource,
  node: YamlNode | null,
  fallback: SourcePosition,
): JsonValue {
  return convert(source, node, fallback, { open: new Set(), copied: 0, alias: undefined }, 0);
}

function convert(
  source: YamlSource,
  node: YamlNode | null,
  fallback: SourcePosition,
  state: Conversion,
  depth: number,
): JsonValue {
  if (node === null) return null;
  const position = positionOf(source, node, fallback);
  if (node.kind === "alias") {
    const target = node.target();
    if (target !== null && state.open.has(target)) {
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
  if (node.foreignTag !== undefined) {
    const tag = node.foreignTag.replace(/^tag:yaml\.org,2002:/, "!!");
    throw new DocumentError(
      `Cannot use the tag ${tag}: frontmatter values must be JSON (strings, numbers, booleans, null, lists and maps)`,
      position,
    );
  }
  if (node.kind === "scalar") {
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
    if (node.kind === "seq") {
      return node.items.map((item) => convert(source, item, position, state, depth + 1));
    }
    return Object.fromEntries(
      node.items.map((pair) => {
        const keyPosition = positionOf(source, pair.key, position);
        return [
          keyString(source, pair.key, position),
          convert(source, pair.value, keyPosition, state, depth + 1),
        ];
      }),
    );
  } finally {
    state.open.delete(node);
  }
}
