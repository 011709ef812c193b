/**
 * The effect providers: everything a document does to the world goes through
 * these three interfaces, so the same expansion runs against the caller's
 * machine (`xmd run`) or a run's Workspace and Worker Shell (`xmd workflow`).
 *
 * Paths given to providers are POSIX paths relative to the provider's root,
 * already joined with the lexical `<Dir>` of the element (never absolute, never
 * escaping the root with `..`; the engine normalizes before calling).
 *
 * @module
 */
import type { JsonValue } from "../json/json-value.ts";
import type { AnswerCheck } from "./answer-schema.ts";
import type { SourcePosition } from "../document/source-position.ts";

/** Filesystem effects used by `<File>` and `<Glob>`. */
export interface FileSystemProvider {
  /** Reads a UTF-8 text file. Rejects with a `FileSystemError` (code `ENOENT`, `EISDIR`, …). */
  readText(path: string): Promise<string>;
  /** Writes a UTF-8 text file, creating parent directories. Rejects with a `FileSystemError`. */
  writeText(path: string, content: string): Promise<void>;
  /**
   * Lists regular files under `cwd` (relative POSIX paths from `cwd`) that
   * match any `include` glob and no `exclude` glob, sorted by UTF-16 code
   * units (`Array.prototype.sort`).
   */
  glob(cwd: string, include: readonly string[], exclude: readonly string[]): Promise<string[]>;
}

/** One shell block to run. */
export interface ShellRequest {
  /** The block's language: `sh` or `bash`. */
  lang: string;
  /** The script text, already interpolated. */
  script: string;
  /** Working directory, relative to the provider's root (`.` for the root). */
  cwd: string;
  /** Milliseconds before the block is stopped. */
  timeoutMs: number;
  /** Receives stdout as it is produced. */
  onStdout(chunk: string): void;
  /** Receives stderr as it is produced. */
  onStderr(chunk: string): void;
  /** Aborted when the run is cancelled (Ctrl-C). */
  signal: AbortSignal;
  /**
   * Where the block is in its document (its label, line and column). The
   * engine always sets it, so a provider can say which block runs; it is
   * optional so that a caller of a provider need not invent one.
   */
  position?: SourcePosition;
}

/** What a finished shell block produced. */
export interface ShellResult {
  /** Process exit code; 124 when stopped by its timeout. */
  exitCode: number;
  /** Everything written to stdout. */
  stdout: string;
  /** Everything written to stderr. */
  stderr: string;
  /** Whether the block was stopped by its timeout. */
  timedOut: boolean;
}

/** Runs `exec` code blocks. */
export interface ShellProvider {
  /** Runs one block to completion (or timeout, or abort). Rejects only when the block could not run at all. */
  run(request: ShellRequest): Promise<ShellResult>;
}

/** One question asked by `<Elicit>`. */
export interface ElicitRequest {
  /** The binding name (`as`). */
  name: string;
  /** The rendered question text. */
  question: string;
  /** The JSON Schema the answer must satisfy. */
  schema: JsonValue;
  /**
   * The ways `answer` fails `schema` (empty when it satisfies it), so a
   * provider that asks a person can ask again. The engine checks the answer
   * `ask` returns in any case.
   */
  problems: AnswerCheck;
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
}

/** Answers `<Elicit>` questions at once (a prompt, a flag). The engine validates the answer. */
export interface ElicitProvider {
  /** Not a suspending provider. */
  readonly suspends?: false;
  /** Returns the answer as a JSON value. */
  ask(request: ElicitRequest): Promise<JsonValue>;
}

/**
 * Answers `<Elicit>` by suspending the run: the engine journals the question
 * (`suspension_request`), asks for a delivered answer, and when there is none
 * stops the run as suspended. A later execution finds the answer and journals
 * it (`suspension_answer`).
 */
export interface SuspendingElicitProvider {
  /** Discriminant. */
  readonly suspends: true;
  /** The answer delivered for `suspensionId`, or `undefined` to suspend. */
  answer(suspensionId: string): Promise<JsonValue | undefined>;
}

/** The three providers an expansion uses. */
export interface Providers {
  /** `<File>`, `<Glob>`. */
  fs: FileSystemProvider;
  /** `exec` code blocks. */
  shell: ShellProvider;
  /** `<Elicit>`. */
  elicit: ElicitProvider | SuspendingElicitProvider;
}
