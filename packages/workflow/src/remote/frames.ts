/**
 * The frames of the remote protocol, version 1: what a runner and a run's
 * Durable Object exchange over one WebSocket.
 *
 * A message is binary: a big-endian u32 header length, that many bytes of
 * UTF-8 JSON header, then the payload (the chunk bytes `put-chunks`, a
 * `commit` carrying its chunks, and the `get-chunks` reply hold; every other
 * frame's payload is empty). A request
 * header is `{v:1, id, type, …}`; a reply is `{v:1, re, type, …}` with `re`
 * the request's id (null when it could not be read) and `type` the
 * request's, or `error` with a stable `code` and a message.
 *
 * Invariants:
 * - Decoding never throws anything but `RemoteProtocolError` with a stable
 *   code, whatever the bytes: too large, truncated, not UTF-8, not JSON, a
 *   header of another version or shape, a payload that does not match it.
 * - Every header is parsed strictly with zod (unknown fields are refused)
 *   and every bound below is checked while decoding, before the frame
 *   reaches any storage.
 *
 * @module
 */
import {
  type JournalEvent,
  JournalEventSchema,
  type JsonValue,
  JsonValueSchema,
} from "@xmd/core/protocol";
import * as z from "zod";
import {
  type DocumentExecution,
  type PendingSuspension,
  type RunRecord,
  RunStatusSchema,
  StopReasonSchema,
} from "../contracts/run-record.ts";
import type { Frontier } from "../execution/run-commits.ts";
import type { NewRun } from "../store/run-store.ts";
import { HardLinkGroupsSchema } from "../workspace/hard-links.ts";
import { CHUNK_SIZE } from "../workspace/workspace-tables.ts";
import {
  REFUSAL_REASONS,
  REMOTE_ERROR_CODES,
  RemoteProtocolError,
} from "./remote-protocol-error.ts";

/** The protocol version this code speaks. */
export const PROTOCOL_VERSION = 1;
/** The WebSocket subprotocol both sides name for version 1. */
export const WEBSOCKET_PROTOCOL = "xmd.remote.v1";
/** The largest message either side sends or accepts (the runtime closes a socket above 32 MiB). */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** The largest chunk (the Workspace's chunk size). */
export const MAX_CHUNK_BYTES = CHUNK_SIZE;
/** Chunks in one `put-chunks`, `get-chunks` or `commit`. */
export const MAX_CHUNKS_PER_FRAME = 7;
/** Hashes in one `get-objects`. */
export const MAX_OBJECT_HASHES = 4096;
/** Events in one `read-events` page. */
export const MAX_EVENTS_PER_PAGE = 1000;
/** Bytes of objects one acquisition may stage with `put-objects` ahead of its commit. */
export const MAX_STAGED_BYTES = 32 * 1024 * 1024;
/**
 * The largest single value stored in one row (an event, a source, the props,
 * an answer, an object): Durable Object rows are capped at 2 MB.
 */
export const MAX_ROW_BYTES = 1.75 * 1024 * 1024;

const HASH = z.string().regex(/^[0-9a-f]{64}$/);
const COUNT = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/** Parses a frontier (`RunCommits`' `Frontier`: a commit frame carries a `RunChange`). */
export const FrontierSchema: z.ZodType<Frontier> = z.object({
  execution: COUNT,
  events: COUNT,
  root: HASH,
}).strict();

const EventSchema: z.ZodType<JournalEvent> = z.custom<JournalEvent>(
  (value) => JournalEventSchema.safeParse(value).success,
);
const JsonSchema: z.ZodType<JsonValue> = z.custom<JsonValue>(
  (value) => JsonValueSchema.safeParse(value).success,
);
const TreeEntrySchema = z.tuple([
  z.string(),
  z.enum(["dir", "file", "symlink"]),
  z.number().int(),
  z.string(),
]);

/** One Workspace object a commit sends: its full text, or a tree as a delta against a base. */
export type SentObject =
  | { hash: string; text: string }
  | {
    hash: string;
    base: string;
    remove: string[];
    set: [string, "dir" | "file" | "symlink", number, string][];
  };

const SentObjectSchema: z.ZodType<SentObject> = z.union([
  z.object({ hash: HASH, text: z.string() }).strict(),
  z.object({
    hash: HASH,
    base: HASH,
    remove: z.array(z.string()),
    set: z.array(TreeEntrySchema),
  }).strict(),
]);

/** A chunk's name and length, in the order its bytes follow in the payload. */
export interface ChunkHeader {
  /** The SHA-256 of its bytes. */
  hash: string;
  /** Its length in bytes. */
  length: number;
}

const ChunkHeaderSchema: z.ZodType<ChunkHeader> = z.object({
  hash: HASH,
  length: z.number().int().min(0).max(MAX_CHUNK_BYTES),
}).strict();

const SourceSchema = z.object({ label: z.string().min(1), text: z.string(), root: z.boolean() })
  .strict();

/** A new run as `create` sends it (the run store's `NewRun`). */
const NewRunSchema: z.ZodType<NewRun> = z.object({
  id: z.string().min(1).max(128),
  document: z.string().min(1),
  target: z.string().nullable(),
  definitionHash: HASH,
  props: z.record(z.string(), JsonSchema),
  propsHash: HASH,
  sources: z.array(SourceSchema).min(1),
}).strict();

const request = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ v: z.literal(PROTOCOL_VERSION), id: COUNT, type: z.literal(type), ...shape }).strict();

