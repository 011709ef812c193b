/**
 * `@xmd/core/deno`: the Deno host providers (the caller's directory, native
 * `bash`, a terminal prompt), the JSON Lines journal stream, and the reader
 * of documents and their components from disk ({@linkcode loadProgramFile}).
 *
 * @module
 */
export * from "./src/deno/host-providers.ts";
export { JsonlStream } from "./src/deno/jsonl-stream.ts";
export {
  DocumentReadError,
  type DocumentReadProblem,
  loadProgramFile,
  type LoadProgramFileOptions,
  typedDocumentError,
  typedPositions,
} from "./src/deno/program-files.ts";
