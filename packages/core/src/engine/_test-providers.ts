/**
 * In-memory providers for engine and journal tests: a Map-backed filesystem,
 * a scripted shell and canned elicitation answers. Each records its calls so a
 * test can assert which effects actually reached the world, and in what order.
 *
 * @module
 */
import { loadProgram, type Program } from "../document/load-program.ts";
import { compileGlob } from "../glob/mod.ts";
import type { JsonObject, JsonValue } from "../json/json-value.ts";
import type { JournalEvent } from "../journal/events.ts";
import { Journal } from "../journal/journal.ts";
import { MemoryStream } from "../journal/memory-stream.ts";
import { disabledSecretGate } from "../secret/mod.ts";
import { FileSystemError } from "./file-system-error.ts";
import type {
  ElicitProvider,
  ElicitRequest,
  FileSystemProvider,
  Providers,
  ShellProvider,
  ShellRequest,
  ShellResult,
} from "./providers.ts";
import { type RunOutcome, runProgram } from "./run-program.ts";

/** One call that reached a provider, in the order calls were made. */
export type ProviderCall =
  | { provider: "fs"; op: "read"; path: string }
  | { provider: "fs"; op: "write"; path: string; content: string }
  | { provider: "fs"; op: "glob"; cwd: string; include: string[]; exclude: string[] }
  | { provider: "shell"; lang: string; script: string; cwd: string; timeoutMs: number }
  | { provider: "elicit"; name: string; question: string; schema: JsonValue };

/** A shared, ordered log of provider calls. */
export class CallLog {
  readonly calls: ProviderCall[] = [];

  /** Records a call. */
  push(call: ProviderCall): void {
    this.calls.push(call);
  }

  /** A one-line summary of each call (`fs.write a/b`, `shell echo hi`, `elicit ok`). */
  get summary(): string[] {
    return this.calls.map((call) => {
      switch (call.provider) {
        case "fs":
          return call.op === "glob" ? `fs.glob ${call.cwd}` : `fs.${call.op} ${call.path}`;
        case "shell":
          return `shell ${call.script.trim()}`;
        case "elicit":
          return `elicit ${call.name}`;
      }
    });
  }
}

/**
 * A filesystem held in a Map of file path to content. Directories exist
 * implicitly as prefixes of file paths; `writeText` records the parent
 * directories it creates in `dirs`.
 */
export class MemoryFileSystem implements FileSystemProvider {
  readonly files: Map<string, string>;
  readonly dirs = new Set<string>();
  readonly #log: CallLog;

  constructor(files: Record<string, string> = {}, log: CallLog = new CallLog()) {
    this.files = new Map(Object.entries(files));
    this.#log = log;
  }

  readText(path: string): Promise<string> {
    this.#log.push({ provider: "fs", op: "read", path });
    const content = this.files.get(path);
    if (content === undefined) {
      return Promise.reject(
        new FileSystemError("ENOENT", path, `Cannot read "${path}": no such file`),
      );
    }
    return Promise.resolve(content);
  }

  writeText(path: string, content: string): Promise<void> {
    this.#log.push({ provider: "fs", op: "write", path, content });
    if (this.#isDirectory(path)) {
      return Promise.reject(
        new FileSystemError("EISDIR", path, `Cannot write "${path}": it is a directory`),
      );
    }
    const segments = path.split("/");
    for (let end = 1; end < segments.length; end++) {
      const dir = segments.slice(0, end).join("/");
      if (this.files.has(dir)) {
        return Promise.reject(
          new FileSystemError("EEXIST", path, `Cannot write "${path}": "${dir}" is a file`),
        );
      }
      this.dirs.add(dir);
    }
    this.files.set(path, content);
    return Promise.resolve();
  }

  glob(cwd: string, include: readonly string[], exclude: readonly string[]): Promise<string[]> {
    this.#log.push({
      provider: "fs",
      op: "glob",
      cwd,
      include: [...include],
      exclude: [...exclude],
    });
    const includes = include.map(compileGlob);
    const excludes = exclude.map(compileGlob);
    const prefix = cwd === "." ? "" : `${cwd}/`;
    const listed = [...this.files.keys()]
      .filter((path) => path.startsWith(prefix))
      .map((path) => path.slice(prefix.length))
      .filter((path) => includes.some((match) => match(path)))
      .filter((path) => !excludes.some((match) => match(path)));
    return Promise.resolve(listed.sort());
  }

  #isDirectory(path: string): boolean {
    return this.dirs.has(path) ||
      [...this.files.keys()].some((file) => file.startsWith(`${path}/`));
  }
}

/** A canned shell answer: the chunks streamed to stdout (and stderr) and the exit code. */
export interface ShellScript {
  /** Chunks written to `onStdout`, in order. */
  stdout?: string[];
  /** Chunks written to `onStderr`, in order. */
  stderr?: string[];
  /** The exit code (default 0). */
  exitCode?: number;
  /** Whether the block was stopped by its timeout. */
  timedOut?: boolean;
}

/**
 * A shell that answers each script from a table (by the trimmed script text,
 * else by a default), streaming its chunks before resolving.
 */
export class ScriptedShell implements ShellProvider {
  readonly requests: ShellRequest[] = [];
  readonly #table: Map<string, ShellScript>;
  readonly #fallback: ((script: string) => ShellScript) | undefined;
  readonly #log: CallLog;

