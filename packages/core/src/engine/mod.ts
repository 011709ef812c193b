/**
 * The expansion engine and its provider interfaces.
 *
 * @module
 */
export type * from "./providers.ts";
export { FileSystemError, type FileSystemErrorCode } from "./file-system-error.ts";
export { fileSystemRefusal, type MissingKind } from "./file-system-refusal.ts";
export { EffectRefusal } from "./effect-refusal.ts";
export { answerProblems, AnswerSchemaError } from "./answer-schema.ts";
export { CancelledError, EffectFailure, SuspendedError } from "./run-failures.ts";
export { interpolate, type RunOptions, type RunOutcome, runProgram } from "./run-program.ts";
export { joinLogical } from "./logical-path.ts";
export { MAX_NAME_BYTES, MAX_PATH_BYTES, pathLengthProblem, utf8Length } from "./path-limits.ts";
