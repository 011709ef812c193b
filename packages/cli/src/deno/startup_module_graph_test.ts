import assert from "node:assert/strict";
import { z } from "zod";

const ROOT = new URL("../../../../", import.meta.url);
const MAIN = new URL("packages/cli/main.ts", ROOT).href;

const DependencySchema = z.object({
  code: z.object({ specifier: z.string() }).optional(),
  isDynamic: z.boolean().optional(),
});
const GraphSchema = z.object({
  roots: z.array(z.string()),
  modules: z.array(z.object({
    specifier: z.string(),
    npmPackage: z.string().optional(),
    dependencies: z.array(DependencySchema).optional(),
  })),
  redirects: z.record(z.string(), z.string()),
});

/** `entry`'s module graph, `import()` included, as `deno info --json` reports it. */
async function graphOf(entry: string): Promise<z.infer<typeof GraphSchema>> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    // The workspace's configuration and its frozen lock, as the Worker's graph test reads it
    // (and as `deno task install` bundles the sources; bundled_cli_test.ts checks the bundle).
    args: ["info", "--json", entry],
    cwd: ROOT.pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(`deno info failed:\n${new TextDecoder().decode(stderr)}`);
  return GraphSchema.parse(JSON.parse(new TextDecoder().decode(stdout)));
}

/**
 * The modules `entry` loads before any of its code runs: what its static
 * imports reach, as `deno info --json` reports them, without type-only
 * imports (erased) and without `import()` (loaded when a command runs).
 */
async function loadedAtStart(entry: string): Promise<string[]> {
  const graph = await graphOf(entry);
  const resolve = (specifier: string) => graph.redirects[specifier] ?? specifier;
  const modules = new Map(graph.modules.map((module) => [module.specifier, module]));
  const seen = new Set<string>();
  const queue = graph.roots.map(resolve);
  while (queue.length > 0) {
    const specifier = queue.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dependency of modules.get(specifier)?.dependencies ?? []) {
      if (dependency.isDynamic || dependency.code === undefined) continue;
      queue.push(resolve(dependency.code.specifier));
    }
  }
  return [...seen].map((specifier) =>
    specifier.startsWith(ROOT.href) ? specifier.slice(ROOT.href.length) : specifier
  ).sort();
}

/** The package an `npm:` specifier of the graph names (`npm:/zod@4.6.7/mini` → `zod`). */
function npmPackage(specifier: string): string {
  return /^npm:\/((?:@[^/@]+\/)?[^/@]+)/.exec(specifier)![1];
}

Deno.test("MDX-80: xmd --help, --version and help load the dispatch alone: no npm package, no engine, store or error classes", async () => {
  const loaded = await loadedAtStart(MAIN);
  // The walk really is the executable's (so an empty or wrong graph cannot pass).
  assert.ok(loaded.includes("packages/cli/src/deno/cli.ts"));
  // No Node built-in (the first one loads the Node compatibility layer): host paths from core's
  // own path functions, which load nothing else.
  assert.deepEqual(loaded.filter((specifier) => !specifier.startsWith("packages/cli/")), [
    "packages/core/deno-internal.ts",
    "packages/core/src/deno/posix-path.ts",
  ]);
  assert.deepEqual(
    loaded.filter((specifier) => /command|usage-error|argument-echo|completions/.test(specifier)),
    ["packages/cli/src/deno/command-io.ts"],
  );
});

Deno.test("MDX-81: xmd workflow list, status and history load no document parser, YAML, Ajv, secret gate or Worker Shell interpreter", async () => {
  const loaded = await loadedAtStart(
    new URL("packages/cli/src/deno/workflow-command.ts", ROOT).href,
  );
  // The walk really is the workflow host's (so an empty or wrong graph cannot pass).
  assert.ok(loaded.includes("packages/workflow/src/deno/local-workflow-host.ts"));
  assert.ok(loaded.includes("packages/workflow/src/store/run-store.ts"));
  const npm = loaded.filter((specifier) => specifier.startsWith("npm:"));
  assert.deepEqual([...new Set(npm.map(npmPackage))], ["zod"]);
  assert.deepEqual(
    loaded.filter((specifier) => /_document-libraries|_secretlint-engine/.test(specifier)),
    [],
  );
});

