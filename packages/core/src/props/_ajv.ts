/**
 * The one place Ajv is constructed. Invariant: every validator is strict and
 * reports all errors, and its messages are built from the schema alone, never
 * from the validated value (values may be secrets).
 *
 * @module
 */
import type Ajv from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import { documentLibraries } from "../document/document-libraries.ts";
import type { JsonObject } from "../json/json-value.ts";

// Checking an author's schema compiles it as a root, where a `default` is
// legal only when defaults are not applied; hence two instances, each made
// on first use (with the libraries, after a program's load began).
let checking: Ajv.default | undefined;
let applying: Ajv.default | undefined;

// Neither instance validates a schema against the JSON Schema meta-schema:
// every schema they compile is a prop schema `checkPropSchema` already read
// keyword by keyword (only the supported keywords, each value of its kind,
// each type-specific keyword under its type), or an object of such schemas,
// so the meta-schema could refuse nothing more. Compiling it was most of
// each instance's first compile (about 40 ms, then 20 ms for the second) in
// every start of a document with props. Strict mode still checks each
// schema as it compiles.
const OPTIONS = { strict: true, allErrors: true, validateSchema: false } as const;

/** Compiles `schema` for checking values against it; throws on a schema strict mode refuses. */
export function compileSchema(schema: JsonObject): ValidateFunction {
  checking ??= new (documentLibraries().AjvClass)(OPTIONS);
  return checking.compile(schema);
}

/** Compiles `schema` for validation that also fills in missing properties' defaults. */
export function compileWithDefaults(schema: JsonObject): ValidateFunction {
  applying ??= new (documentLibraries().AjvClass)({ ...OPTIONS, useDefaults: true });
  return applying.compile(schema);
}

/** What a failed keyword expected (`must be number`), taken from the schema only. */
export function describeAjvError(error: ErrorObject): string {
  if (error.keyword === "enum") {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
    return `must be one of ${allowed.map((value) => JSON.stringify(value)).join(", ")}`;
  }
  return error.message ?? `must satisfy "${error.keyword}"`;
}
