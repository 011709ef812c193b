/**
 * How a question's JSON Schema is asked on a terminal: the shape of the
 * prompt (yes or no, a choice, bare text, JSON, or an object field by field)
 * and what a typed line means under it.
 *
 * Invariant: a form only decides how a line is read, never whether the
 * answer is valid: every answer it produces is still checked against the
 * whole schema. A form the schema does not fit exactly falls back to JSON,
 * which can express any answer.
 *
 * @module
 */
import { canonicalJson } from "../json/canonical-json.ts";
import type { JsonObject, JsonValue } from "../json/json-value.ts";

/** A form for one value. */
export type ValueForm =
  | { kind: "boolean" }
  | { kind: "choice"; values: JsonValue[]; labels: string[]; numbered: boolean }
  | { kind: "text" }
  | { kind: "json"; yesNo: boolean };

/** One property of an object asked field by field. */
export interface FieldForm {
  /** The property name. */
  name: string;
  /** How its value is asked. */
  form: ValueForm;
  /** Whether the schema requires it (else an empty line leaves it out). */
  required: boolean;
  /** The property's `description` or `title`, shown above its prompt. */
  description?: string;
}

/** How a whole question is asked. */
export type AnswerForm = ValueForm | { kind: "fields"; fields: FieldForm[] };

/** What a typed line means: a value, or what to tell the person before asking again. */
export type Reading = { value: JsonValue } | { retry: string };

/** The form of `schema`; objects with declared properties are asked field by field. */
export function answerForm(schema: JsonValue): AnswerForm {
  const object = asObject(schema);
  const properties = asObject(object?.properties);
  const types = declaredTypes(object);
  const isObject = types.length === 1 && types[0] === "object" ||
    (types.length === 0 && properties !== undefined);
  if (object && properties && isObject && !("enum" in object) && !("const" in object)) {
    const names = Object.keys(properties);
    if (names.length > 0) {
      const required = new Set(
        Array.isArray(object.required) ? object.required.filter((n) => typeof n === "string") : [],
      );
      return {
        kind: "fields",
        fields: names.map((name) => {
          const property = asObject(properties[name]);
          const text = property?.description ?? property?.title;
          return {
            name,
            form: valueForm(properties[name]),
            required: required.has(name),
            ...(typeof text === "string" && text.trim() !== "" ? { description: text.trim() } : {}),
          };
        }),
      };
    }
  }
  return valueForm(schema);
}

/** The form of a schema for a single value. */
function valueForm(schema: JsonValue): ValueForm {
  const object = asObject(schema);
  const choices = object === undefined
    ? undefined
    : Array.isArray(object.enum)
    ? object.enum
    : "const" in object
    ? [object.const]
    : undefined;
  if (choices !== undefined && choices.length > 0) {
    const labels = choices.map((value) =>
      typeof value === "string" ? value : JSON.stringify(value)
    );
    // Numbers stand for positions only when no choice reads as a number itself.
    const numbered = labels.every((label) => !/^\s*-?\d/.test(label));
    return { kind: "choice", values: choices, labels, numbered };
  }
  const types = declaredTypes(object);
  if (types.length === 1 && types[0] === "boolean") return { kind: "boolean" };
  if (types.includes("string")) return { kind: "text" };
  return { kind: "json", yesNo: types.includes("boolean") };
}

/** The prompt for a value: its hint, and the lines listing its choices. */
export function promptOf(form: ValueForm): { hint: string; lines: string[] } {
  switch (form.kind) {
    case "boolean":
      return { hint: "y/n", lines: [] };
    case "choice":
      return {
        hint: form.numbered ? `1-${form.labels.length}` : "a choice",
        lines: form.labels.map((label, index) => form.numbered ? `${index + 1}. ${label}` : label),
      };
    case "text":
      return { hint: "", lines: [] };
    case "json":
      return { hint: form.yesNo ? "JSON, or y/n" : "JSON", lines: [] };
  }
}

/** What `line` (already trimmed) means under `form`. */
export function readLine(form: ValueForm, line: string): Reading {
  const parsed = parseJson(line);
  switch (form.kind) {
    case "boolean": {
      const yesNo = readYesNo(line);
      if (yesNo !== undefined) return { value: yesNo };
      return typeof parsed === "boolean" ? { value: parsed } : { retry: "Type y or n." };
    }
    case "choice": {
      const byLabel = form.labels.indexOf(line);
      if (byLabel >= 0) return { value: form.values[byLabel] };
      if (form.numbered && /^\d+$/.test(line)) {
        const index = Number(line) - 1;
        if (index >= 0 && index < form.values.length) return { value: form.values[index] };
      }
      if (parsed !== undefined) {
        const key = canonicalJson(parsed);
        const match = form.values.find((value) => canonicalJson(value) === key);
        if (match !== undefined) return { value: match };
      }
      return {
        retry: form.numbered
          ? `Type one of the choices, or its number (1-${form.values.length}).`
          : "Type one of the choices.",
      };
    }
    case "text":
      return { value: typeof parsed === "string" ? parsed : line };
    case "json": {
      const yesNo = form.yesNo ? readYesNo(line) : undefined;
      if (yesNo !== undefined) return { value: yesNo };
      return parsed === undefined
        ? { retry: "That is not JSON; type a JSON value (? shows the schema)." }
        : { value: parsed };
    }
  }
}

/** The JSON value of `text`, or `undefined` when it is not JSON. */
export function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function readYesNo(line: string): boolean | undefined {
  if (/^y(es)?$/i.test(line)) return true;
  if (/^no?$/i.test(line)) return false;
  return undefined;
}

function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : undefined;
}

/** The `type` keyword as a list (empty when absent or malformed). */
function declaredTypes(schema: JsonObject | undefined): string[] {
  const declared = schema?.type;
  if (typeof declared === "string") return [declared];
  return Array.isArray(declared) ? declared.filter((type) => typeof type === "string") : [];
}