  constructor(
    table: Record<string, ShellScript> = {},
    log: CallLog = new CallLog(),
    fallback?: (script: string) => ShellScript,
  ) {
    this.#table = new Map(Object.entries(table));
    this.#log = log;
    this.#fallback = fallback;
  }

  async run(request: ShellRequest): Promise<ShellResult> {
    this.requests.push(request);
    this.#log.push({
      provider: "shell",
      lang: request.lang,
      script: request.script,
      cwd: request.cwd,
      timeoutMs: request.timeoutMs,
    });
    const script = this.#table.get(request.script.trim()) ?? this.#fallback?.(request.script);
    if (!script) {
      throw new Error(`ScriptedShell has no answer for ${JSON.stringify(request.script)}`);
    }
    for (const chunk of script.stdout ?? []) {
      await Promise.resolve();
      request.onStdout(chunk);
    }
    for (const chunk of script.stderr ?? []) {
      await Promise.resolve();
      request.onStderr(chunk);
    }
    return {
      exitCode: script.exitCode ?? 0,
      stdout: (script.stdout ?? []).join(""),
      stderr: (script.stderr ?? []).join(""),
      timedOut: script.timedOut ?? false,
    };
  }
}

/** An elicitation provider that answers each question by its binding name. */
export class CannedElicit implements ElicitProvider {
  readonly requests: Pick<ElicitRequest, "name" | "question" | "schema">[] = [];
  readonly #answers: Map<string, JsonValue>;
  readonly #log: CallLog;

  constructor(answers: Record<string, JsonValue> = {}, log: CallLog = new CallLog()) {
    this.#answers = new Map(Object.entries(answers));
    this.#log = log;
  }

  ask(request: ElicitRequest): Promise<JsonValue> {
    const { name, question, schema } = request;
    this.requests.push({ name, question, schema });
    this.#log.push({ provider: "elicit", name, question, schema });
    if (!this.#answers.has(name)) {
      return Promise.reject(new Error(`CannedElicit has no answer for "${name}"`));
    }
    return Promise.resolve(this.#answers.get(name)!);
  }
}

/**
 * Providers that reject every call and record it in `attempts`, for runs that
 * must not reach the world (completed replay).
 */
export function refusingProviders(): { providers: Providers; attempts: string[] } {
  const attempts: string[] = [];
  const refuse = (what: string) => {
    attempts.push(what);
    return Promise.reject(new Error(`Provider called during replay: ${what}`));
  };
  return {
    attempts,
    providers: {
      fs: {
        readText: (path) => refuse(`fs.readText ${path}`),
        writeText: (path) => refuse(`fs.writeText ${path}`),
        glob: (cwd) => refuse(`fs.glob ${cwd}`),
      },
      shell: { run: (request) => refuse(`shell.run ${request.script}`) },
      elicit: { ask: (request) => refuse(`elicit.ask ${request.name}`) },
    },
  };
}

/** Everything a test world holds: the three fakes over one call log. */
export interface World {
  log: CallLog;
  fs: MemoryFileSystem;
  shell: ScriptedShell;
  elicit: CannedElicit;
  providers: Providers;
}

/** Builds a world of fakes sharing one call log. */
export function createWorld(options: {
  files?: Record<string, string>;
  shell?: Record<string, ShellScript>;
  shellFallback?: (script: string) => ShellScript;
  answers?: Record<string, JsonValue>;
} = {}): World {
  const log = new CallLog();
  const fs = new MemoryFileSystem(options.files, log);
  const shell = new ScriptedShell(options.shell, log, options.shellFallback);
  const elicit = new CannedElicit(options.answers, log);
  return { log, fs, shell, elicit, providers: { fs, shell, elicit } };
}

/** Loads a program whose components come from `components` (label to text). */
export function load(
  text: string,
  components: Record<string, string> = {},
  options: { file?: string; target?: string } = {},
): Promise<Program> {
  return loadProgram(
    { file: options.file ?? "doc.md", text },
    (label) => Promise.resolve(components[label]),
    { target: options.target },
  );
}

/** What one run produced. */
export interface RunRecord {
  outcome: RunOutcome;
  stdout: string;
  stderr: string;
  /** The stdout chunks in the order the engine wrote them. */
  chunks: string[];
  /** Every event the stream holds after the run. */
  events: JournalEvent[];
}

/** Options for {@linkcode run}. */
export interface RunTestOptions {
  /** The root document's props. */
  props?: JsonObject;
  /** Events already recorded (ignored when `stream` is given). */
  recorded?: readonly JournalEvent[];
  /** The stream to journal to; a new MemoryStream over `recorded` by default. */
  stream?: MemoryStream;
  /** Receives stdout chunks as they are written (shared with the returned record). */
  chunks?: string[];
  /** Aborts the run. */
  signal?: AbortSignal;
}

/** Runs `program` against `providers` over a MemoryStream, with the secret gate off. */
export async function run(
  program: Program,
  providers: Providers,
  options: RunTestOptions = {},
): Promise<RunRecord> {
  const stream = options.stream ?? new MemoryStream(options.recorded ?? []);
  const journal = await Journal.open(stream, disabledSecretGate);
  const chunks = options.chunks ?? [];
  let stderr = "";
  const outcome = await runProgram({
    program,
    props: options.props ?? {},
    providers,
    journal,
    stdout: (text) => chunks.push(text),
    stderr: (text) => stderr += text,
    signal: options.signal ?? new AbortController().signal,
  });
  return { outcome, stdout: chunks.join(""), stderr, chunks, events: stream.events };
}
