/**
 * Frontmatter read by the `yaml` package (YAML 1.2, core schema), as a
 * `yaml-tree.ts` tree: what `_yaml-subset.ts` does not read. Invariant: each
 * node keeps its identity (an alias's target is the node it names, so a
 * recursive alias reaches its own ancestor), its start offset and whether it
 * is empty; only a tag outside JSON's is kept.
 *
 * @module
 */
import type { Node as LibraryNode, Pair } from "yaml";
import { MAX_JSON_DEPTH } from "../json/json-depth.ts";
import { yamlLibrary } from "./yaml-library.ts";
import type { YamlNode, YamlPair, YamlParse } from "./yaml-tree.ts";

const jsonTags: ReadonlySet<string> = new Set(
  ["str", "int", "float", "bool", "null", "map", "seq"].map((name) => `tag:yaml.org,2002:${name}`),
);

/** Parses `text` with the `yaml` package (loaded before, by `loadYamlLibrary`). */
export function parseWithYamlLibrary(text: string): YamlParse {
  const { parseDocument, isAlias, isMap, isScalar, isSeq } = yamlLibrary().yaml;
  const doc = parseDocument(text, { prettyErrors: false });
  const [error] = doc.errors;
  if (error !== undefined) {
    // The YAML parser recurses per level and reports its own stack overflow as a parse error.
    const message = /Maximum call stack size exceeded/.test(error.message)
      ? `it nests lists and maps far more than ${MAX_JSON_DEPTH} levels deep`
      : error.message;
    return { ok: false, message, offset: error.pos[0] };
  }
  const converted = new Map<unknown, YamlNode>();
  const convert = (node: unknown): YamlNode | null => {
    if (node === null || node === undefined) return null;
    const known = converted.get(node);
    if (known !== undefined) return known;
    const range = (node as { range?: [number, number, number] }).range;
    const tag = (node as { tag?: string }).tag;
    const placed = {
      start: range?.[0] ?? 0,
      empty: range === undefined || range[0] === range[1],
      ...(tag !== undefined && !jsonTags.has(tag) ? { foreignTag: tag } : {}),
    };
    if (isAlias(node)) {
      const alias: YamlNode = {
        kind: "alias",
        ...placed,
        target: () => convert(node.resolve(doc) as LibraryNode | undefined),
      };
      converted.set(node, alias);
      return alias;
    }
    if (isScalar(node)) {
      const scalar: YamlNode = { kind: "scalar", ...placed, value: node.value };
      converted.set(node, scalar);
      return scalar;
    }
    if (isSeq(node)) {
      const items: (YamlNode | null)[] = [];
      converted.set(node, { kind: "seq", ...placed, items });
      for (const item of node.items) items.push(convert(item));
      return converted.get(node)!;
    }
    if (isMap(node)) {
      const items: YamlPair[] = [];
      converted.set(node, { kind: "map", ...placed, items });
      for (const pair of node.items as Pair[]) {
        items.push({ key: convert(pair.key), value: convert(pair.value) });
      }
      return converted.get(node)!;
    }
    // Never a user's mistake: the parser makes only these four kinds of node.
    throw new Error("The YAML parser returned a node of no known kind; this is a bug in xmd");
  };
  return { ok: true, contents: convert(doc.contents) };
}
