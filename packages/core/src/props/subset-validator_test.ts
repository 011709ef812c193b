import assert from "node:assert/strict";
import Ajv from "ajv/dist/2020.js";
import type { JsonObject, JsonValue } from "../json/json-value.ts";
import { schemaProblems } from "./subset-validator.ts";

// The reference: JSON Schema 2020-12 as Ajv implements it, with the options
// props were validated with before xmd had its own validator.
const reference = new Ajv.default({ strict: true, allErrors: true, validateSchema: false });
const applying = new Ajv.default({
  strict: true,
  allErrors: true,
  validateSchema: false,
  useDefaults: true,
});

type Problem = { path: string; message: string };

function ajvProblems(ajv: Ajv.default, schema: JsonObject, value: JsonValue): Problem[] {
  const validate = ajv.compile(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => ({
    path: error.instancePath,
    message: error.keyword === "enum"
      ? `must be one of ${
        (error.params as { allowedValues: JsonValue[] }).allowedValues
          .map((member) => JSON.stringify(member)).join(", ")
      }`
      : error.message!,
  }));
}

function ours(schema: JsonObject, value: JsonValue, applyDefaults: boolean): Problem[] {
  return schemaProblems(schema, value, { applyDefaults })
    .map(({ path, message }) => ({ path, message }));
}

// Seeded, so a failure reproduces.
let seed = 110;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];

const scalars: JsonValue[] = [
  0,
  1,
  -3,
  2.5,
  10,
  1e21,
  "",
  "a",
  "abc",
  "A1",
  "ü",
  "a/b",
  true,
  false,
  null,
];
const names = ["a", "b", "c~d", "e/f"];

function randomValue(depth: number): JsonValue {
  const roll = random();
  if (depth > 2 || roll < 0.6) return pick(scalars);
  if (roll < 0.8) {
    return Array.from({ length: Math.floor(random() * 3) }, () => randomValue(depth + 1));
  }
  const object: JsonObject = {};
  for (const name of names) if (random() < 0.5) object[name] = randomValue(depth + 1);
  return object;
}

/** A schema of the MDX-48 subset, as `checkPropSchema` would accept it (its enum members and default may not validate). */
function randomSchema(depth: number): JsonObject {
  const type = random() < 0.85
    ? pick(["string", "number", "integer", "boolean", "array", "object", "null"])
    : undefined;
  const schema: JsonObject = type === undefined ? {} : { type };
  if (random() < 0.2) schema.enum = [randomValue(2), randomValue(2), pick(scalars)];
  if (type === "string" && random() < 0.6) {
    schema.pattern = pick(["^a", "b", "^\\w+$", "^.$", "[ü]"]);
  }
  if ((type === "number" || type === "integer") && random() < 0.6) {
    schema.minimum = pick([0, 1, 2.5]);
  }
  if ((type === "number" || type === "integer") && random() < 0.6) {
    schema.maximum = pick([1, 3, 10]);
  }
  if (type === "array" && depth < 3 && random() < 0.7) schema.items = randomSchema(depth + 1);
  if (type === "object" && depth < 3 && random() < 0.8) {
    const properties: JsonObject = {};
    for (const name of names) {
      if (random() < 0.6) {
        const property = randomSchema(depth + 1);
        if (random() < 0.3) property.default = randomValue(2);
        properties[name] = property;
      }
    }
    schema.properties = properties;
    const declared = Object.keys(properties);
    if (random() < 0.6) schema.required = declared.filter(() => random() < 0.5);
  }
  if (random() < 0.1) schema.description = "what it is";
  return schema;
}

Deno.test("MDX-110: the subset validator finds what JSON Schema 2020-12 finds, in the same order", () => {
  let invalid = 0;
  for (let round = 0; round < 3000; round++) {
    const schema = randomSchema(0);
    // A value that often has the schema's shape, so deep keywords are reached.
    const value = random() < 0.5 ? randomValue(0) : shaped(schema);
    const expected = ajvProblems(reference, schema, value);
    assert.deepEqual(ours(schema, value, false), expected, JSON.stringify({ schema, value }));
    if (expected.length > 0) invalid++;
  }
  // Both outcomes were exercised many times.
  assert.ok(invalid > 500 && invalid < 2500, `${invalid} invalid`);
});

Deno.test("MDX-110: defaults are applied as JSON Schema's useDefaults applies them, into the value", () => {
  let changed = 0;
  for (let round = 0; round < 3000; round++) {
    const schema = randomSchema(0);
    const value = shaped(schema);
    const theirs = structuredClone(value);
    const mine = structuredClone(value);
    const expected = ajvProblems(applying, schema, theirs);
    assert.deepEqual(ours(schema, mine, true), expected, JSON.stringify({ schema, value }));
    assert.deepEqual(mine, theirs, JSON.stringify({ schema, value }));
    if (JSON.stringify(mine) !== JSON.stringify(value)) changed++;
  }
  assert.ok(changed > 50, `${changed} values got defaults`);
});

Deno.test("MDX-110: a default is a copy, and messages never hold the value", () => {
  const schema = { type: "object", properties: { a: { type: "array", default: [1] } } };
  const first: JsonObject = {};
  const second: JsonObject = {};
  schemaProblems(schema, first, { applyDefaults: true });
  schemaProblems(schema, second, { applyDefaults: true });
  (first.a as JsonValue[]).push(2);
  assert.deepEqual(second, { a: [1] });
  assert.deepEqual(schema.properties.a.default, [1]);
  const problems = schemaProblems(
    { type: "object", properties: { token: { type: "integer", maximum: 3 } } },
    { token: 987654.5 },
    { applyDefaults: false },
  );
  assert.deepEqual(problems.map((problem) => problem.message), ["must be integer", "must be <= 3"]);
  assert.ok(!JSON.stringify(problems).includes("987654"));
});

/** A value built to the schema's shape, with a random slip here and there. */
function shaped(schema: JsonObject): JsonValue {
  if (random() < 0.15) return randomValue(1);
  if (Array.isArray(schema.enum) && random() < 0.5) return structuredClone(pick(schema.enum));
  switch (schema.type) {
    case "string":
      return pick(["a", "abc", "b", "ü", "xyz", "a1"]);
    case "number":
      return pick([0, 1, 2.5, 3, 11]);
    case "integer":
      return pick([0, 1, 2, 3, 11, 1.5]);
    case "boolean":
      return random() < 0.5;
    case "null":
      return null;
    case "array": {
      const items = (schema.items ?? {}) as JsonObject;
      return Array.from({ length: Math.floor(random() * 3) }, () => shaped(items));
    }
    case "object": {
      const object: JsonObject = {};
      const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
      for (const [name, property] of Object.entries(properties)) {
        if (random() < 0.6) object[name] = shaped(property);
      }
      return object;
    }
    default:
      return randomValue(1);
  }
}
