import assert from "node:assert/strict";
import { DocumentError } from "../document/document-error.ts";
import type { JsonObject } from "../json/json-value.ts";
import { parseFrontmatter } from "./frontmatter.ts";
import { validateComponentProps } from "./validate-component-props.ts";
import { loadDocumentLibraries } from "../document/document-libraries.ts";
import { loadYamlLibrary } from "./yaml-library.ts";

// These tests call the parser and validators directly, which loadProgram loads before it parses.
await loadDocumentLibraries();
// And the yaml package, which loadProgram loads for frontmatter the plain reader declines.
await loadYamlLibrary();

const { props: spec } = parseFrontmatter(
  `required: [name]
props:
  name: { type: string }
  count: { type: number, default: 1 }
  tags: { type: array, items: { type: string } }
`,
  "Greeting.md",
  2,
);
const at = { file: "doc.md", line: 7, column: 3 };

function refusal(values: JsonObject): DocumentError {
  try {
    validateComponentProps(spec, values, at, "Greeting");
  } catch (error) {
    assert.ok(error instanceof DocumentError, `expected a DocumentError, got ${error}`);
    assert.deepEqual(error.position, at);
    return error;
  }
  assert.fail("expected a refusal");
}

Deno.test("validateComponentProps applies defaults without touching the values", () => {
  const values = { name: "Ada" };
  assert.deepEqual(validateComponentProps(spec, values, at, "Greeting"), { name: "Ada", count: 1 });
  assert.deepEqual(values, { name: "Ada" });
});

Deno.test("validateComponentProps refuses type mismatches without echoing the value", () => {
  const error = refusal({ name: "Ada", count: "s3cr3t" });
  assert.equal(error.reason, 'Invalid prop "count" for <Greeting>: must be number');
  assert.equal(
    refusal({ name: "Ada", tags: ["a", 2] }).reason,
    'Invalid prop "tags" for <Greeting>: /1 must be string',
  );
});

Deno.test("validateComponentProps refuses unknown props, listing the known ones", () => {
  assert.equal(
    refusal({ name: "Ada", colour: "red" }).reason,
    'Unknown prop "colour" for <Greeting>: its props are name, count, tags',
  );
  assert.throws(
    () => validateComponentProps([], { a: 1, b: 2 }, at, "Plain"),
    (error: DocumentError) =>
      error.reason === 'Unknown props "a", "b" for <Plain>: it takes no props',
  );
});

Deno.test("validateComponentProps refuses a missing required prop", () => {
  assert.equal(
    refusal({ count: 2 }).reason,
    'Missing required prop "name" for <Greeting>: add name="…" or name={…}',
  );
});

Deno.test("validateComponentProps reports all problems in one refusal", () => {
  assert.equal(
    refusal({ count: "x" }).reason,
    'Missing required prop "name" for <Greeting>: add name="…" or name={…}; Invalid prop "count" for <Greeting>: must be number',
  );
});
