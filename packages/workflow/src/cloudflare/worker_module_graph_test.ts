import assert from "node:assert/strict";
import { z } from "zod";

const PACKAGE = new URL("../../", import.meta.url);
const CORE = new URL("../core/", PACKAGE).href;

/** The entries a Worker bundles: the provider's public entry, the deployed Worker and the test Workers. */
const ENTRIES = [
  "cloudflare.ts",
  "src/cloudflare/worker.ts",
  "src/cloudflare/_test-admission-worker.ts",
  "src/cloudflare/_test-contract-worker.ts",
  "src/cloudflare/_test-remote-worker.ts",
];

/** The npm packages a Worker may bundle: zod parses every frame, jose verifies the admission's token. */
const ALLOWED_PACKAGES = new Set(["zod", "jose"]);

const GraphSchema = z.object({
  modules: z.array(z.object({ specifier: z.string(), npmPackage: z.string().optional() })),
});

/** Every module `entry` reaches, as `deno info --json` reports it (type-only imports included). */
async function moduleGraph(entry: string): Promise<z.infer<typeof GraphSchema>["modules"]> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: PACKAGE.pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(`deno info failed:\n${new TextDecoder().decode(stderr)}`);
  return GraphSchema.parse(JSON.parse(new TextDecoder().decode(stdout))).modules;
}

/**
 * Why a module must not be in a Worker, or undefined. The two refusal classes
 * and the path bounds `@xmd/core/protocol` carries live beside the engine; the
 * engine itself (expansion, providers) does not come with them.
 */
function unwanted(specifier: string, npmPackage: string | undefined): string | undefined {
  if (npmPackage !== undefined) {
    const name = npmPackage.slice(0, npmPackage.lastIndexOf("@"));
    return ALLOWED_PACKAGES.has(name) ? undefined : `the npm package ${name}`;
  }
  if (!specifier.startsWith(CORE)) return undefined;
  const path = specifier.slice(CORE.length);
  if (path === "mod.ts" || path === "deno.ts") return `the @xmd/core barrel (${path})`;
  const refusals = [
    "src/engine/file-system-error.ts",
    "src/engine/effect-refusal.ts",
    "src/engine/path-limits.ts",
  ];
  if (path.startsWith("src/engine/") && !refusals.includes(path)) return `core's engine (${path})`;
  for (const part of ["props", "secret", "document", "expression", "glob", "deno"]) {
    if (path.startsWith(`src/${part}/`)) return `core's ${part} (${path})`;
  }
  return undefined;
}

for (const entry of ENTRIES) {
  Deno.test(`WS-46: the Worker graph of ${entry} holds no engine, props, secret gate, ajv, yaml, micromark or secretlint (zod and jose only)`, async () => {
    const modules = await moduleGraph(entry);
    const specifiers = modules.map((module) => module.specifier);
    // The graph really is the storage engine's (so an empty or wrong graph cannot pass).
    assert.ok(specifiers.includes(new URL("sql/sql-seam.ts", new URL("src/", PACKAGE)).href));
    if (!entry.includes("_test-contract") && !entry.includes("_test-remote")) {
      // The admission Worker is in it, with jose.
      assert.ok(modules.some((module) => module.npmPackage?.startsWith("jose@")), entry);
    }
    assert.ok(
      specifiers.every((specifier) => !/ajv|yaml|micromark|mdast|secretlint|acorn/.test(specifier)),
    );
    const found = modules.flatMap((module) => unwanted(module.specifier, module.npmPackage) ?? []);
    assert.deepEqual(found, []);
  });
}

Deno.test("WS-46: the storage engine's folders import @xmd/core/protocol, never the barrel", async () => {
  const offenders: string[] = [];
  for (const folder of ["store", "workspace", "remote", "cloudflare"]) {
    const dir = new URL(`src/${folder}/`, PACKAGE);
    let names: string[];
    try {
      names = [...Deno.readDirSync(dir)].filter((e) => e.isFile).map((e) => e.name);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      throw error;
    }
    for (const name of names.filter((n) => n.endsWith(".ts"))) {
      const text = await Deno.readTextFile(new URL(name, dir));
      if (/from "@xmd\/core(\/deno)?"/.test(text)) offenders.push(`src/${folder}/${name}`);
    }
  }
  assert.deepEqual(offenders, []);
});

Deno.test("RM-55: the Durable Object hashes with node:crypto, workerd's native SHA-256 under nodejs_compat", async () => {
  const modules = await moduleGraph("cloudflare.ts");
  const object = new URL("src/cloudflare/workflow-run-object.ts", PACKAGE).href;
  assert.ok(modules.some((module) => module.specifier === object));
  assert.ok(modules.some((module) => module.specifier === "node:crypto"));
});
