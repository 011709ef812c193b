/**
 * The error codes are stable API (WF-53, WF-54): every error class the
 * packages declare extends `XmdError` with a code from `ERROR_CODES`, no two
 * classes share a code, every listed code belongs to a class, and the list is
 * the one `specs/workflow-spec.md` publishes.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  AnswerSchemaError,
  CancelledError,
  DivergenceError,
  DocumentError,
  EffectFailure,
  EffectRefusal,
  ERROR_CODES,
  FileSystemError,
  type FileSystemErrorCode,
  GlobPatternError,
  JournalFormatError,
  JournalStoppedError,
  JournalWriteError,
  PropsError,
  SecretDetectedError,
  SecretScanError,
  SuspendedError,
  XmdError,
} from "@xmd/core";
import { DocumentReadError, ElicitAnswerError, UnsupportedLanguageError } from "@xmd/core/deno";
import {
  AnswerRefusedError,
  ExecutorLostError,
  ExportRefusedError,
  HeldTransactionRequiredError,
  NotAvailableInWorkflowError,
  RunBusyError,
  RunConflictError,
  RunDatabaseAccessError,
  RunNotFoundError,
  RunsFolderError,
  RunStateError,
  ShellLostError,
  WorkerShellPermissionError,
  WorkflowDatabaseCorruptError,
  WorkflowDatabaseFormatError,
  WorkflowSchemaVersionError,
} from "@xmd/workflow";
import { WorkerShellError } from "@xmd/workflow/deno/internal";
import { UsageError } from "./usage-error.ts";
// Below the public entries: the remote protocol's codes and the runner's refusals.
import {
  REMOTE_ERROR_CODES,
  RemoteProtocolError,
} from "../../../workflow/src/remote/remote-protocol-error.ts";
import {
  RemoteAdmissionError,
  RemoteConnectionLostError,
  RemoteConnectionRefusedError,
  RemoteUnsupportedError,
} from "../../../workflow/src/remote/remote-refusal.ts";
// The admission Worker's refusal: it becomes an HTTP answer, never a thrown error outside the Worker.
import { AdmissionRefusal } from "../../../workflow/src/cloudflare/admission-refusal.ts";

const ROOT = new URL("../../../../", import.meta.url);
const at = { file: "doc.md", line: 1, column: 1 };
const POSIX: FileSystemErrorCode[] = [
  "ENOENT",
  "EEXIST",
  "ENOTDIR",
  "EISDIR",
  "ENOTEMPTY",
  "EACCES",
  "ELOOP",
  "EINVAL",
  "EPERM",
  "ENAMETOOLONG",
];

/** One instance of every error class (a filesystem refusal, one per POSIX code). */
const SAMPLES: Error[] = [
  new AnswerSchemaError("m"),
  new CancelledError(),
  new DivergenceError("type", 1, "differs"),
  new DocumentError("m", at),
  new EffectFailure({ name: "FileSystemError", message: "m" }, at),
  new EffectRefusal("m"),
  ...POSIX.map((posix) => new FileSystemError(posix, "a", "m")),
  new GlobPatternError("/", "m"),
  new JournalFormatError("m"),
  new JournalStoppedError("m"),
  new JournalWriteError("m"),
  new PropsError([]),
  new SecretDetectedError("x", "rule"),
  new SecretScanError("x", new TypeError()),
  new SuspendedError("s", 1),
  new DocumentReadError("doc.md", "missing"),
  new ElicitAnswerError("b", "m"),
  new UnsupportedLanguageError("python"),
  new AnswerRefusedError("m"),
  new ExecutorLostError("m"),
  new HeldTransactionRequiredError("m"),
  new ExportRefusedError("m"),
  new NotAvailableInWorkflowError("m"),
  new RunBusyError("m"),
  new RunConflictError("m"),
  new RunDatabaseAccessError("m", "read-only-folder"),
  new RunNotFoundError("m"),
  new RunsFolderError("m"),
  new RunStateError("m"),
  new ShellLostError("m"),
  new WorkerShellPermissionError("m"),
  new WorkflowDatabaseCorruptError("m"),
  new WorkflowDatabaseFormatError("m"),
  new WorkflowSchemaVersionError("m"),
  new WorkerShellError("m"),
  new UsageError("m"),
  new RemoteConnectionLostError("m"),
  new RemoteConnectionRefusedError(401, "m"),
  new RemoteAdmissionError("m", 401),
  new RemoteUnsupportedError("m"),
  new AdmissionRefusal(401, "token.expired", "m"),
];

/**
 * The remote protocol's own codes. A `RemoteProtocolError` also relays a
 * store error across the wire under that error's code; those are the store
 * classes' codes and are checked to be, not sampled as its own.
 */
const RELAYED = new Set<string>(SAMPLES.map((error) => (error as XmdError).code));
const REMOTE_OWN = REMOTE_ERROR_CODES.filter((code) => !RELAYED.has(code));
SAMPLES.push(...REMOTE_OWN.map((code) => new RemoteProtocolError(code, "m")));

