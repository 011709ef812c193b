import assert from "node:assert/strict";
import { DocumentError } from "../document/document-error.ts";
import { parseFrontmatter } from "./frontmatter.ts";
import { loadDocumentLibraries } from "../document/document-libraries.ts";
import { loadYamlLibrary } from "./yaml-library.ts";

// These tests call the parser and validators directly, which loadProgram loads before it parses.
await loadDocumentLibraries();
// And the yaml package, which loadProgram loads for frontmatter the plain reader declines.
await loadYamlLibrary();

/** Frontmatter starts on document line 2, after the opening `---`. */
function refusal(yaml: string): DocumentError {
  try {
    parseFrontmatter(yaml, "doc.md", 2);
  } catch (error) {
    assert.ok(error instanceof DocumentError, `expected a DocumentError, got ${error}`);
    return error;
  }
  assert.fail("expected a refusal");
}

function assertRefused(yaml: string, line: number, column: number, reason: RegExp): void {
  const error = refusal(yaml);
  assert.deepEqual(error.position, { file: "doc.md", line, column }, error.message);
  assert.match(error.reason, reason);
}

const example = `title: Release
required: [version]
props:
  version:
    type: string
    pattern: "^\\\\d+\\\\.\\\\d+\\\\.\\\\d+$"
    description: The version to release
  dryRun:
    type: boolean
    default: false
  targets:
    type: array
    items: { type: string }
`;

Deno.test("parseFrontmatter reads props in order and the rest as meta", () => {
  const { props, meta } = parseFrontmatter(example, "doc.md", 2);
  assert.deepEqual(meta, { title: "Release" });
  assert.deepEqual(props.map((prop) => [prop.name, prop.required, prop.cliType]), [
    ["version", true, "string"],
    ["dryRun", false, "boolean"],
    ["targets", false, "array"],
  ]);
  assert.deepEqual(props[0].schema, {
    type: "string",
    pattern: "^\\d+\\.\\d+\\.\\d+$",
    description: "The version to release",
  });
  assert.equal(props[0].description, "The version to release");
  assert.equal(props[1].optionName, "props-dry-run");
  assert.equal(props[1].envName, "XMD_PROPS_DRY_RUN");
});

Deno.test("parseFrontmatter accepts empty frontmatter", () => {
  assert.deepEqual(parseFrontmatter("", "doc.md", 2), { props: [], meta: {} });
  assert.deepEqual(parseFrontmatter("# only a comment\n", "doc.md", 2), { props: [], meta: {} });
});

Deno.test("parseFrontmatter keeps meta JSON: unquoted dates stay strings, aliases are copied", () => {
  const { meta } = parseFrontmatter(
    "date: 2024-01-31\nbase: &b { a: 1 }\ncopy: *b\nn: 0x10\n",
    "doc.md",
    2,
  );
  assert.deepEqual(meta, { date: "2024-01-31", base: { a: 1 }, copy: { a: 1 }, n: 16 });
});

Deno.test("parseFrontmatter makes __proto__ an own meta key, not a prototype", () => {
  const { meta } = parseFrontmatter("__proto__: { polluted: true }\n", "doc.md", 2);
  assert.ok(Object.hasOwn(meta, "__proto__"));
  assert.equal(Object.getPrototypeOf(meta), Object.prototype);
  assert.equal((meta as Record<string, unknown>).polluted, undefined);
});

Deno.test("parseFrontmatter maps positions from startLine", () => {
  const error = (() => {
    try {
      parseFrontmatter("props:\n  2fast: {}\n", "doc.md", 10);
    } catch (error) {
      return error as DocumentError;
    }
  })();
  assert.deepEqual(error?.position, { file: "doc.md", line: 11, column: 3 });
});

