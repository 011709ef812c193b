/**
 * Validation of a whole props object against a spec. Invariant: each spec is
 * compiled once (components may be invoked thousands of times), an empty
 * spec never, and the caller's values are never mutated: defaults go into a
 * copy.
 *
 * @module
 */
import type { ValidateFunction } from "ajv";
import type { JsonObject } from "../json/json-value.ts";
import { compileWithDefaults, describeAjvError } from "./_ajv.ts";
import type { PropsSpec } from "./props-spec.ts";

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

const validators = new WeakMap<PropsSpec, ValidateFunction>();

/** Compiles, or returns the cached, validator for the object `spec` describes. */
export function propsValidator(spec: PropsSpec): ValidateFunction {
  let validate = validators.get(spec);
  if (validate === undefined) {
    validate = compileWithDefaults({
      type: "object",
      properties: Object.fromEntries(spec.map((prop) => [prop.name, prop.schema])),
      required: spec.filter((prop) => prop.required).map((prop) => prop.name),
    });
    validators.set(spec, validate);
  }
  return validate;
}

/**
 * Validates `values` (whose keys are all declared) and applies defaults to a
 * copy whose keys follow the spec's order, whatever order values came in.
 */
export function validatePropsObject(spec: PropsSpec, values: JsonObject): PropsValidation {
  // No props: the only values with declared keys are `{}`, which the empty
  // object schema accepts as it is, so the validator is not compiled (a
  // document without props then never builds Ajv's code for one).
  if (spec.length === 0) return { ok: true, value: {} };
  const validate = propsValidator(spec);
  const copy = structuredClone(values);
  if (validate(copy)) {
    const present = spec.filter((prop) => Object.hasOwn(copy, prop.name));
    return {
      ok: true,
      value: Object.fromEntries(present.map((prop) => [prop.name, copy[prop.name]])),
    };
  }
  const problems = (validate.errors ?? []).map((error): PropProblem => {
    if (error.keyword === "required" && error.instancePath === "") {
      const prop = (error.params as { missingProperty: string }).missingProperty;
      return { prop, kind: "missing", reason: "is required" };
    }
    const [, prop = "", ...rest] = error.instancePath.split("/");
    const where = rest.length === 0 ? "" : `/${rest.join("/")} `;
    return { prop, kind: "invalid", reason: `${where}${describeAjvError(error)}` };
  });
  return { ok: false, problems };
}
