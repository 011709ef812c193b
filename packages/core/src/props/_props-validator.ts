/**
 * Validation of a whole props object against a spec. Invariant: the spec's
 * object schema is built once per spec (components may be invoked thousands
 * of times), and the caller's values are never mutated: defaults go into a
 * copy.
 *
 * @module
 */
import type { JsonObject } from "../json/json-value.ts";
import type { PropsSpec } from "./props-spec.ts";
import { schemaProblems } from "./subset-validator.ts";

/** One prop that failed validation. */
export interface PropProblem {
  /** The prop concerned. */
  readonly prop: string;
  /** `missing` for an absent required prop, `invalid` for a value that does not validate. */
  readonly kind: "missing" | "invalid";
  /** What was expected, prefixed with the JSON pointer inside the prop when nested (`/1 must be string`). */
  readonly reason: string;
}

/** The outcome of validating props: the values with defaults applied, or the problems. */
export type PropsValidation =
  | { readonly ok: true; readonly value: JsonObject }
  | { readonly ok: false; readonly problems: readonly PropProblem[] };

const schemas = new WeakMap<PropsSpec, JsonObject>();

/** The object schema `spec` describes (its props as properties, the required ones required). */
export function propsObjectSchema(spec: PropsSpec): JsonObject {
  let schema = schemas.get(spec);
  if (schema === undefined) {
    schema = {
      type: "object",
      properties: Object.fromEntries(spec.map((prop) => [prop.name, prop.schema])),
      required: spec.filter((prop) => prop.required).map((prop) => prop.name),
    };
    schemas.set(spec, schema);
  }
  return schema;
}

/**
 * Validates `values` (whose keys are all declared) and applies defaults to a
 * copy whose keys follow the spec's order, whatever order values came in.
 */
export function validatePropsObject(spec: PropsSpec, values: JsonObject): PropsValidation {
  if (spec.length === 0) return { ok: true, value: {} };
  const copy = structuredClone(values);
  const problems = schemaProblems(propsObjectSchema(spec), copy, { applyDefaults: true });
  if (problems.length === 0) {
    const present = spec.filter((prop) => Object.hasOwn(copy, prop.name));
    return {
      ok: true,
      value: Object.fromEntries(present.map((prop) => [prop.name, copy[prop.name]])),
    };
  }
  return {
    ok: false,
    problems: problems.map((problem): PropProblem => {
      if (problem.missing !== undefined && problem.path === "") {
        return { prop: problem.missing, kind: "missing", reason: "is required" };
      }
      const [, prop = "", ...rest] = problem.path.split("/");
      const where = rest.length === 0 ? "" : `/${rest.join("/")} `;
      return { prop, kind: "invalid", reason: `${where}${problem.message}` };
    }),
  };
}