export type { Frontier };

const RequestSchema = z.discriminatedUnion("type", [
  request("hello", { role: z.enum(["executor", "reader"]) }),
  request("read-run", {}),
  request("read-events", {
    from: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    limit: z.number().int().min(1).max(MAX_EVENTS_PER_PAGE),
  }),
  request("get-objects", { hashes: z.array(HASH).min(1).max(MAX_OBJECT_HASHES) }),
  request("get-chunks", { hashes: z.array(HASH).min(1).max(MAX_CHUNKS_PER_FRAME) }),
  request("create", { run: NewRunSchema }),
  request("begin", { expected: FrontierSchema }),
  request("put-chunks", { chunks: z.array(ChunkHeaderSchema).min(1).max(MAX_CHUNKS_PER_FRAME) }),
  request("put-objects", { objects: z.array(SentObjectSchema).min(1) }),
  request("commit", {
    expected: FrontierSchema,
    event: EventSchema,
    root: HASH,
    objects: z.array(SentObjectSchema).optional(),
    links: z.optional(HardLinkGroupsSchema),
    chunks: z.array(ChunkHeaderSchema).min(1).max(MAX_CHUNKS_PER_FRAME).optional(),
  }),
  request("settle", {
    expected: FrontierSchema,
    status: z.enum(["suspended", "completed", "failed", "interrupted"]),
    stopReason: z.nullable(StopReasonSchema),
  }),
  request("answer", { suspensionId: z.string().min(1), value: JsonSchema }),
  request("cancel", {}),
  request("delete", {}),
  request("ping", {}),
]);

/** A request header, parsed. */
export type Request = z.infer<typeof RequestSchema>;
/** The type of a request. */
export type RequestType = Request["type"];
/** A request of type `T`, without the envelope. */
export type RequestBody<T extends RequestType> = Omit<Extract<Request, { type: T }>, "v" | "id">;

/** A decoded request: its header and its payload. */
export interface DecodedRequest {
  /** The parsed header. */
  request: Request;
  /** The payload (chunk bytes for `put-chunks` and a `commit` carrying chunks, else empty). */
  payload: Uint8Array;
}

/** The run as `read-run` answers it. */
export interface RunSnapshot {
  /** The run record. */
  record: RunRecord;
  /** The committed frontier. */
  frontier: Frontier;
  /** The resolved props. */
  props: Record<string, JsonValue>;
  /** The retained sources, root first. */
  sources: { label: string; text: string; root: boolean }[];
  /** Every document execution, in order. */
  executions: DocumentExecution[];
  /** The question the run waits on, if it is suspended. */
  pending: PendingSuspension | null;
  /** The answers delivered and not yet consumed. */
  answers: { suspensionId: string; value: JsonValue }[];
  /** The hard-link groups of the current root. */
  links: string[][];
}

const RecordSchema: z.ZodType<RunRecord> = z.object({
  id: z.string(),
  document: z.string(),
  target: z.string().nullable(),
  definitionHash: HASH,
  propsHash: HASH,
  status: RunStatusSchema,
  stopReason: z.nullable(StopReasonSchema),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  eventCount: COUNT,
  root: HASH,
}).strict();

const SnapshotSchema: z.ZodType<RunSnapshot> = z.object({
  record: RecordSchema,
  frontier: FrontierSchema,
  props: z.record(z.string(), JsonSchema),
  sources: z.array(SourceSchema),
  executions: z.array(
    z.object({
      seq: z.number().int().positive(),
      kind: z.enum(["start", "resume"]),
      startedAt: z.number().int(),
      endedAt: z.number().int().nullable(),
      outcome: z.nullable(RunStatusSchema),
    }).strict(),
  ),
  pending: z.object({
    suspensionId: z.string(),
    question: z.string(),
    schema: z.unknown(),
    answered: z.boolean(),
  }).strict().nullable(),
  answers: z.array(z.object({ suspensionId: z.string(), value: JsonSchema }).strict()),
  links: z.array(z.array(z.string())),
}).strict() as z.ZodType<RunSnapshot>;

