import assert from "node:assert/strict";
import { propsObjectSchema, validatePropsObject } from "./_props-validator.ts";
import { createPropSpec } from "./props-spec.ts";
import { loadDocumentLibraries } from "../document/document-libraries.ts";

// These tests call the parser and validators directly, which loadProgram loads before it parses.
await loadDocumentLibraries();

Deno.test("propsObjectSchema builds each spec's schema once", () => {
  const spec = [createPropSpec("a", { type: "string" }, false)];
  assert.equal(propsObjectSchema(spec), propsObjectSchema(spec));
  assert.notEqual(propsObjectSchema(spec), propsObjectSchema([...spec]));
});

Deno.test("validatePropsObject applies defaults to a copy, in spec order", () => {
  const spec = [
    createPropSpec("a", { type: "number", default: 1 }, false),
    createPropSpec("c", {
      type: "object",
      properties: { x: { type: "string", default: "d" } },
    }, false),
  ];
  const values = { c: {} };
  const result = validatePropsObject(spec, values);
  assert.deepEqual(result, { ok: true, value: { a: 1, c: { x: "d" } } });
  assert.deepEqual(Object.keys(result.ok ? result.value : {}), ["a", "c"]);
  assert.deepEqual(values, { c: {} });
});
