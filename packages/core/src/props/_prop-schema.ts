/**
 * The JSON Schema subset a prop may use. Invariant: a schema accepted here
 * holds only the subset's keywords, each value of its kind and each
 * type-specific keyword under its type, so `subset-validator.ts` can check
 * values against it; its `pattern` is a valid regular expression, and its
 * `enum` members and `default` validate against it, so validating props never
 * fails for a reason the author could have been told at load time.
 *
 * @module
 */
import { DocumentError } from "../document/document-error.ts";
import type { SourcePosition } from "../document/source-position.ts";
import type { JsonObject, JsonValue } from "../json/json-value.ts";
import { type SchemaProblem, schemaProblems } from "./subset-validator.ts";
import { keyString, yamlToJson } from "./_yaml-json.ts";
import { positionOf, type YamlNode, type YamlSource } from "./yaml-tree.ts";

const supportedKeywords = [
  "type",
  "enum",
  "pattern",
  "minimum",
  "maximum",
  "items",
  "properties",
  "required",
  "default",
  "description",
] as const;

const schemaTypes = ["string", "number", "integer", "boolean", "array", "object", "null"];

/** The types each type-specific keyword applies to; strict mode refuses them elsewhere. */
const keywordTypes: Readonly<Record<string, readonly string[]>> = {
  pattern: ["string"],
  minimum: ["number", "integer"],
  maximum: ["number", "integer"],
  items: ["array"],
  properties: ["object"],
  required: ["object"],
};

/** Reads a prop schema from its YAML node, checking it and its nested schemas. */
export function checkPropSchema(
  source: YamlSource,
  node: YamlNode | null,
  fallback: SourcePosition,
): JsonObject {
  const at = positionOf(source, node, fallback);
  if (node?.kind !== "map") {
    throw new DocumentError(
      `Cannot read this schema: it must be a map of JSON Schema keywords (${listKeywords()})`,
      at,
    );
  }
  const entries: [string, JsonValue][] = [];
  const keyPositions = new Map<string, SourcePosition>();
  const valueNodes = new Map<string, YamlNode | null>();
  for (const pair of node.items) {
    const keyword = keyString(source, pair.key, at);
    const keyAt = positionOf(source, pair.key, at);
    if (!(supportedKeywords as readonly string[]).includes(keyword)) {
      throw new DocumentError(
        `Unsupported schema keyword "${keyword}": use ${listKeywords()}`,
        keyAt,
      );
    }
    keyPositions.set(keyword, keyAt);
    valueNodes.set(keyword, pair.value);
    entries.push([keyword, readKeyword(source, keyword, pair.value, keyAt)]);
  }
  const schema: JsonObject = Object.fromEntries(entries);
  checkApplicable(schema, keyPositions);
  checkRequiredDeclared(source, schema, valueNodes.get("required"), keyPositions);
  checkEnum(source, schema, valueNodes.get("enum"), keyPositions);
  checkDefault(source, schema, valueNodes.get("default"), keyPositions);
  return schema;
}

function readKeyword(
  source: YamlSource,
  keyword: string,
  node: YamlNode | null,
  keyAt: SourcePosition,
): JsonValue {
  const at = positionOf(source, node, keyAt);
  const refuse = (expected: string): never => {
    throw new DocumentError(`Cannot use this "${keyword}": it must be ${expected}`, at);
  };
  switch (keyword) {
    case "items":
      return checkPropSchema(source, node, keyAt);
    case "properties":
      if (node?.kind !== "map") return refuse("a map of property names to schemas");
      return Object.fromEntries(node.items.map((pair) => {
        const nameAt = positionOf(source, pair.key, at);
        return [keyString(source, pair.key, at), checkPropSchema(source, pair.value, nameAt)];
      }));
  }
  const value = yamlToJson(source, node, keyAt);
  switch (keyword) {
    case "type":
      if (typeof value !== "string" || !schemaTypes.includes(value)) {
        return refuse(`one of ${schemaTypes.map((type) => `"${type}"`).join(", ")}`);
      }
      return value;
    case "enum":
      if (!Array.isArray(value) || value.length === 0) return refuse("a non-empty list");
      return value;
    case "pattern":
      if (typeof value !== "string") return refuse("a regular expression string");
      try {
        new RegExp(value, "u");
      } catch (error) {
        throw new DocumentError(
          `Cannot use this "pattern": ${(error as Error).message}`,
          at,
          { cause: error },
        );
      }
      return value;
    case "minimum":
    case "maximum":
      if (typeof value !== "number") return refuse("a number");
      return value;
    case "required":
      if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) {
        return refuse("a list of property names");
      }
      return value;
    case "description":
      if (typeof value !== "string") return refuse("a string");
      return value;
    default:
      return value;
  }
}

function checkApplicable(schema: JsonObject, keyPositions: Map<string, SourcePosition>): void {
  const type = schema.type;
  for (const [keyword, types] of Object.entries(keywordTypes)) {
    const keyAt = keyPositions.get(keyword);
    if (keyAt === undefined || (typeof type === "string" && types.includes(type))) continue;
    const expected = types.map((name) => `"${name}"`).join(" or ");
    const actual = type === undefined ? "add a type" : `the type is "${type}"`;
    throw new DocumentError(`Cannot use "${keyword}" without type ${expected}: ${actual}`, keyAt);
  }
}

function checkRequiredDeclared(
  source: YamlSource,
  schema: JsonObject,
  node: YamlNode | null | undefined,
  keyPositions: Map<string, SourcePosition>,
): void {
  if (node?.kind !== "seq") return;
  const properties = (schema.properties ?? {}) as JsonObject;
  const seen = new Set<string>();
  (schema.required as string[]).forEach((name, index) => {
    const at = positionOf(source, node.items[index], keyPositions.get("required")!);
    if (!Object.hasOwn(properties, name)) {
      throw new DocumentError(
        `Cannot require "${name}": it is not declared in "properties"; declare it or remove it`,
        at,
      );
    }
    if (seen.has(name)) throw new DocumentError(`Cannot require "${name}" twice`, at);
    seen.add(name);
  });
}

function checkEnum(
  source: YamlSource,
  schema: JsonObject,
  node: YamlNode | null | undefined,
  keyPositions: Map<string, SourcePosition>,
): void {
  if (node?.kind !== "seq") return;
  const { enum: members, default: _default, ...rest } = schema;
  (members as JsonValue[]).forEach((member, index) => {
    const problems = schemaProblems(rest, member, { applyDefaults: false });
    if (problems.length === 0) return;
    throw new DocumentError(
      `Cannot use enum value ${JSON.stringify(member)}: it ${describeAll(problems)}`,
      positionOf(source, node.items[index], keyPositions.get("enum")!),
    );
  });
}

function checkDefault(
  source: YamlSource,
  schema: JsonObject,
  node: YamlNode | null | undefined,
  keyPositions: Map<string, SourcePosition>,
): void {
  const keyAt = keyPositions.get("default");
  if (keyAt === undefined) return;
  const problems = schemaProblems(schema, schema.default, { applyDefaults: false });
  if (problems.length === 0) return;
  throw new DocumentError(
    `Cannot use this "default": it does not match its own schema: ${describeAll(problems)}`,
    positionOf(source, node ?? null, keyAt),
  );
}

function describeAll(problems: readonly SchemaProblem[]): string {
  return problems
    .map((problem) => `${problem.path === "" ? "" : `${problem.path} `}${problem.message}`)
    .join(", ");
}

function listKeywords(): string {
  return `${supportedKeywords.slice(0, -1).join(", ")} or ${supportedKeywords.at(-1)}`;
}
