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
 * import { Journal, loadProgram, MemoryStream, disabledSecretGate, runProgram } from "@xmd/core";
 * const program = await loadProgram({ file: "hi.md", text: "# Hi {props.name}\n" }, () =>
 *   Promise.resolve(undefined));
 * const journal = await Journal.open(new MemoryStream(), disabledSecretGate);
 * let out = "";
 * const refuse = () => Promise.reject(new Error("no effects here"));
 * await runProgram({
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
 * console.log(out); // "# Hi Ada\n"
 * ```
 *
 * @module
 */
export { DocumentError } from "./src/document/document-error.ts";
export { formatPosition, type SourcePosition } from "./src/document/source-position.ts";
export {
  DEFAULT_EXEC_TIMEOUT_MS,
  type ParsedDocument,
  parseDocument,
  type ParseOptions,
} from "./src/document/parse-document.ts";
export type * from "./src/document/tree.ts";
export {
  componentCandidates,
  loadProgram,
  type Program,
  type SourceReader,
  walkElements,
} from "./src/document/load-program.ts";
export { isJsonValue, type JsonObject, type JsonValue } from "./src/json/json-value.ts";
export { canonicalJson } from "./src/json/canonical-json.ts";
export { MAX_JSON_DEPTH, nestsDeeperThan } from "./src/json/json-depth.ts";
export { sha256, sha256Hex } from "./src/hash/sha256.ts";
export { didYouMean } from "./src/text/did-you-mean.ts";
export * from "./src/journal/mod.ts";
export * from "./src/engine/mod.ts";
export * from "./src/props/mod.ts";
export * from "./src/secret/mod.ts";
export * from "./src/glob/mod.ts";
