/**
 * The values an expression holds while it runs. Invariant: a runtime value is
 * JSON (numbers finite, arrays without holes or `undefined` elements, plain
 * objects without `undefined` properties) or `undefined` for a missing member.
 *
 * @module
 */
import type { JsonValue } from "../json/json-value.ts";

/** A value during evaluation: JSON, or `undefined` for something missing. */
export type RuntimeValue = JsonValue | undefined;

/**
 * Names the kind of a value for a message ("a string", "an array"), so that
 * messages can say what went wrong without echoing a value that may be secret.
 */
export function describeKind(value: RuntimeValue): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    default:
      return "an object";
  }
}
