/**
 * The built-in elements and the attributes each accepts. Checked when a
 * document is loaded, so expansion never meets an unknown attribute.
 *
 * @module
 */

/** How an attribute may be written. */
export type AttributeRule =
  | "name" // a literal identifier (`as="x"`)
  | "expression" // `{…}` only
  | "any"; // a literal string or `{…}`

/** The attributes of one built-in and which are required. */
export interface BuiltinSpec {
  /** Attribute rules by name. */
  attributes: Readonly<Record<string, AttributeRule>>;
  /** Attributes that must be present. */
  required: readonly string[];
}

/** Every built-in element. */
export const BUILTINS: Readonly<Record<string, BuiltinSpec>> = {
  Let: { attributes: { as: "name", value: "expression" }, required: ["as"] },
  If: { attributes: { condition: "expression" }, required: ["condition"] },
  Else: { attributes: {}, required: [] },
  Each: { attributes: { items: "expression", as: "name" }, required: ["items", "as"] },
  File: { attributes: { path: "any", as: "name" }, required: ["path"] },
  Dir: { attributes: { path: "any" }, required: ["path"] },
  Glob: { attributes: { include: "any", exclude: "any", as: "name" }, required: ["include", "as"] },
  Elicit: { attributes: { as: "name", schema: "expression" }, required: ["as", "schema"] },
  Fail: { attributes: { message: "any" }, required: ["message"] },
  Content: { attributes: {}, required: [] },
};

/** Names a document may not rebind with `as`. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(["props", "meta"]);
