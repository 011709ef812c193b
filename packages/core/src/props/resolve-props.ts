/**
 * The props of a run, from the command line and the environment.
 * Invariant: each prop takes its value from the first source that gives it,
 * in the order option, `--props`, variable, `XMD_PROPS`, default; the result
 * validates against the spec, and no refusal repeats a given value.
 *
 * @module
 */
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json/json-depth.ts";
import { didYouMean } from "../text/did-you-mean.ts";
import type { JsonObject, JsonValue } from "../json/json-value.ts";
import { validatePropsObject } from "./_props-validator.ts";
import { PropsError, type PropsIssue } from "./props-error.ts";
import type { PropSpec, PropsSpec } from "./props-spec.ts";

/** Where a run's props come from. */
export interface PropsSources {
  /** `--props-*` options by name without leading dashes (`props-dry-run`), values in the order given. */
  readonly options: ReadonlyMap<string, readonly string[]>;
  /** The `--props` option's JSON object text, if given. */
  readonly propsJson?: string;
  /** The environment; `XMD_PROPS_*` and `XMD_PROPS` are read. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

type Coerced = { readonly value: JsonValue } | { readonly reason: string };

const TOO_DEEP = `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`;

const numberText = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const booleanWords: ReadonlyMap<string, boolean> = new Map([
  ["true", true],
  ["false", false],
  ["1", true],
  ["0", false],
  ["yes", true],
  ["no", false],
]);

/**
 * Resolves a run's props: picks each prop's source by precedence, parses
 * option and variable strings by the prop's type, applies defaults and
 * validates the whole object. Throws a PropsError listing every problem.
 * `spec` is a loaded program's (`program.root.props`): validating it uses the
 * schema validator `loadProgram` loads.
 *
 * @example Options beat the environment
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadDocumentLibraries } from "../document/document-libraries.ts";
 * import { createPropSpec } from "./props-spec.ts";
 * import { resolveProps } from "./resolve-props.ts";
 * await loadDocumentLibraries();
 * const spec = [createPropSpec("dryRun", { type: "boolean", default: false }, false)];
 * const props = resolveProps(spec, {
 *   options: new Map([["props-dry-run", ["yes"]]]),
 *   env: { XMD_PROPS_DRY_RUN: "false" },
 * });
 * assert.deepEqual(props, { dryRun: true });
 * ```
 */
export function resolveProps(spec: PropsSpec, sources: PropsSources): JsonObject {
  const issues = [...unknownOptions(spec, sources.options)];
  const fromOption = readJsonObject(spec, sources.propsJson, "--props", issues);
  const fromVariable = readJsonObject(spec, sources.env.XMD_PROPS, "XMD_PROPS", issues);
  if (issues.length > 0) throw new PropsError(issues);

  const values: [string, JsonValue][] = [];
  const origins = new Map<string, string>();
  for (const prop of spec) {
    const given = pick(prop, sources, fromOption, fromVariable);
    if (given === undefined) continue;
    origins.set(prop.name, given.source);
    if ("reason" in given.coerced) {
      issues.push(invalid(prop.name, given.source, given.coerced.reason));
    } else {
      values.push([prop.name, given.coerced.value]);
    }
  }
  const result = validatePropsObject(spec, Object.fromEntries(values));
  if (result.ok && issues.length === 0) return result.value;
  const refused = new Set(issues.map((issue) => issue.prop));
  for (const problem of result.ok ? [] : result.problems) {
    if (refused.has(problem.prop)) continue;
    const prop = spec.find((candidate) => candidate.name === problem.prop)!;
    issues.push(
      problem.kind === "missing"
        ? { prop: prop.name, message: `Missing required prop "${prop.name}": ${howToGive(prop)}` }
        : invalid(prop.name, origins.get(prop.name) ?? "default", problem.reason),
    );
  }
  throw new PropsError(issues);
}

function pick(
  prop: PropSpec,
  sources: PropsSources,
  fromOption: JsonObject | undefined,
  fromVariable: JsonObject | undefined,
): { source: string; coerced: Coerced } | undefined {
  const optionValues = prop.cliType === null ? undefined : sources.options.get(prop.optionName);
  if (optionValues !== undefined && optionValues.length > 0) {
    return { source: `--${prop.optionName}`, coerced: coerceOption(prop, optionValues) };
  }
  if (fromOption !== undefined && Object.hasOwn(fromOption, prop.name)) {
    return { source: "--props", coerced: { value: fromOption[prop.name] } };
  }
  const variable = prop.cliType === null ? undefined : sources.env[prop.envName];
  if (variable !== undefined) {
    return { source: prop.envName, coerced: coerceVariable(prop, variable) };
  }
  if (fromVariable !== undefined && Object.hasOwn(fromVariable, prop.name)) {
    return { source: "XMD_PROPS", coerced: { value: fromVariable[prop.name] } };
  }
  return undefined;
}

/** Repeated options give an array's items; any other prop takes one option. */
function coerceOption(prop: PropSpec, values: readonly string[]): Coerced {
  if (prop.cliType === "array") return coerceItems(prop, values);
  if (values.length > 1) return { reason: "must be given once" };
  return coerceScalar(prop.cliType!, values[0]);
}

/** A variable holds an array as a JSON array or a comma-separated list. */
function coerceVariable(prop: PropSpec, text: string): Coerced {
  if (prop.cliType !== "array") return coerceScalar(prop.cliType!, text);
  if (text.trim().startsWith("[")) {
    const value = parseJson(text);
    if (!Array.isArray(value)) return { reason: "must be a JSON array or a comma-separated list" };
    return nestsDeeperThan(value) ? { reason: TOO_DEEP } : { value };
  }
  return coerceItems(prop, text.trim() === "" ? [] : text.split(",").map((item) => item.trim()));
}

function coerceItems(prop: PropSpec, texts: readonly string[]): Coerced {
  const itemType = (prop.schema.items as JsonObject).type as string;
  const items: JsonValue[] = [];
  for (const [index, text] of texts.entries()) {
    const item = coerceScalar(itemType, text);
    if ("reason" in item) return { reason: `item ${index + 1} ${item.reason}` };
    items.push(item.value);
  }
  return { value: items };
}

function coerceScalar(type: string, text: string): Coerced {
  switch (type) {
    case "number":
    case "integer": {
      const value = numberText.test(text.trim()) ? Number(text) : NaN;
      if (Number.isFinite(value)) return { value };
      return { reason: `must be ${type === "integer" ? "an integer" : "a number"}` };
    }
    case "boolean": {
      const value = booleanWords.get(text.trim().toLowerCase());
      return value === undefined ? { reason: "must be true, false, 1, 0, yes or no" } : { value };
    }
    default:
      return { value: text };
  }
}

function unknownOptions(
  spec: PropsSpec,
  options: ReadonlyMap<string, readonly string[]>,
): PropsIssue[] {
  const exposed = spec.filter((prop) => prop.cliType !== null);
  const known = exposed.length > 0
    ? `the document's props options are ${exposed.map((prop) => `--${prop.optionName}`).join(", ")}`
    : spec.length > 0
    ? "the document's props can only be given in --props or XMD_PROPS"
    : "the document takes no props";
  return [...options.keys()]
    .filter((name) => !exposed.some((prop) => prop.optionName === name))
    .map((name) => {
      const close = didYouMean(name, exposed.map((prop) => prop.optionName));
      return {
        source: `--${name}`,
        message: `Unknown option --${name}${close ? ` (did you mean --${close}?)` : ""}: ${known}`,
      };
    });
}

/** Parses a whole-object source, reporting invalid JSON and unknown props into `issues`. */
function readJsonObject(
  spec: PropsSpec,
  text: string | undefined,
  source: string,
  issues: PropsIssue[],
): JsonObject | undefined {
  if (text === undefined) return undefined;
  const value = parseJson(text);
  if (value === undefined) {
    issues.push({ source, message: `Cannot read ${source}: it is not valid JSON` });
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    issues.push({ source, message: `Cannot read ${source}: it must be a JSON object of props` });
    return undefined;
  }
  if (nestsDeeperThan(value)) {
    issues.push({ source, message: `Cannot read ${source}: it ${TOO_DEEP}` });
    return undefined;
  }
  const known = spec.length > 0
    ? `known props are ${spec.map((prop) => prop.name).join(", ")}`
    : "the document takes no props";
  for (const name of Object.keys(value)) {
    if (spec.some((prop) => prop.name === name)) continue;
    issues.push({ prop: name, source, message: `Unknown prop "${name}" in ${source}: ${known}` });
  }
  return value;
}

/** The parsed JSON, or `undefined`; the parser's message is dropped because it quotes the input. */
function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function invalid(prop: string, source: string, reason: string): PropsIssue {
  return { prop, source, message: `Invalid prop "${prop}" from ${source}: ${reason}` };
}

function howToGive(prop: PropSpec): string {
  const inJson = "include it in --props or XMD_PROPS";
  return prop.cliType === null
    ? inJson
    : `pass --${prop.optionName}, set ${prop.envName}, or ${inJson}`;
}
