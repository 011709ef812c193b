/**
 * The methods an expression may call. Invariant: every method here is pure,
 * takes no callback, accepts only JSON arguments of the declared types and
 * returns a runtime value whose string or array size stays within the bounds,
 * checked before any large allocation so `"x".repeat(1e9)` costs nothing.
 *
 * @module
 */
import type { JsonValue } from "../json/json-value.ts";
import { describeKind, type RuntimeValue } from "./_runtime-value.ts";

/** The longest string a method may return, in UTF-16 code units. */
export const MAX_STRING_LENGTH = 1_048_576;
/** The most elements an array returned by a method may have. */
export const MAX_ARRAY_LENGTH = 100_000;

/** The largest depth `flat` accepts; deeper flattening of JSON is never needed. */
const MAX_FLAT_DEPTH = 10;

/** Raises a positioned runtime refusal; built once per call site by the compiler. */
export type Fail = (reason: string) => never;

type ParameterType = "string" | "number" | "value";

/** One allowlisted method for one receiver type. */
export interface Method<Receiver> {
  /** Parameter types in order; with `variadic`, the last one repeats. */
  readonly parameters: readonly ParameterType[];
  /** How many leading parameters are required. */
  readonly required: number;
  readonly variadic: boolean;
  /** Runs on arguments already checked against `parameters`. */
  readonly run: (receiver: Receiver, args: readonly RuntimeValue[], fail: Fail) => RuntimeValue;
}

/** The methods sharing one name, one per receiver type that has it. */
export interface MethodFamily {
  readonly name: string;
  readonly string?: Method<string>;
  readonly array?: Method<JsonValue[]>;
  readonly number?: Method<number>;
}

function method<Receiver>(
  parameters: readonly ParameterType[],
  required: number,
  run: Method<Receiver>["run"],
  variadic = false,
): Method<Receiver> {
  return { parameters, required, variadic, run };
}

function checkLength(name: string, length: number, fail: Fail): void {
  if (length > MAX_STRING_LENGTH) {
    fail(`Cannot call "${name}": the result would be longer than ${MAX_STRING_LENGTH} characters`);
  }
}

function checkCount(name: string, count: number, fail: Fail): void {
  if (count > MAX_ARRAY_LENGTH) {
    fail(`Cannot call "${name}": the result would have more than ${MAX_ARRAY_LENGTH} elements`);
  }
}

function countOccurrences(text: string, pattern: string): number {
  if (pattern === "") return text.length + 1;
  let count = 0;
  for (let at = text.indexOf(pattern); at !== -1; at = text.indexOf(pattern, at + pattern.length)) {
    count++;
  }
  return count;
}

function integerIn(name: string, what: string, value: number, max: number, fail: Fail): number {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    fail(`Cannot call "${name}": ${what} must be an integer from 0 to ${max}`);
  }
  return value;
}

// Replacements are literal text: `$&` and friends are not expanded, so an
// interpolated value containing `$` is never rewritten.
const literal = (replacement: string) => () => replacement;

const str = (value: RuntimeValue) => value as string;
const num = (value: RuntimeValue) => value as number | undefined;

