/**
 * The typed props a document declares. Invariant: a prop's option and
 * variable names are derived from its name alone, so `--help`, the CLI and the
 * environment always agree on them.
 *
 * @module
 */
import type { JsonObject } from "../json/json-value.ts";

/** How a prop is given on the command line; `null` when it is not exposed as an option or variable. */
export type PropCliType = "string" | "number" | "integer" | "boolean" | "array";

/** One declared prop. */
export interface PropSpec {
  /** The prop name, an identifier (`dryRun`). */
  readonly name: string;
  /** Its JSON Schema, limited to the supported subset. */
  readonly schema: JsonObject;
  /** Whether the frontmatter's top-level `required` lists it. */
  readonly required: boolean;
  /** The schema's `description`, if any. */
  readonly description?: string;
  /** The option name without leading dashes (`props-dry-run`). */
  readonly optionName: string;
  /** The environment variable (`XMD_PROPS_DRY_RUN`). */
  readonly envName: string;
  /** How the option and variable are parsed; `null` for objects and arrays of non-scalars. */
  readonly cliType: PropCliType | null;
}

/** The props a document declares, in declaration order. */
export type PropsSpec = readonly PropSpec[];

const scalarTypes: ReadonlySet<string> = new Set(["string", "number", "integer", "boolean"]);

/**
 * Builds a prop's entry, deriving its option and variable names and how the
 * CLI parses it.
 *
 * @example Naming a camelCase prop
 * ```ts
 * import assert from "node:assert/strict";
 * import { createPropSpec } from "./props-spec.ts";
 * const prop = createPropSpec("dryRun", { type: "boolean" }, false);
 * assert.equal(prop.optionName, "props-dry-run");
 * assert.equal(prop.envName, "XMD_PROPS_DRY_RUN");
 * ```
 */
export function createPropSpec(name: string, schema: JsonObject, required: boolean): PropSpec {
  const words = nameWords(name);
  const description = schema.description;
  return {
    name,
    schema,
    required,
    ...(typeof description === "string" ? { description } : {}),
    optionName: `props-${words.map((word) => word.toLowerCase()).join("-")}`,
    envName: `XMD_PROPS_${words.map((word) => word.toUpperCase()).join("_")}`,
    cliType: cliTypeOf(schema),
  };
}

/** Splits `apiURL` into `api`, `URL` and `v2Name` into `v2`, `Name`; underscores separate words too. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z])([A-Z][a-z])/g, "$1_$2")
    .split("_")
    .filter((word) => word !== "");
}

function cliTypeOf(schema: JsonObject): PropCliType | null {
  const type = schema.type;
  if (typeof type === "string" && scalarTypes.has(type)) return type as PropCliType;
  if (type !== "array") return null;
  const items = schema.items;
  const isScalarItems = typeof items === "object" && items !== null && !Array.isArray(items) &&
    typeof items.type === "string" && scalarTypes.has(items.type);
  return isScalarItems ? "array" : null;
}