const reply = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ v: z.literal(PROTOCOL_VERSION), re: COUNT, type: z.literal(type), ...shape }).strict();

const ReplySchema = z.discriminatedUnion("type", [
  reply("hello", {
    // The admitted run's id: a runner admitted by its issue learns it here, never computes it.
    run: z.string().min(1).max(128),
    role: z.enum(["executor", "reader"]),
    epoch: COUNT.nullable(),
    frontier: FrontierSchema.nullable(),
  }),
  reply("read-run", { run: SnapshotSchema.nullable() }),
  reply("read-events", {
    events: z.array(
      z.object({
        id: z.number().int().positive(),
        execution: z.number().int().positive(),
        at: z.number().int(),
        root: HASH,
        event: EventSchema,
      }).strict(),
    ),
  }),
  reply("get-objects", {
    objects: z.array(z.object({ hash: HASH, text: z.string() }).strict()),
    missing: z.array(HASH),
    served: COUNT,
  }),
  reply("get-chunks", { chunks: z.array(ChunkHeaderSchema), missing: z.array(HASH) }),
  reply("create", { frontier: FrontierSchema }),
  reply("begin", { frontier: FrontierSchema }),
  reply("put-chunks", { stored: COUNT }),
  reply("put-objects", { staged: COUNT }),
  reply("commit", { frontier: FrontierSchema, eventId: z.number().int().positive() }),
  reply("settle", { frontier: FrontierSchema }),
  reply("answer", {}),
  reply("cancel", {}),
  reply("delete", {}),
  reply("ping", {}),
  z.object({
    v: z.literal(PROTOCOL_VERSION),
    re: COUNT.nullable(),
    type: z.literal("error"),
    code: z.enum(REMOTE_ERROR_CODES),
    message: z.string(),
    reason: z.enum(REFUSAL_REASONS).optional(),
  }).strict(),
]);

/** A reply header, parsed. */
export type Reply = z.infer<typeof ReplySchema>;
/** The body of a reply to a request of type `T`, without the envelope. */
export type ReplyBody<T extends Reply["type"]> = Omit<
  Extract<Reply, { type: T }>,
  "v" | "re" | "type"
>;

/** A decoded reply: its header and its payload. */
export interface DecodedReply {
  /** The parsed header. */
  reply: Reply;
  /** The payload (chunk bytes for `get-chunks`, else empty). */
  payload: Uint8Array;
}

// Built once: a schema made per frame costs more to build than the frame costs to parse.
const IdOnlySchema = z.object({ id: COUNT });
const VersionOnlySchema = z.object({ v: z.unknown() });
const TypeOnlySchema = z.object({ type: z.string() });

const HEADER_LENGTH_BYTES = 4;
const EMPTY = new Uint8Array(0);
const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Encodes one message: `header` as JSON, then `payload`. Refuses one over the bound. */
export function encodeMessage(header: object, payload: Uint8Array = EMPTY): Uint8Array {
  const json = utf8.encode(JSON.stringify(header));
  const size = HEADER_LENGTH_BYTES + json.length + payload.length;
  if (size > MAX_MESSAGE_BYTES) {
    throw new RemoteProtocolError(
      "limit.message",
      `Cannot send a ${
        describe(header)
      }frame: it needs ${size} bytes, over the ${MAX_MESSAGE_BYTES}-byte bound`,
    );
  }
  const message = new Uint8Array(size);
  new DataView(message.buffer).setUint32(0, json.length);
  message.set(json, HEADER_LENGTH_BYTES);
  message.set(payload, HEADER_LENGTH_BYTES + json.length);
  return message;
}

/** Splits a message into its JSON header (not yet checked) and its payload. */
export function decodeMessage(message: Uint8Array): { header: unknown; payload: Uint8Array } {
  if (message.length > MAX_MESSAGE_BYTES) {
    throw new RemoteProtocolError(
      "protocol.too_large",
      `Cannot read a frame of ${message.length} bytes: the bound is ${MAX_MESSAGE_BYTES}`,
    );
  }
  if (message.length < HEADER_LENGTH_BYTES) {
    throw new RemoteProtocolError("protocol.malformed", "Cannot read a frame: it is truncated");
  }
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  const length = view.getUint32(0);
  if (length > message.length - HEADER_LENGTH_BYTES) {
    throw new RemoteProtocolError(
      "protocol.malformed",
      "Cannot read a frame: its header length runs past its end",
    );
  }
  let header: unknown;
  try {
    const text = strictUtf8.decode(
      message.subarray(HEADER_LENGTH_BYTES, HEADER_LENGTH_BYTES + length),
    );
    header = JSON.parse(text);
  } catch {
    throw new RemoteProtocolError(
      "protocol.malformed",
      "Cannot read a frame: its header is not UTF-8 JSON",
    );
  }
  return { header, payload: message.subarray(HEADER_LENGTH_BYTES + length) };
}