const stringMethods: Record<string, Method<string>> = {
  toUpperCase: method([], 0, (s) => s.toUpperCase()),
  toLowerCase: method([], 0, (s) => s.toLowerCase()),
  trim: method([], 0, (s) => s.trim()),
  trimStart: method([], 0, (s) => s.trimStart()),
  trimEnd: method([], 0, (s) => s.trimEnd()),
  startsWith: method(["string", "number"], 1, (s, [a, b]) => s.startsWith(str(a), num(b))),
  endsWith: method(["string", "number"], 1, (s, [a, b]) => s.endsWith(str(a), num(b))),
  includes: method(["string", "number"], 1, (s, [a, b]) => s.includes(str(a), num(b))),
  indexOf: method(["string", "number"], 1, (s, [a, b]) => s.indexOf(str(a), num(b))),
  lastIndexOf: method(["string", "number"], 1, (s, [a, b]) => s.lastIndexOf(str(a), num(b))),
  slice: method(["number", "number"], 0, (s, [a, b]) => s.slice(num(a), num(b))),
  substring: method(["number", "number"], 0, (s, [a, b]) => s.substring(num(a) ?? 0, num(b))),
  split: method(["string", "number"], 1, (s, [a, b]) => s.split(str(a), num(b))),
  replace: method(["string", "string"], 2, (s, [a, b], fail) => {
    checkLength("replace", s.length + str(b).length, fail);
    return s.replace(str(a), literal(str(b)));
  }),
  replaceAll: method(["string", "string"], 2, (s, [a, b], fail) => {
    const pattern = str(a);
    const replacement = str(b);
    const growth = countOccurrences(s, pattern) * (replacement.length - pattern.length);
    checkLength("replaceAll", s.length + growth, fail);
    return s.replaceAll(pattern, literal(replacement));
  }),
  padStart: method(["number", "string"], 1, (s, [a, b], fail) => {
    checkLength("padStart", num(a) ?? 0, fail);
    return s.padStart(num(a) ?? 0, b === undefined ? undefined : str(b));
  }),
  padEnd: method(["number", "string"], 1, (s, [a, b], fail) => {
    checkLength("padEnd", num(a) ?? 0, fail);
    return s.padEnd(num(a) ?? 0, b === undefined ? undefined : str(b));
  }),
  repeat: method(["number"], 1, (s, [a], fail) => {
    const count = num(a) ?? 0;
    if (count < 0) fail(`Cannot call "repeat": the count must not be negative`);
    checkLength("repeat", s.length * Math.trunc(count), fail);
    return s.repeat(count);
  }),
  at: method(["number"], 1, (s, [a]) => s.at(num(a) ?? 0)),
  concat: method(["string"], 0, (s, args, fail) => {
    const parts = args.map(str);
    checkLength("concat", parts.reduce((sum, part) => sum + part.length, s.length), fail);
    return s.concat(...parts);
  }, true),
};

const arrayMethods: Record<string, Method<JsonValue[]>> = {
  includes: method(["value", "number"], 1, (xs, [a, b]) => xs.includes(a as JsonValue, num(b))),
  indexOf: method(["value", "number"], 1, (xs, [a, b]) => xs.indexOf(a as JsonValue, num(b))),
  lastIndexOf: method(
    ["value", "number"],
    1,
    (xs, [a, b]) =>
      b === undefined ? xs.lastIndexOf(a as JsonValue) : xs.lastIndexOf(a as JsonValue, num(b)),
  ),
  join: method(["string"], 0, (xs, [a], fail) => {
    const separator = a === undefined ? "," : str(a);
    let length = Math.max(0, xs.length - 1) * separator.length;
    const parts = xs.map((element, index) => {
      if (typeof element === "object" && element !== null) {
        fail(
          `Cannot call "join": element ${index + 1} is ${describeKind(element)}; ` +
            `join needs strings, numbers, booleans or null`,
        );
      }
      const part = element === null ? "" : String(element);
      length += part.length;
      return part;
    });
    checkLength("join", length, fail);
    return parts.join(separator);
  }),
  slice: method(["number", "number"], 0, (xs, [a, b]) => xs.slice(num(a), num(b))),
  at: method(["number"], 1, (xs, [a]) => xs.at(num(a) ?? 0)),
  concat: method(["value"], 0, (xs, args, fail) => {
    const values = args as readonly JsonValue[];
    const count = values.reduce<number>(
      (sum, value) => sum + (Array.isArray(value) ? value.length : 1),
      xs.length,
    );
    checkCount("concat", count, fail);
    return xs.concat(...values);
  }, true),
  flat: method(["number"], 0, (xs, [a], fail) => {
    const depth = integerIn("flat", "the depth", num(a) ?? 1, MAX_FLAT_DEPTH, fail);
    return (xs as unknown[]).flat(depth) as JsonValue[];
  }),
};

const numberMethods: Record<string, Method<number>> = {
  toFixed: method(["number"], 0, (n, [a], fail) => {
    return n.toFixed(integerIn("toFixed", "the number of digits", num(a) ?? 0, 100, fail));
  }),
};

const families: ReadonlyMap<string, MethodFamily> = new Map(
  [...new Set([stringMethods, arrayMethods, numberMethods].flatMap(Object.keys))].map((name) => [
    name,
    {
      name,
      string: Object.hasOwn(stringMethods, name) ? stringMethods[name] : undefined,
      array: Object.hasOwn(arrayMethods, name) ? arrayMethods[name] : undefined,
      number: Object.hasOwn(numberMethods, name) ? numberMethods[name] : undefined,
    },
  ]),
);

