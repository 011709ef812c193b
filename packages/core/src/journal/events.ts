/**
 * The journal's durable events, as zod schemas: every event read from any
 * stream is parsed strictly, never cast.
 *
 * - `yield`: an effect settled; appended before the expansion continues.
 * - `close`: a coroutine (the root expansion or a component's scope) ended.
 *
 * @module
 */
import { z } from "zod";
import type { JsonValue } from "../json/json-value.ts";

/** A JSON value schema (finite numbers, plain objects and arrays). */
export const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.null(),
    z.boolean(),
    z.number().refine(Number.isFinite),
    z.string(),
    z.array(JsonValueSchema),
    z.record(z.string(), JsonValueSchema),
  ])
);

/** Coroutine ids are derived: `root`, `root.0`, `root.0.1`, … */
export const CoroutineIdSchema = z.string().regex(/^root(\.(0|[1-9]\d*))*$/);

/** A recorded error: its class name and message (never a stored value). */
export const ErrorRecordSchema = z.object({
  name: z.string().min(1),
  message: z.string(),
  code: z.string().optional(),
}).strict();

/** How an effect or a coroutine settled. */
export const ResultSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("ok"), value: JsonValueSchema }).strict(),
  z.object({ status: z.literal("err"), error: ErrorRecordSchema }).strict(),
  z.object({ status: z.literal("cancelled") }).strict(),
]);

/** What an effect was: its type, its name (which carries its source position) and its inputs. */
export const DescriptionSchema = z.object({
  type: z.string().min(1),
  name: z.string().min(1),
}).catchall(JsonValueSchema);

/** An effect settled. */
export const YieldEventSchema = z.object({
  type: z.literal("yield"),
  coroutineId: CoroutineIdSchema,
  description: DescriptionSchema,
  result: ResultSchema,
}).strict();

/** A coroutine ended. */
export const CloseEventSchema = z.object({
  type: z.literal("close"),
  coroutineId: CoroutineIdSchema,
  result: ResultSchema,
}).strict();

/** Any journal event. */
export const JournalEventSchema = z.discriminatedUnion("type", [
  YieldEventSchema,
  CloseEventSchema,
]);

/** A recorded error. */
export type ErrorRecord = z.infer<typeof ErrorRecordSchema>;
/** How an effect or a coroutine settled. */
export type Result = z.infer<typeof ResultSchema>;
/** An effect's description. */
export type Description = z.infer<typeof DescriptionSchema>;
/** An effect settled. */
export type YieldEvent = z.infer<typeof YieldEventSchema>;
/** A coroutine ended. */
export type CloseEvent = z.infer<typeof CloseEventSchema>;
/** Any journal event. */
export type JournalEvent = z.infer<typeof JournalEventSchema>;
