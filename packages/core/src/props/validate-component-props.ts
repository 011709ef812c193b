/**
 * Props of a markdown-component invocation. Invariant: a component's body
 * only ever sees props that validate against its frontmatter, with defaults
 * applied; the caller's values are left untouched.
 *
 * @module
 */
import { DocumentError } from "../document/document-error.ts";
import type { SourcePosition } from "../document/source-position.ts";
import type { JsonObject } from "../json/json-value.ts";
import { validatePropsObject } from "./_props-validator.ts";
import type { PropsSpec } from "./props-spec.ts";

/**
 * Validates an invocation's attribute values (already evaluated to JSON)
 * against the component's props and returns them with defaults applied.
 * Refuses unknown, missing and invalid props with a DocumentError at
 * `position`, naming the prop but never its value.
 *
 * @example Applying a default
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadDocumentLibraries } from "../document/document-libraries.ts";
 * import { createPropSpec } from "./props-spec.ts";
 * import { validateComponentProps } from "./validate-component-props.ts";
 * await loadDocumentLibraries();
 * const spec = [createPropSpec("count", { type: "number", default: 1 }, false)];
 * const props = validateComponentProps(spec, {}, { file: "doc.md", line: 4, column: 1 }, "Greeting");
 * assert.deepEqual(props, { count: 1 });
 * ```
 */
export function validateComponentProps(
  spec: PropsSpec,
  values: JsonObject,
  position: SourcePosition,
  componentName: string,
): JsonObject {
  const component = `<${componentName}>`;
  const unknown = Object.keys(values).filter((name) => !spec.some((prop) => prop.name === name));
  if (unknown.length > 0) {
    const known = spec.length > 0
      ? `its props are ${spec.map((prop) => prop.name).join(", ")}`
      : "it takes no props";
    const names = unknown.map((name) => `"${name}"`).join(", ");
    throw new DocumentError(
      `Unknown prop${unknown.length > 1 ? "s" : ""} ${names} for ${component}: ${known}`,
      position,
    );
  }
  const result = validatePropsObject(spec, values);
  if (result.ok) return result.value;
  const reasons = result.problems.map((problem) =>
    problem.kind === "missing"
      ? `Missing required prop "${problem.prop}" for ${component}: add ${problem.prop}="…" or ${problem.prop}={…}`
      : `Invalid prop "${problem.prop}" for ${component}: ${problem.reason}`
  );
  throw new DocumentError(reasons.join("; "), position);
}
