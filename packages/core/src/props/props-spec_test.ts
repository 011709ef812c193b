import assert from "node:assert/strict";
import { createPropSpec } from "./props-spec.ts";
import { loadDocumentLibraries } from "../document/document-libraries.ts";

// These tests call the parser and validators directly, which loadProgram loads before it parses.
await loadDocumentLibraries();

Deno.test("createPropSpec derives kebab option and UPPER_SNAKE variable names", () => {
  const cases: [string, string, string][] = [
    ["version", "props-version", "XMD_PROPS_VERSION"],
    ["dryRun", "props-dry-run", "XMD_PROPS_DRY_RUN"],
    ["apiURL", "props-api-url", "XMD_PROPS_API_URL"],
    ["v2Name", "props-v2-name", "XMD_PROPS_V2_NAME"],
    ["HTTPServer", "props-http-server", "XMD_PROPS_HTTP_SERVER"],
    ["dry_run", "props-dry-run", "XMD_PROPS_DRY_RUN"],
    ["name2", "props-name2", "XMD_PROPS_NAME2"],
    ["URL", "props-url", "XMD_PROPS_URL"],
  ];
  for (const [name, optionName, envName] of cases) {
    const prop = createPropSpec(name, {}, false);
    assert.deepEqual([prop.optionName, prop.envName], [optionName, envName], name);
  }
});

Deno.test("createPropSpec exposes scalars and arrays of scalars only", () => {
  const cases: [Parameters<typeof createPropSpec>[1], string | null][] = [
    [{ type: "string" }, "string"],
    [{ type: "number" }, "number"],
    [{ type: "integer" }, "integer"],
    [{ type: "boolean" }, "boolean"],
    [{ type: "array", items: { type: "integer" } }, "array"],
    [{ type: "array", items: { type: "object" } }, null],
    [{ type: "array", items: { type: "array", items: { type: "string" } } }, null],
    [{ type: "array" }, null],
    [{ type: "object" }, null],
    [{ type: "null" }, null],
    [{ enum: ["a", "b"] }, null],
  ];
  for (const [schema, cliType] of cases) {
    assert.equal(createPropSpec("p", schema, false).cliType, cliType, JSON.stringify(schema));
  }
});

Deno.test("createPropSpec copies the schema's description", () => {
  const prop = createPropSpec("version", { type: "string", description: "The version" }, true);
  assert.equal(prop.description, "The version");
  assert.equal(prop.required, true);
  assert.equal(Object.hasOwn(createPropSpec("v", {}, false), "description"), false);
});
