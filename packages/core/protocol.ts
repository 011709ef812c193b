/**
 * `@xmd/core/protocol`: what stores and hosts exchange about a run without
 * running it: the journal's events and their schema, canonical JSON, SHA-256
 * as hex, JSON values, the filesystem refusal a journal records with the
 * path bounds both modes share, and the base of every xmd error with the
 * table of their stable codes.
 *
 * Invariant: this entry reaches zod and nothing else. It holds none of the
 * engine, the props validator (ajv, yaml), the document parser (micromark)
 * or the secret gate (secretlint), so a storage engine built on it bundles
 * into a Durable Object without them; `@xmd/core` is the whole engine.
 *
 * @example Parsing a received event and naming its value
 * ```ts
 * import assert from "node:assert/strict";
 * import { canonicalJson, JournalEventSchema, sha256Hex } from "@xmd/core/protocol";
 *
 * const received: unknown = JSON.parse(
 *   '{"type":"close","coroutineId":"root","result":{"status":"ok","value":{"b":1,"a":2}}}',
 * );
 * const event = JournalEventSchema.parse(received);
 * assert.ok(event.result.status === "ok");
 * assert.equal(canonicalJson(event.result.value), '{"a":2,"b":1}');
 * assert.equal(
 *   sha256Hex(canonicalJson(event.result.value)),
 *   sha256Hex(canonicalJson({ a: 2, b: 1 })),
 * );
 * // A coroutine id is derived, never free text: this event is refused.
 * assert.throws(() => JournalEventSchema.parse({ ...event, coroutineId: "main" }));
 * ```
 *
 * @module
 */
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
export type { JsonObject, JsonValue } from "./src/json/json-value.ts";
export type { Schema, SchemaIssue, SchemaResult } from "./src/json/schema.ts";
export { canonicalJson } from "./src/json/canonical-json.ts";
export { lazySchema } from "./src/json/lazy-schema.ts";
export { Sha256Hasher, sha256Hex } from "./src/hash/sha256.ts";
export { EffectRefusal } from "./src/engine/effect-refusal.ts";
export {
  FileSystemError,
  type FileSystemErrorCode,
  type FileSystemRefusalCode,
} from "./src/engine/file-system-error.ts";
export { XmdError } from "./src/errors/xmd-error.ts";
export { ERROR_CODES, type XmdErrorCode } from "./src/errors/error-codes.ts";
export {
  MAX_NAME_BYTES,
  MAX_PATH_BYTES,
  pathLengthProblem,
  utf8Length,
} from "./src/engine/path-limits.ts";
