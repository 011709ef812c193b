/**
 * Installing `xmd` from a checkout by the README's own commands (`deno task
 * install`: the bundled CLI, see `_bundle-cli.ts`), then running it from a
 * folder outside the checkout; and `deno.lock` pinning exactly what the
 * packages import.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DENO_DIR } from "./_run-xmd.ts";

const ROOT = new URL("../../../../", import.meta.url);
const root = (path: string) => fileURLToPath(new URL(path, ROOT));

async function json(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(root(path)));
}

/** `npm:@scope/name` of `npm:@scope/name@^1.2.3` (a lock writes the range its own way). */
function packageName(specifier: string): string {
  return specifier.replace(/^(npm:@?[^@]+)@.*$/, "$1");
}

Deno.test("the first xmd run fetches only the engine: deno.lock, frozen and the one deno task xmd uses, pins exactly what the packages import", async () => {
  const config = await json("deno.json") as { lock: { path: string; frozen: boolean } };
  assert.deepEqual(config.lock, { path: "./deno.lock", frozen: true });
  const imported = new Set<string>();
  for (const name of ["core", "workflow", "cli"]) {
    const { imports } = await json(`packages/${name}/deno.json`) as {
      imports: Record<string, string>;
    };
    for (const specifier of Object.values(imports)) imported.add(packageName(specifier));
  }
  const lock = await json("deno.lock") as { specifiers: Record<string, string> };
  // Test and bench tools (miniflare and its workerd, the Restate server) live in dev.lock only.
  assert.deepEqual(Object.keys(lock.specifiers).map(packageName).sort(), [...imported].sort());
});

/**
 * The README's install commands (the ```sh block under "Installing `xmd`"),
 * but `npm install -g deno`: this test already runs on that deno.
 */
async function readmeInstall(): Promise<string> {
  const readme = await Deno.readTextFile(root("README.md"));
  const block = /### Installing `xmd`\n[^]*?```sh\n([^]*?)```/.exec(readme)?.[1];
  assert.ok(block, "the README shows how to install xmd");
  const lines = block.split("\n").filter((line) => line !== "" && !line.startsWith("npm install"));
  assert.ok(lines.includes("deno task install"), block);
  return lines.join("\n");
}

Deno.test("WS-34: xmd installed by the README's commands runs a workflow with a shell block from another folder", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-install-" });
  try {
    const lockBefore = await Deno.readFile(root("deno.lock"));
    const env = {
      PATH: `${dirname(Deno.execPath())}:/usr/bin:/bin`,
      // deno install -g puts xmd in $HOME/.deno/bin, here a scratch folder.
      HOME: dir,
      DENO_DIR,
      NO_COLOR: "1",
    };
    // Pasted in the checkout, as the README says; the PATH it exports is what xmd runs with.
    const installed = await new Deno.Command("bash", {
      args: ["-c", `set -e\n${await readmeInstall()}\necho "PATH=$PATH"`],
      cwd: root("."),
      clearEnv: true,
      env,
    }).output();
    const installOutput = new TextDecoder().decode(installed.stdout);
    assert.equal(installed.code, 0, new TextDecoder().decode(installed.stderr) + installOutput);
    assert.deepEqual(await Deno.readFile(root("deno.lock")), lockBefore);
    env.PATH = /^PATH=(.*)$/m.exec(installOutput)![1];
    assert.ok(await Deno.stat(join(dir, ".deno/bin/xmd")).then(() => true, () => false));

    const work = join(dir, "work");
    await Deno.mkdir(work);
    await Deno.writeTextFile(
      join(work, "doc.md"),
      "# Installed\n\n```sh exec\necho ok > f\ncat f\n```\n",
    );
    const ran = await new Deno.Command("xmd", {
      args: ["workflow", "start", "--id=installed", "doc.md"],
      cwd: work,
      clearEnv: true,
      env: { ...env, XMD_WORKFLOW_RUNS: join(dir, "runs") },
    }).output();
    const stderr = new TextDecoder().decode(ran.stderr);
    assert.equal(ran.code, 0, stderr);
    assert.equal(new TextDecoder().decode(ran.stdout), "# Installed\n\nok\n");
    assert.equal(stderr, "workflow run: installed\nworkflow status: completed\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
