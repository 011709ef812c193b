/**
 * The installed `xmd` is the bundle `deno task install` builds
 * (`_bundle-cli.ts`): built here into a scratch folder, installed there, and
 * run as a real subprocess from a folder outside the checkout, against the
 * same commands run from source (`_run-xmd.ts`) on a copy of the same folder.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { installCli } from "./_bundle-cli.ts";
import { runXmd, xmdEnvironment, type XmdResult } from "./_run-xmd.ts";

const HELLO = fileURLToPath(new URL("../../../../examples/hello.md", import.meta.url));

/** Shell blocks before and after a question, so `resume` starts Worker Shell again. */
const DOC = [
  "# Bundled",
  "",
  "```sh exec",
  "echo ok > f",
  "cat f",
  "```",
  "",
  '<Elicit as="note" schema={{ type: "string", minLength: 1 }}>A note?</Elicit>',
  "",
  "```sh exec",
  'echo "$(cat f) and {note}"',
  "```",
  "",
].join("\n");

/** A fresh folder holding the document and `hello.md` (`work`, so a shell's `$PWD` reads the same). */
async function workFolder(parent: string, name: string): Promise<string> {
  const cwd = join(parent, name, "work");
  await Deno.mkdir(cwd, { recursive: true });
  await Deno.writeTextFile(join(cwd, "doc.md"), DOC);
  await Deno.copyFile(HELLO, join(cwd, "hello.md"));
  return cwd;
}

