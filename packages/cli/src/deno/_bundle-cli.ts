/**
 * Builds and installs the `xmd` command from this checkout (`deno task
 * install`): the CLI bundled by `deno bundle` with code splitting, and Worker
 * Shell's interpreter bundled as its own entry beside it, then `deno install
 * -g` of the bundle.
 *
 * Why a bundle: the npm packages a document needs (YAML, Ajv, secretlint) are
 * CommonJS, which Deno loads through Node's `require` without V8's code
 * cache; bundled, they are ES modules like the rest and load from the cache.
 * Code splitting keeps each `import()` its own chunk, so a command still
 * loads only what it runs (MDX-80..MDX-82), and the installed command turns
 * on `lazy-dynamic-imports`, without which Deno would load every chunk's
 * graph before `main` runs.
 *
 * Invariants:
 * - The folder holds a whole build or none: a build is written beside it and
 *   renamed into place, so an installed command never runs a half-written one.
 * - The interpreter runs as it does from source (worker-shell-process.ts):
 *   `worker-shell-child.js` and its lock `worker-shell-child-lock.json` sit
 *   next to the chunk that starts it, and it still resolves `just-bash`
 *   through that lock, with no permission.
 * - Nothing of the checkout changes but the folder: the bundler resolves with
 *   the workspace's frozen `deno.lock`.
 *
 * Usage: `deno task install [--root <folder>]` (default: `deno install -g`'s
 * own, `$DENO_INSTALL_ROOT` or `$HOME/.deno`).
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileWithModule, type EagerCompileResult } from "./_eager-compile.ts";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const MAIN = join(ROOT, "packages/cli/main.ts");
const INTERPRETER = join(ROOT, "packages/workflow/src/deno/worker-shell-child.ts");
const INTERPRETER_LOCK = join(ROOT, "packages/workflow/src/deno/worker-shell-child-lock.json");

/** Worker Shell's interpreter's bundle, beside the CLI's chunks. */
const INTERPRETER_BUNDLE = "worker-shell-child.js";

/** Where `deno task install` builds the bundle (gitignored). */
export const DEFAULT_BUNDLE_DIR: string = join(ROOT, "packages/cli/dist");

async function deno(args: string[], what: string): Promise<void> {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (output.code !== 0) {
    const decoder = new TextDecoder();
    // A build tool's failure, not a user's mistake in a command: no XmdError of its own.
    throw new Error(
      `Cannot ${what}: deno ${args[0]} exited ${output.code}\n${decoder.decode(output.stderr)}${
        decoder.decode(output.stdout)
      }`,
    );
  }
}

/** How the bundler gives its CommonJS modules a `require`: at the load of its helpers' chunk. */
const EAGER_REQUIRE =
  'import { createRequire as __deno_internal_createRequire } from "node:module";\n' +
  "var __require = __deno_internal_createRequire(import.meta.url);\n";
/** The same `require`, made when a CommonJS module first calls it. */
const LAZY_REQUIRE = "var __required;\n" +
  'var __require = (id) => (__required ??= globalThis.process.getBuiltinModule("node:module")' +
  ".createRequire(import.meta.url))(id);\n";

/**
 * The bundler puts its helpers for CommonJS and for namespace objects in one
 * shared chunk whose load imports `node:module` to create a `require` (about
 * 10 ms of the Node compatibility layer), and every entry and zod's chunk
 * import that chunk, so `xmd --help` and `workflow list` paid for it though
 * only the document libraries and secretlint, CommonJS, call `require`. The
 * `require` is made on its first call instead, from the same module through
 * `process.getBuiltinModule`. A bundler output of another shape is left as
 * it is (correct, only slower: MDX-101's test notices).
 */
async function deferRequire(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".js")) continue;
    const path = join(dir, entry.name);
    const text = await Deno.readTextFile(path);
    if (text.includes(EAGER_REQUIRE)) {
      await Deno.writeTextFile(path, text.replace(EAGER_REQUIRE, LAZY_REQUIRE));
    }
  }
}

/** The chunks that import one another in a cycle, directly or not (none, from `deno bundle`). */
export function chunksOnCycles(imports: ReadonlyMap<string, readonly string[]>): Set<string> {
  const onCycle = new Set<string>();
  for (const start of imports.keys()) {
    // `start` is on a cycle when a walk from its imports comes back to it.
    const seen = new Set<string>();
    const pending = [...(imports.get(start) ?? [])];
    while (pending.length > 0) {
      const name = pending.pop()!;
      if (name === start) {
        onCycle.add(start);
        break;
      }
      if (seen.has(name)) continue;
      seen.add(name);
      pending.push(...(imports.get(name) ?? []));
    }
  }
  return onCycle;
}