/** Encodes a request (`payload` only for `put-chunks` and a `commit` carrying chunks). */
export function encodeRequest(request: Request, payload?: Uint8Array): Uint8Array {
  return encodeMessage(request, payload);
}

/** Encodes a reply (`payload` only for `get-chunks`). */
export function encodeReply(reply: Reply, payload?: Uint8Array): Uint8Array {
  return encodeMessage(reply, payload);
}

/** The id of a header that may not parse, for the `re` of its error reply. */
export function requestIdOf(header: unknown): number | null {
  const id = IdOnlySchema.safeParse(header);
  return id.success ? id.data.id : null;
}

/** Decodes and checks a request, its bounds and its payload. */
export function decodeRequest(message: Uint8Array): DecodedRequest {
  const { header, payload } = decodeMessage(message);
  return parseRequest(header, payload);
}

/** Checks a request's header (from `decodeMessage`), its bounds and its payload. */
export function parseRequest(header: unknown, payload: Uint8Array): DecodedRequest {
  checkVersion(header);
  const request = strictly(RequestSchema, header, "request");
  const expected = request.type === "put-chunks" || request.type === "commit"
    ? (request.chunks ?? []).reduce((sum, chunk) => sum + chunk.length, 0)
    : 0;
  if (payload.length !== expected) {
    throw new RemoteProtocolError(
      "protocol.malformed",
      `Cannot read a ${request.type} frame: its payload holds ${payload.length} bytes, its header says ${expected}`,
    );
  }
  return { request, payload };
}

/** Decodes and checks a reply and its payload. */
export function decodeReply(message: Uint8Array): DecodedReply {
  const { header, payload } = decodeMessage(message);
  checkVersion(header);
  const reply = strictly(ReplySchema, header, "reply");
  const expected = reply.type === "get-chunks"
    ? reply.chunks.reduce((sum, chunk) => sum + chunk.length, 0)
    : 0;
  if (payload.length !== expected) {
    throw new RemoteProtocolError(
      "protocol.malformed",
      `Cannot read a ${reply.type} reply: its payload holds ${payload.length} bytes, its header says ${expected}`,
    );
  }
  return { reply, payload };
}

function checkVersion(header: unknown): void {
  const version = VersionOnlySchema.safeParse(header);
  if (version.success && version.data.v !== PROTOCOL_VERSION) {
    throw new RemoteProtocolError(
      "protocol.version",
      `Cannot read a frame of another protocol version: this side speaks version ${PROTOCOL_VERSION}`,
    );
  }
}

/**
 * Parses `header` with `schema`; a refusal names the frame's type and the
 * top-level field that is wrong, never a value (a deep path could run
 * through props or an event's keys).
 */
function strictly<T>(schema: z.ZodType<T>, header: unknown, what: string): T {
  let parsed: ReturnType<typeof schema.safeParse>;
  try {
    parsed = schema.safeParse(header);
  } catch {
    // A header nested deeper than the parser's stack is malformed, not a crash.
    throw new RemoteProtocolError(
      "protocol.malformed",
      `Cannot read a ${what}: it nests too deeply`,
    );
  }
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = typeof issue.path[0] === "string" && KNOWN_FIELDS.has(issue.path[0])
    ? `its ${issue.path[0]} field is malformed`
    : issue.code === "unrecognized_keys"
    ? "it has an unknown field"
    : "it is malformed";
  throw new RemoteProtocolError(
    "protocol.malformed",
    `Cannot read a ${describe(header)}${what}: ${field}`,
  );
}

const KNOWN_FIELDS = new Set([
  "v",
  "id",
  "re",
  "type",
  "role",
  "from",
  "limit",
  "hashes",
  "run",
  "expected",
  "chunks",
  "objects",
  "event",
  "root",
  "links",
  "status",
  "stopReason",
  "suspensionId",
  "value",
  "epoch",
  "frontier",
  "events",
  "missing",
  "served",
  "stored",
  "staged",
  "eventId",
  "code",
  "message",
]);

const TYPES = new Set([
  ...RequestSchema.options.map((option) => option.shape.type.value as string),
  "error",
]);

/** The frame's type when it is one this protocol knows, for messages (never a sent string). */
function describe(header: unknown): string {
  const type = TypeOnlySchema.safeParse(header);
  return type.success && TYPES.has(type.data.type) ? `${type.data.type} ` : "";
}
