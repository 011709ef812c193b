/**
 * `<Elicit>` answer schemas: author-written JSON Schemas, compiled once per
 * distinct schema and checked against each answer before it is journaled.
 *
 * Invariant: a problem names where the answer is wrong (a JSON Pointer into
 * it) and why, never the answer itself.
 *
 * @module
 */
import { XmdError } from "../errors/xmd-error.ts";
import type Ajv from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";
import { loadSchemaLibrary, schemaLibrary } from "../document/schema-library.ts";
import { DocumentError } from "../document/document-error.ts";
import type { SourcePosition } from "../document/source-position.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json/json-depth.ts";
import type { JsonValue } from "../json/json-value.ts";

/**
 * An answer that does not satisfy its question's schema. It is the answerer's
 * mistake, not the document's: it is not journaled, so the run can be
 * continued with a valid answer. The message never echoes the answer.
 */
export class AnswerSchemaError extends XmdError {
  /** The class name, which journals record. */
  override name = "AnswerSchemaError";
  /** Its stable code. */
  readonly code = "answer.schema";
}

/** One way an answer fails its schema. */
export interface AnswerProblem {
  /** Where, as a JSON Pointer into the answer (`""` for the whole answer, `/ok` for a field). */
  path: string;
  /** Why, in the validator's words (`must be boolean`). */
  message: string;
}

/** The problems of an answer under one schema; empty when the answer satisfies it. */
export type AnswerCheck = (answer: JsonValue) => AnswerProblem[];

let ajv: Ajv.default | undefined;
const cache = new Map<string, ValidateFunction>();
const TOO_DEEP = `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`;

/** Compiles `schema` (refusing an invalid one at `position`) into an {@linkcode AnswerCheck}. */
export function compileAnswerSchema(schema: JsonValue, position: SourcePosition): AnswerCheck {
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
    ajv ??= new (schemaLibrary().AjvClass)({ strict: false, allErrors: true });
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
  return (answer) => {
    // Bounded before the validator sees it, which would recurse as deep as the answer.
    if (nestsDeeperThan(answer)) return [{ path: "", message: TOO_DEEP }];
    if (check(answer)) return [];
    return (check.errors ?? []).map((error) => ({
      path: error.instancePath,
      message: error.message ?? "is not allowed",
    }));
  };
}

/** `problems` as one line: `answer must be boolean; /note must be string`. */
export function formatAnswerProblems(problems: readonly AnswerProblem[]): string {
  return problems.map((problem) => `${problem.path || "answer"} ${problem.message}`).join("; ");
}

/** Throws an {@linkcode AnswerSchemaError} naming `name` when `problems` is not empty. */
export function refuseAnswer(name: string, problems: readonly AnswerProblem[]): void {
  if (problems.length === 0) return;
  if (problems[0].message === TOO_DEEP) {
    throw new AnswerSchemaError(`The answer for "${name}" ${TOO_DEEP}`);
  }
  throw new AnswerSchemaError(
    `The answer for "${name}" does not match its schema: ${formatAnswerProblems(problems)}`,
  );
}

/**
 * The problems of `answer` against `schema` (empty when it is valid), as
 * messages that never echo the answer. Used where answers are delivered
 * apart from the run (`xmd workflow answer`).
 */
export async function answerProblems(schema: JsonValue, answer: JsonValue): Promise<string[]> {
  // The schema is a stored one, checked apart from any program's load.
  await loadSchemaLibrary();
  const problems = compileAnswerSchema(schema, { file: "answer", line: 1, column: 1 })(answer);
  return problems.length === 0 ? [] : [formatAnswerProblems(problems)];
}
