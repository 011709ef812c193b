/**
 * The props section of `xmd run doc.md --help`. Invariant: it lists exactly
 * the options and variables resolveProps reads, because both derive them from
 * the same PropsSpec.
 *
 * @module
 */
import type { JsonObject } from "../json/json-value.ts";
import type { PropSpec, PropsSpec } from "./props-spec.ts";

/**
 * Formats one aligned line per prop: its option (or, for props only given as
 * JSON, its name and type), whether it is required, its description, its
 * default and its variable.
 *
 * @example Listing a prop
 * ```ts
 * import assert from "node:assert/strict";
 * import { createPropSpec } from "./props-spec.ts";
 * import { formatPropsHelp } from "./props-help.ts";
 * const spec = [createPropSpec("version", { type: "string", description: "The version" }, true)];
 * assert.match(
 *   formatPropsHelp(spec),
 *   /^ {2}--props-version=<string> +\(required\) The version +\[env XMD_PROPS_VERSION\]\n/,
 * );
 * ```
 */
export function formatPropsHelp(spec: PropsSpec): string {
  if (spec.length === 0) return "This document takes no props.";
  const rows: [string, string][] = spec.map((prop) => [usage(prop), details(prop)]);
  rows.push(["--props=<json>", "all props as one JSON object  [env XMD_PROPS]"]);
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows
    .map(([left, right]) => `  ${left.padEnd(width)}  ${right}`.trimEnd())
    .join("\n");
}

function usage(prop: PropSpec): string {
  const option = `--${prop.optionName}`;
  switch (prop.cliType) {
    case null:
      return `${prop.name} (${describeType(prop.schema)}, in --props)`;
    case "boolean":
      return `${option}[=<boolean>]`;
    case "array":
      return `${option}=${placeholder(prop.schema.items as JsonObject)}...`;
    default:
      return `${option}=${placeholder(prop.schema)}`;
  }
}

/** `<string>`, or the allowed values `<patch|minor|major>` when the schema enumerates strings. */
function placeholder(schema: JsonObject): string {
  const members = schema.enum;
  if (Array.isArray(members) && members.every((member) => typeof member === "string")) {
    return `<${members.join("|")}>`;
  }
  return `<${describeType(schema)}>`;
}

function describeType(schema: JsonObject): string {
  return typeof schema.type === "string" ? schema.type : "any";
}

function details(prop: PropSpec): string {
  const head = [prop.required ? "(required)" : "", prop.description ?? ""]
    .filter((part) => part !== "")
    .join(" ");
  const parts = [head];
  if (Object.hasOwn(prop.schema, "default")) {
    parts.push(`default: ${JSON.stringify(prop.schema.default)}`);
  }
  if (prop.cliType !== null) parts.push(`[env ${prop.envName}]`);
  return parts.filter((part) => part !== "").join("  ");
}