/** Every allowlisted method name, sorted, for messages. */
export const ALLOWED_METHOD_NAMES: readonly string[] = [...families.keys()].sort();

/** The allowlisted methods named `name`, or `undefined` when none is. */
export function findMethodFamily(name: string): MethodFamily | undefined {
  return families.get(name);
}

function members(family: MethodFamily): Method<never>[] {
  return [family.string, family.array, family.number].filter((m) => m !== undefined);
}

/**
 * Says why `count` arguments fit no method of the family, or returns
 * `undefined` when some receiver type accepts that many.
 */
export function arityProblem(family: MethodFamily, count: number): string | undefined {
  const candidates = members(family);
  if (candidates.some((m) => count >= m.required && (m.variadic || count <= m.parameters.length))) {
    return undefined;
  }
  return arityMessage(family.name, candidates, count);
}

function arityMessage(name: string, candidates: readonly Method<never>[], count: number): string {
  const least = Math.min(...candidates.map((m) => m.required));
  const most = Math.max(...candidates.map((m) => m.variadic ? Infinity : m.parameters.length));
  const takes = most === 0
    ? "no arguments"
    : most === Infinity
    ? `at least ${least} argument${least === 1 ? "" : "s"}`
    : least === most
    ? `${least} argument${least === 1 ? "" : "s"}`
    : `${least} to ${most} arguments`;
  return `Cannot call "${name}" with ${count} argument${count === 1 ? "" : "s"}: it takes ${takes}`;
}

/** Whether the family has a method for this receiver's type. */
export function hasMethodFor(family: MethodFamily, receiver: JsonValue): boolean {
  if (typeof receiver === "string") return family.string !== undefined;
  if (Array.isArray(receiver)) return family.array !== undefined;
  if (typeof receiver === "number") return family.number !== undefined;
  return false;
}

/** Names the receiver types that have the family's methods ("strings and arrays"). */
export function receiverTypes(family: MethodFamily): string {
  const names = [
    family.string && "strings",
    family.array && "arrays",
    family.number && "numbers",
  ].filter((name) => name !== undefined);
  return names.join(" and ");
}

function fits(type: ParameterType, value: RuntimeValue): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "value":
      return value !== undefined;
  }
}

const TYPE_NAMES: Record<ParameterType, string> = {
  string: "a string",
  number: "a number",
  value: "a JSON value",
};

/**
 * Calls the family's method for the receiver's type, which the caller has
 * checked with {@linkcode hasMethodFor}.
 */
export function callMethod(
  family: MethodFamily,
  receiver: JsonValue,
  args: readonly RuntimeValue[],
  fail: Fail,
): RuntimeValue {
  if (typeof receiver === "string" && family.string) {
    return invoke(family.name, family.string, receiver, args, fail);
  }
  if (Array.isArray(receiver) && family.array) {
    return invoke(family.name, family.array, receiver, args, fail);
  }
  if (typeof receiver === "number" && family.number) {
    return invoke(family.name, family.number, receiver, args, fail);
  }
  return fail(`Cannot call "${family.name}" on ${describeKind(receiver)}`);
}

/**
 * Checks the arguments against the method's parameters, runs it and checks
 * the size of its result. Trailing `undefined` arguments of a method with
 * optional parameters count as omitted, as in JavaScript.
 */
function invoke<Receiver>(
  name: string,
  method: Method<Receiver>,
  receiver: Receiver,
  given: readonly RuntimeValue[],
  fail: Fail,
): RuntimeValue {
  const { parameters, required, variadic } = method;
  let count = given.length;
  if (!variadic) { while (count > required && given[count - 1] === undefined) count--; }
  const args = count === given.length ? given : given.slice(0, count);
  if (count < required || (!variadic && count > parameters.length)) {
    fail(arityMessage(name, [method], count));
  }
  for (let index = 0; index < count; index++) {
    const type = parameters[Math.min(index, parameters.length - 1)];
    const value = args[index];
    if (value === undefined && index >= required && !variadic) continue;
    if (!fits(type, value)) {
      fail(
        `Cannot call "${name}": argument ${index + 1} must be ${TYPE_NAMES[type]}, ` +
          `got ${describeKind(value)}`,
      );
    }
  }
  const result = method.run(receiver, args, fail);
  if (typeof result === "string") checkLength(name, result.length, fail);
  else if (Array.isArray(result)) checkCount(name, result.length, fail);
  return result;
}
