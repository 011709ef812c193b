/**
 * `@xmd/core/deno`: the Deno host providers (the caller's directory, native
 * `bash`, a terminal prompt) and the JSON Lines journal stream.
 *
 * @module
 */
export * from "./src/deno/host-providers.ts";
export { JsonlStream } from "./src/deno/jsonl-stream.ts";
