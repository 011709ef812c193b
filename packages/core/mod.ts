/**
 * `@xmd/core`: the document engine and the durable journal protocol.
 *
 * A document is parsed and checked before anything runs
 * ({@linkcode loadProgram}), then expanded ({@linkcode runProgram}) with every
 * effect going through three providers (filesystem, shell, elicitation) and a
 * {@linkcode Journal} that replays a recorded prefix and records the rest.
 * This module uses web-standard APIs only; host providers and the JSON Lines
 * journal live in `@xmd/core/deno`.
 *
 * @example Running a document in memory
 * ```ts
 * import assert from "node:assert/strict";
 * import { Journal, loadProgram, MemoryStream, disabledSecretGate, runProgram } from "@xmd/core";
 * const program = await loadProgram({ file: "hi.md", text: "# Hi {props.name}\n" }, () =>
 *   Promise.resolve(undefined));
 * const stream = new MemoryStream();
 * const journal = await Journal.open(stream, disabledSecretGate);
 * let out = "";
 * const refuse = () => Promise.reject(new Error("no effects here"));
 * const outcome = await runProgram({
 *   program,
 *   props: { name: "Ada" },
 *   providers: {
 *     fs: { readText: refuse, writeText: refuse, glob: refuse },
 *     shell: { run: refuse },
 *     elicit: { ask: refuse },
 *   },
 *   journal,
 *   stdout: (text) => out += text,
 *   stderr: () => {},
 *   signal: new AbortController().signal,
 * });
 * assert.deepEqual(outcome, { status: "completed" });
 * assert.equal(out, "# Hi Ada\n");
 * // The journal holds the props' digest (never their values) and the root's end.
 * assert.deepEqual(
 *   stream.events.map((event) => event.type === "yield" ? event.description.type : event.type),
 *   ["props", "close"],
 * );
 * ```
 *
 * @module
 */
export { DocumentError } from "./src/document/document-error.ts";
export type { SourcePosition } from "./src/document/source-position.ts";
export type { ParsedDocument } from "./src/document/parse-document.ts";
export type * from "./src/document/tree.ts";
export type { CompiledExpression, Scope } from "./src/expression/mod.ts";
export { loadProgram, type Program, type SourceReader } from "./src/document/load-program.ts";
export type { JsonObject, JsonValue } from "./src/json/json-value.ts";
export type { Schema, SchemaIssue, SchemaResult } from "./src/json/schema.ts";
export { canonicalJson } from "./src/json/canonical-json.ts";
export { sha256Hex } from "./src/hash/sha256.ts";
export {
  type CloseEvent,
  type Description,
  type ErrorRecord,
  type JournalEvent,
  JournalEventSchema,
  JsonValueSchema,
  type Result,
  type YieldEvent,
} from "./src/journal/events.ts";
export type { DurableStream, RecordedHistory } from "./src/journal/durable-stream.ts";
export {
  DivergenceError,
  type DivergenceKind,
  JournalFormatError,
  JournalStoppedError,
  JournalWriteError,
} from "./src/journal/journal-errors.ts";
export { type EffectSettlement, Journal, type JournalState } from "./src/journal/journal.ts";
export { MemoryStream } from "./src/journal/memory-stream.ts";
export type * from "./src/engine/providers.ts";
export {
  FileSystemError,
  type FileSystemErrorCode,
  type FileSystemRefusalCode,
} from "./src/engine/file-system-error.ts";
export { XmdError } from "./src/errors/xmd-error.ts";
export { ERROR_CODES, type XmdErrorCode } from "./src/errors/error-codes.ts";
export { EffectRefusal } from "./src/engine/effect-refusal.ts";
export {
  type AnswerCheck,
  type AnswerProblem,
  AnswerSchemaError,
} from "./src/engine/answer-schema.ts";
export { CancelledError, EffectFailure, SuspendedError } from "./src/engine/run-failures.ts";
export { type RunOptions, type RunOutcome, runProgram } from "./src/engine/run-program.ts";
export { formatPropsHelp } from "./src/props/props-help.ts";
export { PropsError, type PropsIssue } from "./src/props/props-error.ts";
export type { PropCliType, PropSpec, PropsSpec } from "./src/props/props-spec.ts";
export { type PropsSources, resolveProps } from "./src/props/resolve-props.ts";
export {
  createSecretGate,
  disabledSecretGate,
  SecretDetectedError,
  type SecretGate,
  SecretScanError,
  type SecretScanFailure,
  type SecretWhere,
} from "./src/secret/mod.ts";
export { GlobPatternError } from "./src/glob/glob-pattern.ts";
