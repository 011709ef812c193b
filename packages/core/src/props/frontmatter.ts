/**
 * A document's YAML frontmatter: its typed props and its metadata.
 * Invariant: frontmatter that parses yields JSON only and a props spec whose
 * every schema is in the supported subset and compiles; anything else is a
 * DocumentError at the offending key or value, before anything runs.
 *
 * @module
 */
import { DocumentError } from "../document/document-error.ts";
import type { SourcePosition } from "../document/source-position.ts";
import type { JsonObject, JsonValue } from "../json/json-value.ts";
import { checkPropSchema } from "./_prop-schema.ts";
import { parseWithYamlLibrary } from "./_yaml-library-tree.ts";
import { readPlainYaml } from "./_yaml-subset.ts";
import { keyString, yamlToJson } from "./_yaml-json.ts";
import { positionAt, positionOf, type YamlPair, type YamlSource, yamlSource } from "./yaml-tree.ts";
import { createPropSpec, type PropSpec, type PropsSpec } from "./props-spec.ts";

/** What a document's frontmatter declares. */
export interface Frontmatter {
  /** The props, from `props` and the top-level `required`. */
  readonly props: PropsSpec;
  /** Every other key, bound as `meta` in expressions. */
  readonly meta: JsonObject;
}

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses frontmatter YAML. `startLine` is the document line of the YAML's
 * first line (the line after the opening `---`), so refusals point into the
 * document. Empty frontmatter declares no props and no metadata.
 *
 * @example Reading props and metadata
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFrontmatter } from "./frontmatter.ts";
 * const { props, meta } = parseFrontmatter(
 *   "title: Release\nrequired: [version]\nprops:\n  version:\n    type: string\n",
 *   "release.md",
 *   2,
 * );
 * assert.equal(meta.title, "Release");
 * assert.equal(props[0].optionName, "props-version");
 * assert.equal(props[0].required, true);
 * ```
 */
export function parseFrontmatter(yamlText: string, file: string, startLine: number): Frontmatter {
  const parsed = readPlainYaml(yamlText) ?? parseWithYamlLibrary(yamlText);
  const source = yamlSource(yamlText, file, startLine);
  const start: SourcePosition = { file, line: startLine, column: 1 };
  if (!parsed.ok) {
    throw new DocumentError(
      `Cannot parse the frontmatter: ${parsed.message}; fix the YAML`,
      positionAt(source, parsed.offset),
    );
  }
  const contents = parsed.contents;
  if (contents === null || (contents.kind === "scalar" && contents.value === null)) {
    return { props: [], meta: {} };
  }
  if (contents.kind !== "map") {
    throw new DocumentError(
      "Cannot read the frontmatter: it must be a map of keys (props, required and metadata)",
      positionOf(source, contents, start),
    );
  }
  let propsPair: YamlPair | undefined;
  let requiredPair: YamlPair | undefined;
  const meta: [string, JsonValue][] = [];
  for (const pair of contents.items) {
    const key = keyString(source, pair.key, start);
    if (key === "props") propsPair = pair;
    else if (key === "required") requiredPair = pair;
    else meta.push([key, yamlToJson(source, pair.value, positionOf(source, pair.key, start))]);
  }
  const declared = propsPair === undefined ? [] : readProps(source, propsPair, start);
  const required = requiredPair === undefined
    ? new Set<string>()
    : readRequired(source, requiredPair, declared, start);
  const props = declared.map(({ name, schema }) =>
    createPropSpec(name, schema, required.has(name))
  );
  checkNamesDistinct(props, declared);
  return { props, meta: Object.fromEntries(meta) };
}

/** Whether frontmatter `yamlText` is beyond the plain reader, so only the `yaml` package reads it. */
export function frontmatterNeedsYamlLibrary(yamlText: string): boolean {
  return readPlainYaml(yamlText) === undefined;
}

interface DeclaredProp {
  readonly name: string;
  readonly schema: JsonObject;
  readonly at: SourcePosition;
}

function readProps(source: YamlSource, pair: YamlPair, start: SourcePosition): DeclaredProp[] {
  const keyAt = positionOf(source, pair.key, start);
  const node = pair.value;
  if (node?.kind !== "map") {
    throw new DocumentError(
      "Cannot read props: it must be a map of prop names to JSON Schemas",
      positionOf(source, node, keyAt),
    );
  }
  return node.items.map((prop) => {
    const name = keyString(source, prop.key, keyAt);
    const at = positionOf(source, prop.key, keyAt);
    if (!identifier.test(name) || !/[A-Za-z0-9]/.test(name)) {
      throw new DocumentError(
        `Cannot declare prop "${name}": a prop name must be an identifier (letters, digits and _, not starting with a digit)`,
        at,
      );
    }
    if (name === "__proto__") {
      throw new DocumentError(`Cannot declare prop "${name}": the name is reserved`, at);
    }
    return { name, schema: checkPropSchema(source, prop.value, at), at };
  });
}

function readRequired(
  source: YamlSource,
  pair: YamlPair,
  declared: readonly DeclaredProp[],
  start: SourcePosition,
): Set<string> {
  const keyAt = positionOf(source, pair.key, start);
  const node = pair.value;
  if (node?.kind !== "seq") {
    throw new DocumentError(
      "Cannot read required: it must be a list of prop names",
      positionOf(source, node, keyAt),
    );
  }
  const names = new Set<string>();
  for (const item of node.items) {
    const at = positionOf(source, item, keyAt);
    const name = yamlToJson(source, item, keyAt);
    if (typeof name !== "string") {
      throw new DocumentError("Cannot read required: it must be a list of prop names", at);
    }
    if (!declared.some((prop) => prop.name === name)) {
      throw new DocumentError(
        `Cannot require "${name}": no such prop is declared under props; declare it or remove it`,
        at,
      );
    }
    if (names.has(name)) throw new DocumentError(`Cannot require "${name}" twice`, at);
    names.add(name);
  }
  return names;
}

/** Two names such as `dryRun` and `dry_run` would share `--props-dry-run`. */
function checkNamesDistinct(props: PropsSpec, declared: readonly DeclaredProp[]): void {
  const byOption = new Map<string, PropSpec>();
  props.forEach((prop, index) => {
    const other = byOption.get(prop.optionName);
    if (other !== undefined) {
      throw new DocumentError(
        `Cannot declare prop "${prop.name}": its option --${prop.optionName} is already used by prop "${other.name}"; rename one of them`,
        declared[index].at,
      );
    }
    byOption.set(prop.optionName, prop);
  });
}
