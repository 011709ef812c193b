/**
 * The README's console sessions stay true: each ```console block is run, in
 * order, by bash in a scratch folder holding the examples, with `xmd` on
 * PATH, and its output must be what the README shows. Only times ("4s ago"),
 * hashes and the scratch paths may differ; runs of spaces are compared as one
 * so table columns may widen with them.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DENO_DIR } from "./_run-xmd.ts";

const ROOT = new URL("../../../../", import.meta.url);
const root = (path: string) => fileURLToPath(new URL(path, ROOT));

interface Step {
  command: string;
  expected: string;
  line: number;
}

/** Every `$ command` of the README's console blocks, with the lines shown after it. */
function sessions(readme: string): Step[][] {
  const blocks: Step[][] = [];
  const lines = readme.split("\n");
  for (let index = 0; index < lines.length; index++) {
    if (lines[index].trim() !== "```console") continue;
    const indent = lines[index].indexOf("```");
    const steps: Step[] = [];
    for (index++; lines[index].trim() !== "```"; index++) {
      const line = lines[index].slice(indent);
      if (line.startsWith("$ ")) {
        steps.push({ command: line.slice(2), expected: "", line: index + 1 });
      } else steps.at(-1)!.expected += `${line}\n`;
    }
    blocks.push(steps);
  }
  return blocks;
}

function normalize(text: string, scratch: string): string {
  return text
    .replaceAll(scratch, "<scratch>")
    .replace(/\b(just now|\d+[smhd] ago)\b/g, "<time>")
    .replace(/\b[0-9a-f]{12,64}\b/g, "<hash>")
    .replace(/ {2,}/g, " ")
    .replace(/ +\n/g, "\n")
    // A terminal shows output without a last newline the same way (the prompt follows it).
    .replace(/([^\n])$/, "$1\n");
}

Deno.test("README: every console session prints what the README shows", async () => {
  const readme = await Deno.readTextFile(root("README.md"));
  const scratch = await Deno.makeTempDir({ prefix: "xmd-readme-" });
  try {
    const work = join(scratch, "work");
    await Deno.mkdir(join(work, "packages/cli"), { recursive: true });
    await new Deno.Command("cp", { args: ["-R", root("examples"), work] }).output();
    await new Deno.Command("cp", {
      args: ["-R", root("packages/cli/fixtures"), join(work, "packages/cli")],
    }).output();
    const bin = join(scratch, "bin");
    await Deno.mkdir(bin);
    await Deno.writeTextFile(
      join(bin, "xmd"),
      `#!/bin/sh\nexec "${Deno.execPath()}" run -A --quiet --config=${root("deno.json")} ${
        root("packages/cli/main.ts")
      } "$@"\n`,
      { mode: 0o755 },
    );
    const blocks = sessions(readme);
    assert.ok(blocks.length >= 4, "the README has its console sessions");
    for (const steps of blocks) {
      // One bash per session, so `echo $?` sees the command before it.
      const script = steps.map((step, index) =>
        `${
          step.command.replaceAll("/tmp/", `${scratch}/`)
        } 2>&1\n__status=$?\necho "@@step ${index}"\n(exit $__status)\n`
      ).join("");
      const output = await new Deno.Command("bash", {
        args: ["-c", script],
        cwd: work,
        clearEnv: true,
        env: {
          PATH: `${bin}:${dirname(Deno.execPath())}:/usr/bin:/bin`,
          HOME: scratch,
          DENO_DIR,
          XMD_WORKFLOW_RUNS: join(scratch, "runs"),
          NO_COLOR: "1",
        },
      }).output();
      const printed = new TextDecoder().decode(output.stdout).split(/@@step \d+\n/);
      steps.forEach((step, index) => {
        assert.equal(
          normalize(printed[index], scratch),
          normalize(step.expected.replaceAll("/tmp/", `${scratch}/`), scratch),
          `README.md:${step.line}: $ ${step.command}`,
        );
      });
    }
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
});