Deno.test("parseFrontmatter refuses YAML syntax errors", () => {
  assertRefused("a: 1\na: 2\n", 3, 1, /^Cannot parse the frontmatter: Map keys must be unique/);
  assertRefused("  a: 1\n b: 2\n", 3, 2, /^Cannot parse the frontmatter: /);
});

Deno.test("parseFrontmatter refuses frontmatter that is not a map", () => {
  assertRefused("- a\n- b\n", 2, 1, /it must be a map/);
  assertRefused("just text\n", 2, 1, /it must be a map/);
});

Deno.test("parseFrontmatter refuses props that are not a map", () => {
  assertRefused("title: x\nprops: [a]\n", 3, 8, /^Cannot read props: it must be a map/);
  assertRefused("props:\n", 2, 1, /^Cannot read props: it must be a map/);
});

Deno.test("parseFrontmatter refuses a prop whose schema is not a map", () => {
  assertRefused("props:\n  version: string\n", 3, 12, /must be a map of JSON Schema keywords/);
  assertRefused("props:\n  version:\n", 3, 3, /must be a map of JSON Schema keywords/);
});

Deno.test("parseFrontmatter refuses unsupported keywords, naming it and the supported ones", () => {
  const error = refusal("props:\n  version:\n    type: string\n    format: date\n");
  assert.deepEqual(error.position, { file: "doc.md", line: 5, column: 5 });
  assert.equal(
    error.reason,
    'Unsupported schema keyword "format": use type, enum, pattern, minimum, maximum, items, properties, required, default or description',
  );
});

Deno.test("parseFrontmatter refuses wrong keyword value types at the value", () => {
  assertRefused(
    "props:\n  n:\n    type: text\n",
    4,
    11,
    /^Cannot use this "type": it must be one of "string"/,
  );
  assertRefused(
    'props:\n  n:\n    type: number\n    minimum: "3"\n',
    5,
    14,
    /"minimum": it must be a number$/,
  );
  assertRefused(
    "props:\n  n:\n    type: number\n    maximum: [1]\n",
    5,
    14,
    /"maximum": it must be a number$/,
  );
  assertRefused("props:\n  n: { enum: [] }\n", 3, 14, /"enum": it must be a non-empty list$/);
  assertRefused("props:\n  n: { description: 3 }\n", 3, 21, /"description": it must be a string$/);
  assertRefused(
    "props:\n  n: { type: string, pattern: 3 }\n",
    3,
    31,
    /"pattern": it must be a regular/,
  );
  assertRefused(
    "props:\n  n: { type: object, required: x }\n",
    3,
    32,
    /"required": it must be a list/,
  );
  assertRefused(
    "props:\n  n: { type: object, properties: [] }\n",
    3,
    34,
    /"properties": it must be a map/,
  );
});

Deno.test("parseFrontmatter refuses type-specific keywords without their type", () => {
  assertRefused(
    "props:\n  n:\n    minimum: 1\n",
    4,
    5,
    /^Cannot use "minimum" without type "number" or "integer": add a type$/,
  );
  assertRefused(
    "props:\n  n:\n    type: number\n    pattern: a\n",
    5,
    5,
    /^Cannot use "pattern" without type "string": the type is "number"$/,
  );
  assertRefused(
    "props:\n  n: { type: string, items: {} }\n",
    3,
    22,
    /"items" without type "array"/,
  );
});

Deno.test("parseFrontmatter refuses an invalid pattern at its value", () => {
  assertRefused(
    'props:\n  v:\n    type: string\n    pattern: "("\n',
    5,
    14,
    /^Cannot use this "pattern": Invalid regular expression/,
  );
});

Deno.test("parseFrontmatter refuses a default that does not match its schema", () => {
  assertRefused(
    'props:\n  count:\n    type: number\n    default: "x"\n',
    5,
    14,
    /^Cannot use this "default": it does not match its own schema: must be number$/,
  );
  assertRefused(
    "props:\n  level:\n    type: string\n    enum: [a, b]\n    default: c\n",
    6,
    14,
    /must be one of "a", "b"$/,
  );
  assertRefused(
    "props:\n  c:\n    type: object\n    properties: { x: { type: string } }\n    default: { x: 1 }\n",
    6,
    14,
    /: \/x must be string$/,
  );
});