/**
 * Error classes that never leave the Worker Shell interpreter: the interpreter
 * process reads only its own lock (no `@xmd/core`), and each is turned into a
 * coded error, or (`XargsUsageError`, `RealpathUsageError`, `Unresolved`, the
 * `bc`, `cut` and `ln` refusals) into a command's message and status, before
 * it reaches a caller.
 */
const INTERPRETER_ONLY = new Set([
  "FrameError",
  "PosixError",
  "RedirectionRefused",
  "XargsUsageError",
  "RealpathUsageError",
  "Unresolved",
  "MktempUsageError",
  "InstallUsageError",
  "NotInstalled",
  "TruncateUsageError",
  "CmpUsageError",
  "NotOurs",
  "OdUsageError",
  "XxdUsageError",
  "HexdumpUsageError",
  "BcRuntimeError",
  "BcSyntaxError",
  "BcQuit",
  "BcUnavailable",
  "BcHalt",
  "CutUsageError",
  "LnUsageError",
]);

/** Every error class declared in the packages' sources (tests and test support aside). */
async function declaredErrorClasses(folder = "packages"): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(new URL(`${folder}/`, ROOT))) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory) found.push(...await declaredErrorClasses(path));
    else if (
      path.endsWith(".ts") && !/_test\.ts$|\/_test-|_contract\.ts$/.test(path)
    ) {
      const text = await Deno.readTextFile(new URL(path, ROOT));
      for (const match of text.matchAll(/\bclass (\w+) extends (\w+)/g)) {
        if (/(Error|Refusal)$/.test(match[2])) found.push(match[1]);
      }
    }
  }
  return found;
}

Deno.test("WF-53: every error class extends XmdError with its own code from ERROR_CODES and keeps its class name", async () => {
  const listed = new Set<string>(ERROR_CODES.map(({ code }) => code));
  const classOfCode = new Map<string, string>();
  for (const error of SAMPLES) {
    const name = error.constructor.name;
    assert.ok(error instanceof XmdError, `${name} extends XmdError`);
    // The journaled name is unchanged: the class name (a bare EffectRefusal never set one).
    assert.equal(error.name, error.constructor === EffectRefusal ? "Error" : name);
    assert.ok(listed.has(error.code), `${name}: ${error.code} is in ERROR_CODES`);
    // Lowercase and dotted; `internal` (the wire's code for an untold bug) is the one bare word.
    assert.match(error.code, /^[a-z]+\.[a-z_]+$|^internal$/);
    const owner = classOfCode.get(error.code);
    assert.ok(owner === undefined, `${error.code} belongs to both ${owner} and ${name}`);
    classOfCode.set(error.code, name);
  }
  assert.deepEqual([...listed].filter((code) => !classOfCode.has(code)), [], "no code unused");
  assert.equal(listed.size, ERROR_CODES.length, "no code listed twice");
  // Every error class the sources declare is sampled here, so none lacks a code.
  const sampled = new Set(SAMPLES.map((error) => error.constructor.name));
  const declared = (await declaredErrorClasses()).filter((name) =>
    name !== "XmdError" && !INTERPRETER_ONLY.has(name)
  );
  assert.deepEqual(declared.filter((name) => !sampled.has(name)), []);
  assert.deepEqual([...sampled].filter((name) => !declared.includes(name)), []);
});

Deno.test("WF-53: what the remote protocol relays is a store class's own code", () => {
  const relayed = REMOTE_ERROR_CODES.filter((code) => !REMOTE_OWN.includes(code));
  assert.deepEqual(relayed.sort(), [
    "answer.refused",
    "db.corrupt",
    "db.format",
    "db.version",
    "executor.lost",
    "run.busy",
    "run.conflict",
    "run.not_found",
    "run.state",
  ]);
});

Deno.test("WF-53: a filesystem refusal's code is fs. and its POSIX code; the journal keeps the POSIX code", () => {
  const error = new FileSystemError(
    "ENOENT",
    "a.txt",
    'Cannot read "a.txt": no such file (ENOENT)',
  );
  assert.equal(error.code, "fs.enoent");
  assert.equal(error.posix, "ENOENT");
  assert.ok(error instanceof EffectRefusal);
});

Deno.test("WF-54: the spec lists exactly ERROR_CODES, with the same meanings, in the same order", async () => {
  const spec = await Deno.readTextFile(fileURLToPath(new URL("specs/workflow-spec.md", ROOT)));
  const rows = [...spec.matchAll(/^\| `([a-z_.]+)` +\| (.+?) +\|$/gm)].map((row) => ({
    code: row[1],
    meaning: row[2],
  }));
  assert.deepEqual(rows, ERROR_CODES.map(({ code, meaning }) => ({ code, meaning })));
});
