/**
 * `@xmd/core/internal`: what the other xmd packages use of the engine's
 * insides. **Unstable**: not part of the public API, no compatibility is
 * promised between versions, and nothing outside this repository should
 * import it; a library user reaches everything it needs from `@xmd/core`,
 * `@xmd/core/protocol` and `@xmd/core/deno`.
 *
 * @module
 */
export { walkElements } from "./src/document/walk-elements.ts";
// Also in `@xmd/core`: here for a package that checks a loaded program without loading the
// engine and the parser the public barrel brings (`checkWorkflowSupport`).
export { DocumentError } from "./src/document/document-error.ts";
export { formatPosition } from "./src/document/source-position.ts";
export { answerProblems, refuseAnswer } from "./src/engine/answer-schema.ts";
export { type ProgramQuestion, programQuestions } from "./src/engine/program-questions.ts";
export { fileSystemRefusal, type MissingKind } from "./src/engine/file-system-refusal.ts";
export { MAX_JSON_DEPTH, nestsDeeperThan } from "./src/json/json-depth.ts";
export { compileGlob } from "./src/glob/glob-pattern.ts";
export { didYouMean } from "./src/text/did-you-mean.ts";
export { type ExecObserver, observedShell } from "./src/engine/observed-shell.ts";
export { propsEvent } from "./src/engine/props-event.ts";
