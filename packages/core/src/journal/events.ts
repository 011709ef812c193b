/**
 * The journal's durable events and their schemas: every event read from any
 * stream is parsed strictly, never cast.
 *
 * - `yield`: an effect settled; appended before the expansion continues.
 * - `close`: a coroutine (the root expansion or a component's scope) ended.
 *
 * @module
 */
import * as z from "zod/mini";
import { lazySchema } from "../json/lazy-schema.ts";
import type { JsonValue } from "../json/json-value.ts";
import type { Schema } from "../json/schema.ts";

// Each schema is built on its first use (MDX-131). The JSON value schema recurses through its own
// built schema, so a nested value never goes through the lazy handle.
const jsonValueSchema: z.ZodMiniType<JsonValue> = lazySchema(() => {
  const value: z.ZodMiniType<JsonValue> = z.lazy(() =>
    z.union([
      z.null(),
      z.boolean(),
      z.number().check(z.refine(Number.isFinite)),
      z.string(),
      z.array(value),
      z.record(z.string(), value),
    ])
  );
  return value;
});

/** A JSON value schema (finite numbers, plain objects and arrays). */
export const JsonValueSchema: Schema<JsonValue> = jsonValueSchema;

/** An error as recorded: its class name and message (never a stored value). */
export interface ErrorRecord {
  /** The error's class name, e.g. `FileSystemError`. */
  name: string;
  /** Its message. */
  message: string;
  /** A stable code (POSIX for filesystem refusals), if any. */
  code?: string;
}

/** How an effect or a coroutine settled. */
export type Result =
  | { status: "ok"; value: JsonValue }
  | { status: "err"; error: ErrorRecord }
  | { status: "cancelled" };

/** What an effect was: its type, its name (which carries its source position) and its inputs. */
export interface Description {
  /** The effect type, e.g. `file.write`. */
  type: string;
  /** `<Element> <file>:<line>:<column>`. */
  name: string;
  /** Inputs. */
  [input: string]: JsonValue;
}

/** An effect settled. */
export interface YieldEvent {
  /** Discriminant. */
  type: "yield";
  /** The coroutine that ran the effect. */
  coroutineId: string;
  /** What the effect was. */
  description: Description;
  /** How it settled. */
  result: Result;
}

/** A coroutine ended. */
export interface CloseEvent {
  /** Discriminant. */
  type: "close";
  /** The coroutine that ended. */
  coroutineId: string;
  /** How it ended. */
  result: Result;
}

/** Any journal event. */
export type JournalEvent = YieldEvent | CloseEvent;

/** Coroutine ids are derived: `root`, `root.0`, `root.0.1`, … */
const CoroutineIdSchema = lazySchema(() => z.string().check(z.regex(/^root(\.(0|[1-9]\d*))*$/)));

const ErrorRecordSchema = lazySchema(() =>
  z.strictObject({
    name: z.string().check(z.minLength(1)),
    message: z.string(),
    code: z.optional(z.string()),
  })
);

const resultSchema: z.ZodMiniType<Result> = lazySchema(() =>
  z.discriminatedUnion("status", [
    z.strictObject({ status: z.literal("ok"), value: jsonValueSchema }),
    z.strictObject({ status: z.literal("err"), error: ErrorRecordSchema }),
    z.strictObject({ status: z.literal("cancelled") }),
  ])
);

const DescriptionSchema = lazySchema(() =>
  z.catchall(
    z.object({
      type: z.string().check(z.minLength(1)),
      name: z.string().check(z.minLength(1)),
    }),
    jsonValueSchema,
  )
);

const journalEventSchema: z.ZodMiniType<JournalEvent> = lazySchema(() =>
  z.discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("yield"),
      coroutineId: CoroutineIdSchema,
      description: DescriptionSchema,
      result: resultSchema,
    }),
    z.strictObject({
      type: z.literal("close"),
      coroutineId: CoroutineIdSchema,
      result: resultSchema,
    }),
  ]) as z.ZodMiniType<JournalEvent>
);

/** Any journal event, parsed strictly. */
export const JournalEventSchema: Schema<JournalEvent> = journalEventSchema;
