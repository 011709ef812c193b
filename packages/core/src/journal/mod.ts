/**
 * The durable journal: events, the stream interface, replay and recording.
 *
 * @module
 */
export * from "./events.ts";
export type { DurableStream } from "./durable-stream.ts";
export * from "./journal-errors.ts";
export { type EffectSettlement, Journal, type JournalState } from "./journal.ts";
export { MemoryStream } from "./memory-stream.ts";