Deno.test("parseFrontmatter refuses an enum member that does not match the type", () => {
  assertRefused(
    "props:\n  n: { type: number, enum: [1, two] }\n",
    3,
    32,
    /^Cannot use enum value "two": it must be number$/,
  );
});

Deno.test("parseFrontmatter refuses required naming an undeclared prop, at the name", () => {
  assertRefused(
    "required: [version, nope]\nprops:\n  version: { type: string }\n",
    2,
    21,
    /^Cannot require "nope": no such prop is declared under props/,
  );
  assertRefused("required: [a]\n", 2, 12, /^Cannot require "a"/);
  assertRefused("required: [a, a]\nprops: { a: {} }\n", 2, 15, /^Cannot require "a" twice$/);
  assertRefused(
    "required: a\nprops: { a: {} }\n",
    2,
    11,
    /^Cannot read required: it must be a list/,
  );
  assertRefused("required: [1]\nprops: { a: {} }\n", 2, 12, /^Cannot read required/);
});

Deno.test("parseFrontmatter refuses prop names that are not identifiers", () => {
  assertRefused(
    "props:\n  dry-run: {}\n",
    3,
    3,
    /^Cannot declare prop "dry-run": a prop name must be an identifier/,
  );
  assertRefused("props:\n  2fast: {}\n", 3, 3, /^Cannot declare prop "2fast"/);
  assertRefused("props:\n  _: {}\n", 3, 3, /^Cannot declare prop "_"/);
  assertRefused("props:\n  __proto__: {}\n", 3, 3, /the name is reserved$/);
});

Deno.test("parseFrontmatter refuses two props sharing an option name", () => {
  assertRefused(
    "props:\n  dryRun: { type: boolean }\n  dry_run: { type: boolean }\n",
    4,
    3,
    /^Cannot declare prop "dry_run": its option --props-dry-run is already used by prop "dryRun"/,
  );
});

Deno.test("parseFrontmatter checks nested schemas with the same subset", () => {
  assertRefused(
    "props:\n  tags:\n    type: array\n    items: { type: string, format: x }\n",
    5,
    28,
    /^Unsupported schema keyword "format"/,
  );
  assertRefused(
    "props:\n  c:\n    type: object\n    properties:\n      a:\n        minimum: 1\n",
    7,
    9,
    /^Cannot use "minimum" without type/,
  );
  assertRefused(
    "props:\n  c:\n    type: object\n    properties: { a: {} }\n    required: [a, b]\n",
    6,
    19,
    /^Cannot require "b": it is not declared in "properties"/,
  );
  assertRefused(
    "props:\n  c:\n    type: array\n    items: { type: number, default: x }\n",
    5,
    37,
    /"default": it does not match its own schema: must be number$/,
  );
});

Deno.test("parseFrontmatter refuses values that are not JSON, at the value", () => {
  assertRefused(
    "released: !!timestamp 2024-01-31\n",
    2,
    23,
    /^Cannot use the tag !!timestamp: frontmatter values must be JSON/,
  );
  assertRefused("logo: !!binary aGVsbG8=\n", 2, 16, /!!binary/);
  assertRefused("s: !!set { a, b }\n", 2, 10, /!!set/);
  assertRefused("x: !custom a\n", 2, 12, /^Cannot use the tag !custom/);
  assertRefused("big: .inf\n", 2, 6, /finite numbers/);
  assertRefused("props:\n  n: { type: number, default: .nan }\n", 3, 31, /finite numbers/);
  assertRefused("1: one\n", 2, 1, /keys must be strings/);
  assertRefused("a: &x [1, *x]\n", 2, 11, /recursive alias/);
});
