/**
 * The CLI run from a folder outside this workspace, with that folder's own
 * configuration: no access to the root `deno.json` (so none of its
 * `unstable` flags or `nodeModulesDir`), as a user of the published packages
 * runs it. A workflow with a shell block must work there (WS-34).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGES = new URL("../../../", import.meta.url);
const ROOT_LOCK = fileURLToPath(new URL("../deno.lock", PACKAGES));

/** A configuration mapping what the packages import, as JSR resolves it for a published package. */
async function ownConfiguration(): Promise<Record<string, unknown>> {
  const imports: Record<string, string> = {};
  for (const name of ["core", "workflow", "cli"]) {
    const config = JSON.parse(await Deno.readTextFile(new URL(`${name}/deno.json`, PACKAGES)));
    Object.assign(imports, config.imports);
    for (const [entry, path] of Object.entries(config.exports as Record<string, string>)) {
      imports[`${config.name}${entry === "." ? "" : entry.slice(1)}`] =
        new URL(`${name}/${path.slice(2)}`, PACKAGES).href;
    }
  }
  return { imports };
}

Deno.test("WS-34: from a folder with its own configuration, a workflow's shell block runs in Worker Shell", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-outside-" });
  try {
    await Deno.writeTextFile(join(dir, "deno.json"), JSON.stringify(await ownConfiguration()));
    // The versions this checkout locked, so nothing is fetched (--cached-only).
    await Deno.copyFile(ROOT_LOCK, join(dir, "deno.lock"));
    await Deno.writeTextFile(
      join(dir, "doc.md"),
      // Commands whose code just-bash loads on first use (ls, find, grep, sed, sort) too.
      "# Outside\n\n```sh exec\nmkdir -p d && echo hello > d/f.txt\nls d\nfind . -name '*.txt'\n" +
        "grep -c hello d/f.txt\nsed s/hello/bye/ d/f.txt | sort | tr a-z A-Z\n```\n",
    );
    const xmd = (...args: string[]) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--quiet",
          "--cached-only",
          fileURLToPath(new URL("cli/main.ts", PACKAGES)),
          ...args,
        ],
        cwd: dir,
        clearEnv: true,
        env: {
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          HOME: Deno.env.get("HOME") ?? "/tmp",
          ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
          XMD_WORKFLOW_RUNS: join(dir, "runs"),
          NO_COLOR: "1",
        },
      }).output();
    const started = await xmd("workflow", "start", "--id=outside", "doc.md");
    const stderr = new TextDecoder().decode(started.stderr);
    assert.equal(started.code, 0, stderr);
    assert.equal(
      new TextDecoder().decode(started.stdout),
      "# Outside\n\nf.txt\n./d/f.txt\n1\nBYE\n",
    );
    assert.equal(stderr, "workflow run: outside\nworkflow status: completed\n");
    const exported = await xmd("workflow", "export", "outside", join(dir, "out"));
    assert.equal(exported.code, 0, new TextDecoder().decode(exported.stderr));
    assert.equal(await Deno.readTextFile(join(dir, "out", "d", "f.txt")), "hello\n");
    // Nothing of this checkout's layout was used: no node_modules folder appeared.
    await assert.rejects(Deno.stat(join(dir, "node_modules")), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