Deno.test("MDX-82: xmd workflow list, status and history load no engine, executor, parser, verifier, secret gate, Worker Shell, node:crypto or remote client", async () => {
  const loaded = await loadedAtStart(
    new URL("packages/cli/src/deno/workflow-command.ts", ROOT).href,
  );
  // The walk reaches what these commands use: the host, the store, the database's recognition.
  for (
    const used of [
      "packages/workflow/src/deno/local-workflow-host.ts",
      "packages/workflow/src/deno/run-database.ts",
      "packages/workflow/src/store/run-store.ts",
      "packages/core/src/journal/events.ts",
      "packages/cli/src/deno/workflow-format.ts",
    ]
  ) assert.ok(loaded.includes(used), used);
  // node:sqlite alone: node:path and node:util would load the Node compatibility layer.
  assert.deepEqual(loaded.filter((specifier) => specifier.startsWith("node:")), ["node:sqlite"]);
  const running = loaded.filter((specifier) =>
    /^packages\/core\/(mod|deno)\.ts$|\/(engine\/run-program|document\/(load|parse)-|expression\/|props\/|secret\/)/
      .test(specifier) ||
    /\/(execute-run|verify-run|effect-transactions|host-running|worker-shell[^/]*|native-sha256|remote-workflow|remote-connection|websocket-client|host-documents|diff-format)\.ts$/
      .test(specifier) ||
    specifier === "packages/workflow/internal.ts"
  );
  assert.deepEqual(running, []);
});

Deno.test("MDX-121: xmd workflow list, status and history load the local host alone: not the remote host, its working copy or its protocol's frames", async () => {
  const loaded = await loadedAtStart(
    new URL("packages/cli/src/deno/workflow-command.ts", ROOT).href,
  );
  // The walk reaches the local host (so an empty or wrong graph cannot pass).
  assert.ok(loaded.includes("packages/workflow/src/deno/local-workflow-host.ts"));
  assert.deepEqual(
    loaded.filter((specifier) =>
      /^packages\/workflow\/(deno\.ts|src\/remote\/|src\/deno\/(remote-|working-copy))/.test(
        specifier,
      )
    ),
    [],
  );
});

Deno.test("MDX-130: the early start of Worker Shell's interpreter loads no npm package, Node built-in, store, schema or error class", async () => {
  // The dispatch's module for it, then the entry it imports once the document shows a shell block.
  const early = await loadedAtStart(
    new URL("packages/cli/src/deno/early-interpreter.ts", ROOT).href,
  );
  const interpreter = await loadedAtStart(
    new URL("packages/workflow/deno-interpreter.ts", ROOT).href,
  );
  // The walks really are these modules' (so an empty or wrong graph cannot pass).
  assert.ok(early.includes("packages/cli/src/deno/early-interpreter.ts"));
  assert.ok(interpreter.includes("packages/workflow/src/deno/worker-shell-process.ts"));
  assert.deepEqual(
    [...early, ...interpreter].filter((specifier) => !specifier.startsWith("packages/")).sort(),
    [],
  );
  assert.deepEqual(
    [...early, ...interpreter].filter((specifier) =>
      /\/(store|journal|workspace|errors|contracts)\/|protocol\.ts$|usage-error|schema/.test(
        specifier,
      )
    ),
    [],
  );
});

Deno.test("MDX-132: xmd workflow list, status and history load zod/mini and zod's English messages, not classic zod", async () => {
  const loaded = await loadedAtStart(
    new URL("packages/cli/src/deno/workflow-command.ts", ROOT).href,
  );
  // The walk reaches the store and the journal's events, whose schemas these commands parse with.
  assert.ok(loaded.includes("packages/workflow/src/store/run-store.ts"));
  assert.ok(loaded.includes("packages/core/src/journal/events.ts"));
  assert.deepEqual(
    loaded.filter((specifier) => specifier.startsWith("npm:"))
      .map((specifier) => specifier.replace(/^npm:\/zod@[^/]+/, "zod")),
    ["zod/mini", "zod/v4/locales/en.js"],
  );
});

Deno.test("MDX-133: xmd run and a local workflow start, resume or export import node:path and node:url nowhere; only the remote host's modules do", async () => {
  const graph = await graphOf(MAIN);
  // Every module of the CLI's graph, `import()` included, that imports one of the two.
  const importers = graph.modules.filter((module) =>
    module.specifier.startsWith(ROOT.href) &&
    (module.dependencies ?? []).some((dependency) =>
      dependency.code?.specifier === "node:path" || dependency.code?.specifier === "node:url"
    )
  ).map((module) => module.specifier.slice(ROOT.href.length)).sort();
  // The walk sees the graph's imports of them (so an empty graph cannot pass).
  assert.ok(importers.length > 0);
  assert.deepEqual(importers, [
    "packages/workflow/src/deno/remote-workflow-host.ts",
    // Only by `import()`, to name a published package's copy of the interpreter's lock.
    "packages/workflow/src/deno/worker-shell-process.ts",
    "packages/workflow/src/deno/working-copy-folder.ts",
  ]);
});