/**
 * Rewrites the CLI's chunks so that V8 compiles their functions when it
 * compiles each chunk (`_eager-compile.ts`): Deno's code cache, made right
 * after that compile, then holds them, and a warm start no longer compiles
 * each function it calls on its first call. A chunk on an import cycle is
 * left as it is (another chunk of the cycle could call its functions before
 * it runs), and so is Worker Shell's interpreter, a bundle of its own.
 */
async function compileFunctionsWithChunks(dir: string): Promise<void> {
  const chunks = new Map<string, EagerCompileResult>();
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".js") || entry.name === INTERPRETER_BUNDLE) continue;
    chunks.set(entry.name, compileWithModule(await Deno.readTextFile(join(dir, entry.name))));
  }
  const imports = new Map(
    [...chunks].map(([name, chunk]) => [
      name,
      chunk.imports.filter((from) => from.startsWith("./")).map((from) => from.slice(2)),
    ]),
  );
  const cyclic = chunksOnCycles(imports);
  for (const [name, chunk] of chunks) {
    if (!cyclic.has(name)) await Deno.writeTextFile(join(dir, name), chunk.text);
  }
}

/**
 * Bundles the CLI into `dir` (replacing what is there): `main.js` and its
 * chunks, `worker-shell-child.js` and `worker-shell-child-lock.json`.
 */
export async function bundleCli(dir: string): Promise<void> {
  await Deno.mkdir(dirname(dir), { recursive: true });
  const staging = `${dir}.${crypto.randomUUID()}.tmp`;
  try {
    const common = ["--quiet", "--config", join(ROOT, "deno.json"), "--platform=deno"];
    await deno(
      ["bundle", ...common, "--format=esm", "--code-splitting", "--outdir", staging, MAIN],
      "bundle the CLI",
    );
    await deno(
      [
        "bundle",
        ...common,
        "--format=esm",
        // Loaded from Deno's cache through the interpreter's lock, as from source.
        "--external=npm:just-bash@*",
        "-o",
        join(staging, INTERPRETER_BUNDLE),
        INTERPRETER,
      ],
      "bundle Worker Shell's interpreter",
    );
    await Deno.copyFile(INTERPRETER_LOCK, join(staging, "worker-shell-child-lock.json"));
    await deferRequire(staging);
    await compileFunctionsWithChunks(staging);
    const old = `${dir}.${crypto.randomUUID()}.old`;
    const replaced = await Deno.rename(dir, old).then(() => true, (error) => {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    });
    await Deno.rename(staging, dir);
    if (replaced) await Deno.remove(old, { recursive: true });
  } finally {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  }
}

/** Where to install and under which name. */
export interface InstallOptions {
  /** The bundle's folder (default {@linkcode DEFAULT_BUNDLE_DIR}). */
  dir?: string;
  /** `deno install --root` (default: Deno's, `$HOME/.deno`). */
  root?: string;
  /** The command's name (default `xmd`). */
  name?: string;
}

/**
 * Bundles the CLI and installs it with `deno install -g`: all permissions,
 * no configuration file (the bundle needs none), `lazy-dynamic-imports` on.
 * Returns the installed executable's path.
 */
export async function installCli(options: InstallOptions = {}): Promise<string> {
  const dir = options.dir ?? DEFAULT_BUNDLE_DIR;
  const name = options.name ?? "xmd";
  await bundleCli(dir);
  await deno(
    [
      "install",
      "--global",
      "--force",
      "--allow-all",
      "--no-config",
      "--unstable-lazy-dynamic-imports",
      ...(options.root === undefined ? [] : ["--root", options.root]),
      "--name",
      name,
      join(dir, "main.js"),
    ],
    "install the bundle",
  );
  const root = options.root ?? Deno.env.get("DENO_INSTALL_ROOT") ??
    join(Deno.env.get("HOME") ?? "", ".deno");
  return join(root, "bin", name);
}

if (import.meta.main) {
  const [flag, root, ...rest] = Deno.args;
  if ((flag !== undefined && flag !== "--root") || (flag && !root) || rest.length > 0) {
    console.error("Usage: deno task install [--root <folder>]");
    Deno.exit(2);
  }
  try {
    const path = await installCli({ root });
    console.log(`Installed ${path}`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    Deno.exit(1);
  }
}
