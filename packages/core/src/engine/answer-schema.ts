/**
 * `<Elicit>` answer schemas: author-written JSON Schemas, compiled once per
 * distinct schema and checked against each answer before it is journaled.
 *
 * @module
 */
import Ajv from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";
import { DocumentError } from "../document/document-error.ts";
import type { SourcePosition } from "../document/source-position.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json/json-depth.ts";
import type { JsonValue } from "../json/json-value.ts";

/**
 * An answer that does not satisfy its question's schema. It is the answerer's
 * mistake, not the document's: it is not journaled, so the run can be
 * continued with a valid answer. The message never echoes the answer.
 */
export class AnswerSchemaError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "AnswerSchemaError";
}

const ajv = new Ajv.default({ strict: false, allErrors: true });
const cache = new Map<string, ValidateFunction>();

/** Compiles `schema` (refusing an invalid one at `position`) into a checker that throws `AnswerSchemaError`. */
export function compileAnswerSchema(
  schema: JsonValue,
  position: SourcePosition,
): (answer: JsonValue, name: string) => void {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new DocumentError("The schema of <Elicit> must be a JSON Schema object", position);
  }
  if (nestsDeeperThan(schema)) {
    throw new DocumentError(
      `The schema of <Elicit> nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
      position,
    );
  }
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (!validate) {
    try {
      validate = ajv.compile(schema);
    } catch (error) {
      throw new DocumentError(
        `The schema of <Elicit> is not a valid JSON Schema: ${(error as Error).message}`,
        position,
      );
    }
    cache.set(key, validate);
  }
  const check = validate;
  return (answer, name) => {
    if (nestsDeeperThan(answer)) {
      throw new AnswerSchemaError(
        `The answer for "${name}" nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
      );
    }
    if (check(answer)) return;
    const problems = (check.errors ?? []).map((error) =>
      `${error.instancePath || "answer"} ${error.message}`
    );
    throw new AnswerSchemaError(
      `The answer for "${name}" does not match its schema: ${problems.join("; ")}`,
    );
  };
}

/**
 * The problems of `answer` against `schema` (empty when it is valid), as
 * messages that never echo the answer. Used where answers are delivered
 * apart from the run (`xmd workflow answer`).
 */
export function answerProblems(schema: JsonValue, answer: JsonValue): string[] {
  try {
    compileAnswerSchema(schema, { file: "answer", line: 1, column: 1 })(answer, "answer");
    return [];
  } catch (error) {
    if (!(error instanceof AnswerSchemaError)) throw error;
    return [error.message.replace(/^The answer for "answer" does not match its schema: /, "")];
  }
}
