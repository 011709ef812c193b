/**
 * The one place Ajv is constructed. Invariant: every validator is strict and
 * reports all errors, and its messages are built from the schema alone, never
 * from the validated value (values may be secrets).
 *
 * @module
 */
import Ajv from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import type { JsonObject } from "../json/json-value.ts";

// Under Deno's npm interop the default import is the CommonJS `module.exports`;
// Ajv's typings expose the class only as its `default` member, which the
// package also sets at run time, so that member works for both.
const AjvClass = Ajv.default;

// Checking an author's schema compiles it as a root, where a `default` is
// legal only when defaults are not applied; hence two instances.
const checking = new AjvClass({ strict: true, allErrors: true });
const applying = new AjvClass({ strict: true, allErrors: true, useDefaults: true });

/** Compiles `schema` for checking values against it; throws on a schema strict mode refuses. */
export function compileSchema(schema: JsonObject): ValidateFunction {
  return checking.compile(schema);
}

/** Compiles `schema` for validation that also fills in missing properties' defaults. */
export function compileWithDefaults(schema: JsonObject): ValidateFunction {
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
