/**
 * Keeps the packages' public surface deliberate (architecture.md, "Public
 * surface"): the values each public entry exports are listed here, so adding
 * or removing one is a visible decision; every `./internal` entry says it is
 * unstable; and `deno task doc:lint` lints every entry the packages export.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = new URL("../../../../", import.meta.url);
const root = (path: string) => fileURLToPath(new URL(path, ROOT));

async function json(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(root(path)));
}

/** Every export of the three packages, as `{ specifier, file }` (file relative to the root). */
async function entries(): Promise<{ specifier: string; file: string }[]> {
  const found = [];
  for (const name of ["core", "workflow", "cli"]) {
    const config = await json(`packages/${name}/deno.json`) as {
      name: string;
      exports: Record<string, string>;
    };
    for (const [entry, path] of Object.entries(config.exports)) {
      found.push({
        specifier: `${config.name}${entry === "." ? "" : entry.slice(1)}`,
        file: `packages/${name}/${path.slice(2)}`,
      });
    }
  }
  return found;
}

const PUBLIC_VALUES: Record<string, string[]> = {
  "@xmd/core": [
    "AnswerSchemaError",
    "CancelledError",
    "DivergenceError",
    "DocumentError",
    "EffectFailure",
    "EffectRefusal",
    "ERROR_CODES",
    "FileSystemError",
    "GlobPatternError",
    "Journal",
    "JournalEventSchema",
    "JournalFormatError",
    "JournalStoppedError",
    "JournalWriteError",
    "JsonValueSchema",
    "MemoryStream",
    "PropsError",
    "SecretDetectedError",
    "SecretScanError",
    "SuspendedError",
    "XmdError",
    "canonicalJson",
    "createSecretGate",
    "disabledSecretGate",
    "formatPropsHelp",
    "loadProgram",
    "resolveProps",
    "runProgram",
    "sha256Hex",
  ],
  "@xmd/core/protocol": [
    "EffectRefusal",
    "ERROR_CODES",
    "FileSystemError",
    "JournalEventSchema",
    "JsonValueSchema",
    "MAX_NAME_BYTES",
    "MAX_PATH_BYTES",
    "Sha256Hasher",
    "XmdError",
    "canonicalJson",
    "lazySchema",
    "pathLengthProblem",
    "sha256Hex",
    "utf8Length",
  ],
  "@xmd/core/deno": [
    "DocumentReadError",
    "ElicitAnswerError",
    "HostFileSystem",
    "HostShell",
    "JsonlStream",
    "TerminalElicit",
    "TerminalLine",
    "UnsupportedLanguageError",
    "loadProgramFile",
    "typedDocumentError",
    "typedPositions",
  ],
  "@xmd/workflow": [
    "AnswerRefusedError",
    "COMMIT_POINTS",
    "ExecutorLostError",
    "ExportRefusedError",
    "HOST_STOP_CODES",
    "HeldTransactionRequiredError",
    "NotAvailableInWorkflowError",
    "RUN_STATUSES",
    "RunBusyError",
    "RunConflictError",
    "RunDatabaseAccessError",
    "RunNotFoundError",
    "RunStateError",
    "RunStore",
    "RunsFolderError",
    "ShellLostError",
    "WorkerShellPermissionError",
    "WorkflowDatabaseCorruptError",
    "WorkflowDatabaseFormatError",
    "WorkflowSchemaVersionError",
    "checkWorkflowSupport",
    "initializeSchema",
    "isEmptyDatabase",
    "recognizeSchema",
  ],
  "@xmd/workflow/deno": [
    "LocalWorkflowHost",
    "RemoteConnectionLostError",
    "RemoteConnectionRefusedError",
    "RemoteUnsupportedError",
    "RemoteWorkflowHost",
  ],
  "@xmd/workflow/deno/local": ["LocalWorkflowHost"],
  "@xmd/workflow/deno/interpreter": ["prestartInterpreter"],
  "@xmd/workflow/cloudflare": [
    "ADMISSION_HEADERS",
    "DurableObjectSeam",
    "WorkflowRun",
    "admissionWorker",
  ],
  "@xmd/cli": ["main", "processIo"],
};

/** Entries that run something when imported, or that only the CLI's own process loads. */
const NOT_IMPORTED = new Set(["@xmd/cli/main"]);

Deno.test("Public surface: each public entry exports exactly the values listed, none of the engine's internals", async () => {
  for (const { specifier } of await entries()) {
    if (NOT_IMPORTED.has(specifier) || specifier.endsWith("/internal")) continue;
    assert.ok(specifier in PUBLIC_VALUES, `${specifier} is exported but has no list here`);
    const values = Object.keys(await import(specifier)).sort();
    assert.deepEqual(values, [...PUBLIC_VALUES[specifier]].sort(), specifier);
  }
});

Deno.test("Public surface: every internal entry is documented as unstable and named so", async () => {
  const internal = (await entries()).filter(({ specifier }) => specifier.endsWith("/internal"));
  assert.deepEqual(internal.map(({ specifier }) => specifier).sort(), [
    "@xmd/core/deno/internal",
    "@xmd/core/internal",
    "@xmd/workflow/deno/internal",
    "@xmd/workflow/internal",
  ]);
  for (const { specifier, file } of internal) {
    // The module doc, as one line of prose.
    const doc = (await Deno.readTextFile(root(file))).split("*/")[0].replaceAll(
      /\n \*( |$)/gm,
      " ",
    );
    assert.ok(doc.startsWith(`/** \`${specifier}\`: `), specifier);
    assert.match(doc, /\*\*Unstable\*\*: not part of the public API/, specifier);
  }
});

Deno.test("Public surface: deno task doc:lint lints every entry the packages export, and ok runs it after lint, before check", async () => {
  const { tasks } = await json("deno.json") as { tasks: Record<string, string> };
  const linted = tasks["doc:lint"].split(" ").filter((word) => word.endsWith(".ts")).sort();
  assert.deepEqual(linted, (await entries()).map(({ file }) => file).sort());
  const steps = tasks.ok.split(" && ");
  assert.deepEqual(steps.slice(0, 4).map((step) => step.split(" ").slice(0, 3).join(" ")), [
    "deno fmt --check",
    "deno lint",
    "deno task -q",
    "deno check --lock=dev.lock",
  ]);
  assert.equal(steps[2], "deno task -q doc:lint");
  assert.match(steps[4], /^deno test /);
});

/** Every `.ts` file of the packages that is no test, relative to the root. */
async function sourceFiles(folder = "packages"): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(root(folder))) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory && entry.name !== "node_modules") files.push(...await sourceFiles(path));
    else if (entry.isFile && path.endsWith(".ts") && !/_test\.ts$|\/_test-/.test(path)) {
      files.push(path);
    }
  }
  return files;
}

Deno.test("Public surface: every @example asserts what it shows instead of printing it", async () => {
  const printing: string[] = [];
  let examples = 0;
  for (const file of await sourceFiles()) {
    const text = await Deno.readTextFile(root(file));
    for (const block of text.matchAll(/^ *\* ```ts\b(.*)\n([\s\S]*?)^ *\* ```$/gm)) {
      examples++;
      if (/\bconsole\.\w+\(/.test(block[2])) printing.push(`${file}: ${block[0].split("\n")[1]}`);
    }
  }
  assert.ok(examples > 30, `only ${examples} examples found: the scan is broken`);
  assert.deepEqual(printing, []);
});
