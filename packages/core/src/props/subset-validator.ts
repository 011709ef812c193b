/**
 * Validation of a value against a schema of the prop subset (MDX-48: `type`,
 * `enum`, `pattern`, `minimum`, `maximum`, `items`, `properties`, `required`,
 * `default`, `description`), by walking the schema: nothing is compiled, so a
 * document with props loads no JSON Schema library (MDX-110).
 *
 * Invariants: the schema was read by `checkPropSchema` (only those keywords,
 * each value of its kind, each type-specific keyword under its type); the
 * problems are the ones JSON Schema 2020-12 defines for it, in a fixed order
 * (the type when no keyword of its kind checks it, `enum`, then the number,
 * string, array and object keywords, each kind's keywords only on a value of
 * that kind, its type reported there); a message is built from the schema
 * alone, never from the value (values may be secrets); defaults are written
 * only into the value given, which the caller owns.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/json-value.ts";

/** One way a value fails its schema. */
export interface SchemaProblem {
  /** Where, as a JSON Pointer into the value (`""` for the value itself). */
  readonly path: string;
  /** Why: `must be string`, `must be >= 3`, `must be one of "a", "b"`. */
  readonly message: string;
  /** For `required`: the property that is absent. */
  readonly missing?: string;
}

/** How {@linkcode schemaProblems} treats a missing property that declares a `default`. */
export interface SubsetValidation {
  /** Write the default into the object (a copy of it) before checking it. */
  readonly applyDefaults: boolean;
}

const patterns = new Map<string, RegExp>();

/**
 * The problems of `value` against `schema`; empty when it is valid. With
 * `applyDefaults`, a missing property whose schema has a `default` gets a copy
 * of it first (in `value` itself), and is then checked like a given one.
 */
export function schemaProblems(
  schema: JsonObject,
  value: JsonValue,
  options: SubsetValidation,
): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  check(schema, value, "", problems, options.applyDefaults);
  return problems;
}

function check(
  schema: JsonObject,
  value: JsonValue,
  path: string,
  problems: SchemaProblem[],
  applyDefaults: boolean,
): void {
  const type = schema.type as string | undefined;
  const wrongType = () => problems.push({ path, message: `must be ${type}` });
  const numeric = schema.minimum !== undefined || schema.maximum !== undefined;
  const stringy = schema.pattern !== undefined;
  const listy = schema.items !== undefined;
  const objecty = schema.properties !== undefined || schema.required !== undefined;
  // A type whose own keywords are present is reported where they are checked.
  const checkedByKind = (type === "number" && numeric) || (type === "string" && stringy) ||
    (type === "array" && listy) || (type === "object" && objecty);
  if (type !== undefined && !checkedByKind && !isOfType(type, value)) wrongType();
  if (schema.enum !== undefined) {
    const members = schema.enum as JsonValue[];
    if (!members.some((member) => jsonEqual(member, value))) {
      const allowed = members.map((member) => JSON.stringify(member)).join(", ");
      problems.push({ path, message: `must be one of ${allowed}` });
    }
  }
  if (numeric) {
    if (typeof value === "number") {
      if (schema.maximum !== undefined && !(value <= (schema.maximum as number))) {
        problems.push({ path, message: `must be <= ${schema.maximum}` });
      }
      if (schema.minimum !== undefined && !(value >= (schema.minimum as number))) {
        problems.push({ path, message: `must be >= ${schema.minimum}` });
      }
    } else if (type === "number") wrongType();
  }
  if (stringy) {
    if (typeof value === "string") {
      if (!patternOf(schema.pattern as string).test(value)) {
        problems.push({ path, message: `must match pattern "${schema.pattern}"` });
      }
    } else if (type === "string") wrongType();
  }
  if (listy) {
    if (Array.isArray(value)) {
      const items = schema.items as JsonObject;
      value.forEach((item, index) =>
        check(items, item, `${path}/${index}`, problems, applyDefaults)
      );
    } else if (type === "array") wrongType();
  }
  if (objecty) {
    if (isObject(value)) checkObject(schema, value, path, problems, applyDefaults);
    else if (type === "object") wrongType();
  }
}

function checkObject(
  schema: JsonObject,
  value: JsonObject,
  path: string,
  problems: SchemaProblem[],
  applyDefaults: boolean,
): void {
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  if (applyDefaults) {
    for (const [name, property] of Object.entries(properties)) {
      if (property.default !== undefined && !Object.hasOwn(value, name)) {
        value[name] = structuredClone(property.default);
      }
    }
  }
  for (const name of (schema.required ?? []) as string[]) {
    if (!Object.hasOwn(value, name)) {
      problems.push({ path, message: `must have required property '${name}'`, missing: name });
    }
  }
  for (const [name, property] of Object.entries(properties)) {
    if (!Object.hasOwn(value, name)) continue;
    check(property, value[name], `${path}/${pointerToken(name)}`, problems, applyDefaults);
  }
}

function isOfType(type: string, value: JsonValue): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    default:
      return isObject(value);
  }
}

function isObject(value: JsonValue): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** JSON equality: arrays item by item, objects by the same keys with equal values, in any order. */
function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
      a.every((item, index) => jsonEqual(item, b[index]));
  }
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
}

function patternOf(source: string): RegExp {
  let pattern = patterns.get(source);
  if (pattern === undefined) {
    // `checkPropSchema` compiled it with the same flag, so this cannot throw.
    pattern = new RegExp(source, "u");
    patterns.set(source, pattern);
  }
  return pattern;
}

function pointerToken(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}