Deno.test("MDX-100: the bundled xmd runs a workflow as the source does: sh blocks in Worker Shell under workflow start, a question answered and the run resumed, and xmd run", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-bundle-" });
  try {
    const xmd = await installCli({ dir: join(dir, "dist"), root: dir });
    for (const file of ["main.js", "worker-shell-child.js", "worker-shell-child-lock.json"]) {
      assert.ok((await Deno.stat(join(dir, "dist", file))).isFile, file);
    }
    // The installed command needs nothing of the checkout's configuration.
    assert.match(await Deno.readTextFile(xmd), /--unstable-lazy-dynamic-imports/);
    const bundledCwd = await workFolder(dir, "bundled");
    const sourceCwd = await workFolder(dir, "source");
    const bundled = async (...args: string[]): Promise<XmdResult> => {
      const env = xmdEnvironment({ XMD_WORKFLOW_RUNS: join(bundledCwd, "runs") });
      // The shim runs `deno` by name.
      env.PATH = `${dirname(Deno.execPath())}:${env.PATH}`;
      const output = await new Deno.Command(xmd, {
        args,
        cwd: bundledCwd,
        clearEnv: true,
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const decoder = new TextDecoder();
      return {
        code: output.code,
        stdout: decoder.decode(output.stdout),
        stderr: decoder.decode(output.stderr),
      };
    };
    const source = (...args: string[]) =>
      runXmd(args, { cwd: sourceCwd, env: { XMD_WORKFLOW_RUNS: join(sourceCwd, "runs") } });
    const both = async (args: string[], code: number): Promise<XmdResult> => {
      // Each folder's path, where a message names it, reads the same.
      const relative = (result: XmdResult, cwd: string): XmdResult => ({
        code: result.code,
        stdout: result.stdout.replaceAll(cwd, "<cwd>"),
        stderr: result.stderr.replaceAll(cwd, "<cwd>"),
      });
      const fromBundle = relative(await bundled(...args), bundledCwd);
      const fromSource = relative(await source(...args), sourceCwd);
      assert.equal(fromBundle.code, code, fromBundle.stderr);
      assert.deepEqual(fromBundle, fromSource);
      return fromBundle;
    };

    const started = await both(["workflow", "start", "--id=q", "doc.md"], 2);
    assert.equal(started.stdout, "# Bundled\n\nok\n");
    assert.match(started.stderr, /^workflow run: q\nworkflow status: suspended\n/);
    await both(["workflow", "answer", "q", "note", "--text=hi"], 0);
    const resumed = await both(["workflow", "resume", "q"], 0);
    assert.match(resumed.stdout, /ok and hi\n$/);
    assert.equal(resumed.stderr, "workflow run: q\nworkflow status: completed\n");
    await both(["workflow", "export", "q", "out"], 0);
    assert.equal(await Deno.readTextFile(join(bundledCwd, "out/f")), "ok\n");

    const hello = await both(["workflow", "start", "--id=hello", "hello.md"], 0);
    assert.match(hello.stdout, /The answer is 42\.\n$/);
    const ran = await both(["run", "hello.md"], 0);
    assert.match(ran.stdout, /The answer is 42\.\n$/);
    await both(["run", "doc.md", "--answer", 'note="there"'], 0);
    // (Its ages differ by the seconds between the two calls.)
    const listed = await bundled("workflow", "list");
    assert.match(listed.stdout, /\nhello +completed +hello\.md .*\nq +completed +doc\.md /);
    await both(["--help"], 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The files a module of the bundle loads before its code runs: its static imports, transitively. */
async function staticClosure(dir: string, entry: string): Promise<string[]> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    if (!name.startsWith("./")) continue;
    const text = await Deno.readTextFile(join(dir, name));
    for (const match of text.matchAll(/^(?:import|export)\b[^;]*?["']([^"']+)["'];$/gms)) {
      queue.push(match[1]);
    }
  }
  return [...seen].sort();
}

/** The npm packages whose code `files` (of the bundle) hold, by the bundler's path comments. */
async function npmPackages(dir: string, files: string[]): Promise<string[]> {
  const names = new Set<string>();
  for (const name of files.filter((name) => name.startsWith("./"))) {
    const text = await Deno.readTextFile(join(dir, name));
    for (const match of text.matchAll(/^\/\/ .*\/registry\.npmjs\.org\/((?:@[^/]+\/)?[^/]+)\//gm)) {
      names.add(match[1]);
    }
  }
  return [...names].sort();
}

Deno.test("MDX-101, MDX-132: the bundle keeps each command's start-up: --help loads the dispatch alone, workflow list and status the store and zod/mini (no classic zod), neither node:module", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-bundle-graph-" });
  try {
    const dist = join(dir, "dist");
    await installCli({ dir: dist, root: dir });
    const help = await staticClosure(dist, "./main.js");
    assert.deepEqual(help.filter((name) => !name.startsWith("./")), []);
    assert.deepEqual(await npmPackages(dist, help), []);
    // The walk is the entry's (so an empty or wrong graph cannot pass): its dispatch and io.
    const text = async (files: string[]) =>
      (await Promise.all(
        files.filter((name) => name.startsWith("./")).map((name) =>
          Deno.readTextFile(join(dist, name))
        ),
      )).join("\n");
    assert.match(await text(help), /\/\/ packages\/cli\/src\/deno\/cli\.ts\n/);

    // workflow-command.ts's chunk, which list, status and history load (MDX-81, MDX-82).
    const chunk = [...Deno.readDirSync(dist)].map((entry) => entry.name)
      .filter((name) => /^workflow-command-\w+\.js$/.test(name));
    assert.equal(chunk.length, 1);
    const workflow = await staticClosure(dist, `./${chunk[0]}`);
    assert.deepEqual(workflow.filter((name) => !name.startsWith("./")), ["node:sqlite"]);
    assert.deepEqual(await npmPackages(dist, workflow), ["zod"]);
    const zodModules = [...(await text(workflow)).matchAll(
      /^\/\/ .*\/registry\.npmjs\.org\/zod\/[^/]+\/(v4\/[a-z]+)\//gm,
    )].map((match) => match[1]);
    assert.deepEqual([...new Set(zodModules)].sort(), ["v4/core", "v4/locales", "v4/mini"]);
    assert.match(await text(workflow), /\/\/ packages\/workflow\/src\/store\/run-store\.ts\n/);
    // No engine, parser, executor or Worker Shell: npm packages aside, what MDX-82 lists.
    assert.doesNotMatch(
      await text(workflow),
      /\/\/ packages\/(core\/src\/(engine\/run-program|document\/parse-document|document\/load-program)|workflow\/src\/(execution\/execute-run|deno\/worker-shell))\.ts\n/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("MDX-120: the bundle holds zod's English messages and none of its other locales", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-bundle-zod-" });
  try {
    const dist = join(dir, "dist");
    await installCli({ dir: dist, root: dir });
    const locales = new Set<string>();
    let zodModules = 0;
    for (const entry of Deno.readDirSync(dist)) {
      if (!entry.name.endsWith(".js")) continue;
      const text = await Deno.readTextFile(join(dist, entry.name));
      for (const match of text.matchAll(/^\/\/ .*\/registry\.npmjs\.org\/zod\/[^/]+\/(.*)$/gm)) {
        zodModules++;
        const locale = /^v4\/locales\/(.+)$/.exec(match[1]);
        if (locale) locales.add(locale[1]);
      }
    }
    // The walk found zod itself (so an empty or wrong folder cannot pass).
    assert.ok(zodModules > 10, `${zodModules} of zod's modules`);
    assert.deepEqual([...locales], ["en.js"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
