/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no whitespace. Two
 * equal JSON values have the same canonical text, whatever their key order,
 * so a digest of it identifies the value.
 *
 * @module
 */
import type { JsonValue } from "./json-value.ts";

/** Serializes `value` with every object's keys sorted. */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(",")}}`;
}
