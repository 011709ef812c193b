/**
 * The argument grammar, help, version, "did you mean" and completions of
 * `xmd`, as a user meets them: the real command as a subprocess.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DENO_DIR, runXmd } from "./_run-xmd.ts";
import { WORKFLOW_COMMANDS } from "./workflow-commands.ts";

async function folder() {
  const cwd = await Deno.makeTempDir({ prefix: "xmd-command-line-" });
  const env = { XMD_WORKFLOW_RUNS: join(cwd, "runs") };
  return {
    cwd,
    env,
    xmd: (...args: string[]) => runXmd(args, { cwd, env }),
    async [Symbol.asyncDispose]() {
      await Deno.remove(cwd, { recursive: true });
    },
  };
}

const ESC = "\x1b";
const DOC = '# Doc\n\n<File path="a.txt">a</File>\n\n```sh exec\necho b > b.txt\n```\n';

Deno.test("WF-50: one grammar: --flag value and --flag=value mean the same for every workflow option; a missing or empty value is refused", async () => {
  await using box = await folder();
  await Deno.writeTextFile(join(box.cwd, "doc.md"), DOC);
  const started = await box.xmd("workflow", "start", "--id", "spaced", "doc.md");
  assert.equal(started.code, 0, started.stderr);
  assert.match(started.stderr, /^workflow run: spaced\n/);

  const spaced = await box.xmd("workflow", "list", "--status", "completed", "--json");
  const joined = await box.xmd("workflow", "list", "--status=completed", "--json");
  assert.equal(spaced.code, 0, spaced.stderr);
  assert.equal(spaced.stdout, joined.stdout);
  assert.deepEqual(JSON.parse(spaced.stdout).map((run: { id: string }) => run.id), ["spaced"]);

  const atSpaced = await box.xmd("workflow", "export", "spaced", "out1", "--at", "2");
  const atJoined = await box.xmd("workflow", "export", "--at=2", "spaced", "out2");
  assert.equal(atSpaced.code, 0, atSpaced.stderr);
  assert.equal(atJoined.code, 0, atJoined.stderr);
  assert.deepEqual([...Deno.readDirSync(join(box.cwd, "out1"))].map((e) => e.name), ["a.txt"]);
  assert.deepEqual([...Deno.readDirSync(join(box.cwd, "out2"))].map((e) => e.name), ["a.txt"]);

  const missing = await box.xmd("workflow", "list", "--status");
  assert.equal(missing.code, 1);
  assert.equal(
    missing.stderr,
    "xmd: Option --status needs a value: write --status <status>\n",
  );

  // An empty journal path would name the current folder: refused as such, nothing written.
  const before = [...Deno.readDirSync(box.cwd)].map((entry) => entry.name).sort();
  for (const option of ["--journal=", "--replay="]) {
    const empty = await box.xmd("run", option, "doc.md");
    assert.equal(empty.code, 1);
    assert.equal(
      empty.stderr,
      `xmd: Option ${option.slice(0, -1)} needs a file path: write ${option}<file.jsonl>\n`,
    );
    assert.equal(empty.stdout, "");
  }
  assert.deepEqual([...Deno.readDirSync(box.cwd)].map((entry) => entry.name).sort(), before);
});

Deno.test("WF-50: --version and -V print the packages' version", async () => {
  await using box = await folder();
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
  ) as { version: string };
  for (const flag of ["--version", "-V"]) {
    const shown = await box.xmd(flag);
    assert.equal(shown.code, 0);
    assert.equal(shown.stdout, `xmd ${config.version} (deno ${Deno.version.deno})\n`);
  }
  for (const name of ["core", "workflow"]) {
    const other = JSON.parse(
      await Deno.readTextFile(new URL(`../../../${name}/deno.json`, import.meta.url)),
    ) as { version: string };
    assert.equal(other.version, config.version, `@xmd/${name} is published with @xmd/cli`);
  }
});

Deno.test("WF-50: each workflow command has its own help: synopsis, summary, options and an example", async () => {
  await using box = await folder();
  for (const [name, spec] of Object.entries(WORKFLOW_COMMANDS)) {
    const shown = await box.xmd("workflow", name, "--help");
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`^Usage: xmd workflow ${name} `));
    assert.ok(shown.stdout.includes(spec.summary), name);
    for (const option of spec.options) assert.ok(shown.stdout.includes(`--${option.name}`));
    assert.match(shown.stdout, /\nExamples?:\n {2}xmd workflow /);
  }
  const short = await box.xmd("workflow", "history", "-h");
  assert.match(short.stdout, /^Usage: xmd workflow history /);
});

Deno.test("MDX-70: did you mean, for commands, options, prop options, components and modifiers", async () => {
  await using box = await folder();
  await Deno.writeTextFile(
    join(box.cwd, "props.md"),
    "---\nprops:\n  name:\n    type: string\n    default: x\n---\n\n{props.name}\n",
  );
  const fixtures = fileURLToPath(new URL("../../fixtures/", import.meta.url));
  const cases: [string[], string][] = [
    [["wrokflow"], 'xmd: Unknown command "wrokflow" (did you mean "workflow"?): run xmd --help'],
    [
      ["workflow", "stauts", "x"],
      'xmd: Unknown command "stauts" (did you mean "status"?): run xmd workflow --help',
    ],
    [
      ["workflow", "list", "--josn"],
      'xmd: Unknown option "--josn" for xmd workflow list (did you mean "--json"?): run xmd workflow list --help',
    ],
    [
      ["run", "--jornal=t.jsonl", "props.md"],
      'xmd: Unknown option "--jornal" (did you mean "--journal"?): run xmd run --help for the options',
    ],
    [["run", "props.md", "--props-nmae=y"], "(did you mean --props-name?)"],
    [["run", join(fixtures, "fail.unknown-component.md")], "(did you mean <File>?)"],
    [["run", join(fixtures, "fail.unknown-modifier.md")], '(did you mean "silent"?)'],
  ];
  for (const [args, expected] of cases) {
    const refused = await box.xmd(...args);
    assert.equal(refused.code, 1, args.join(" "));
    assert.ok(refused.stderr.includes(expected), `${args.join(" ")}: ${refused.stderr}`);
  }
  // Nothing close: no guess.
  const far = await box.xmd("workflow", "list", "--zzzzzz");
  assert.equal(
    far.stderr,
    'xmd: Unknown option "--zzzzzz" for xmd workflow list: run xmd workflow list --help\n',
  );
});

Deno.test("WF-51: the bash completion script completes commands, options and run ids", async () => {
  await using box = await folder();
  await Deno.writeTextFile(join(box.cwd, "doc.md"), DOC);
  assert.equal((await box.xmd("workflow", "start", "--id=release-7", "doc.md")).code, 0);
  const script = await box.xmd("completions", "bash");
  assert.equal(script.code, 0, script.stderr);
  // An `xmd` on PATH for the script's run-id lookup: the same command the tests run.
  const bin = join(box.cwd, "bin");
  await Deno.mkdir(bin);
  const main = fileURLToPath(new URL("../../main.ts", import.meta.url));
  const config = fileURLToPath(new URL("../../../../deno.json", import.meta.url));
  await Deno.writeTextFile(
    join(bin, "xmd"),
    `#!/bin/sh\nexec "${Deno.execPath()}" run -A --quiet --config=${config} ${main} "$@"\n`,
    { mode: 0o755 },
  );
  await Deno.writeTextFile(join(box.cwd, "xmd.bash"), script.stdout);
  const complete = async (...words: string[]) => {
    const output = await new Deno.Command("bash", {
      args: [
        "-c",
        `source ./xmd.bash; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${
          words.length - 1
        }; _xmd; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      cwd: box.cwd,
      env: { ...box.env, PATH: `${bin}:${dirname(Deno.execPath())}:/usr/bin:/bin` },
    }).output();
    return new TextDecoder().decode(output.stdout).split("\n").filter(Boolean);
  };
  assert.deepEqual(await complete("xmd", "wo"), ["workflow"]);
  assert.deepEqual(await complete("xmd", "workflow", "hi"), ["history"]);
  assert.deepEqual(await complete("xmd", "workflow", "list", "--st"), ["--status"]);
  assert.deepEqual(await complete("xmd", "workflow", "status", "rel"), ["release-7"]);
  assert.deepEqual(await complete("xmd", "completions", "f"), ["fish"]);

  for (const shell of ["zsh", "fish"]) {
    const other = await box.xmd("completions", shell);
    assert.equal(other.code, 0);
    assert.ok(other.stdout.includes("completions --run-ids"), shell);
  }
  const unknown = await box.xmd("completions", "tcsh");
  assert.equal(unknown.code, 1);
  assert.equal(
    unknown.stderr,
    'xmd: Cannot write completions for "tcsh": use one of bash, zsh, fish\n',
  );
});

Deno.test("WF-52: colour only on a terminal, honouring NO_COLOR and --color; piped output is unchanged", async () => {
  await using box = await folder();
  await Deno.writeTextFile(join(box.cwd, "fail.md"), "```sh exec\nexit 3\n```\n");
  const expected = "xmd: fail.md:1:1: The sh block exited with code 3";
  const piped = await box.xmd("run", "fail.md");
  assert.equal(piped.code, 1);
  assert.ok(piped.stderr.startsWith(expected), piped.stderr);
  assert.ok(!piped.stderr.includes(ESC), "no escape sequence when piped");
  const always = await box.xmd("--color=always", "run", "fail.md");
  assert.ok(always.stderr.startsWith("\x1b[1;31mxmd:\x1b[0m fail.md:1:1: The sh block"));
  const never = await box.xmd("--color", "never", "run", "fail.md");
  assert.equal(never.stderr, piped.stderr);
  const invalid = await box.xmd("--color=sometimes", "run", "fail.md");
  assert.equal(invalid.stderr, "xmd: Invalid --color=sometimes: use auto, always or never\n");

  // On a real terminal (util-linux `script` gives the command a pty), auto paints unless NO_COLOR.
  const main = fileURLToPath(new URL("../../main.ts", import.meta.url));
  const config = fileURLToPath(new URL("../../../../deno.json", import.meta.url));
  const onTerminal = async (env: Record<string, string>) => {
    const output = await new Deno.Command("script", {
      args: [
        "-qfec",
        `"${Deno.execPath()}" run -A --quiet --config=${config} ${main} run fail.md`,
        "/dev/null",
      ],
      cwd: box.cwd,
      clearEnv: true,
      env: { PATH: "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? box.cwd, ...env },
    }).output();
    return new TextDecoder().decode(output.stdout);
  };
  assert.ok((await onTerminal({ DENO_DIR })).includes(`${ESC}[1;31mxmd:${ESC}[0m fail.md:1:1`));
  const plain = await onTerminal({ DENO_DIR, NO_COLOR: "1" });
  assert.match(plain, /xmd: fail\.md:1:1/);
  assert.ok(!plain.includes(`${ESC}[1;31m`), "NO_COLOR keeps a terminal plain");
});

Deno.test("WF-50: xmd run --help and xmd workflow --help show examples, and each runs as shown", async () => {
  await using box = await folder();
  await new Deno.Command("cp", {
    args: ["-R", fileURLToPath(new URL("../../../../examples", import.meta.url)), box.cwd],
  }).output();
  const examples: string[] = [];
  for (const help of [["run", "--help"], ["workflow", "--help"]]) {
    const shown = await box.xmd(...help);
    assert.equal(shown.code, 0, shown.stderr);
    const block = /\nExamples:\n((?: {2}xmd .*\n?)+)/.exec(shown.stdout)?.[1];
    assert.ok(block, `xmd ${help.join(" ")} shows examples:\n${shown.stdout}`);
    examples.push(...block.trimEnd().split("\n").map((line) => line.trim()));
  }
  // In order: the workflow examples start, answer and resume one run.
  for (const example of examples) {
    const words = [...example.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]);
    assert.equal(words[0], "xmd");
    const ran = await box.xmd(...words.slice(1));
    // A start that stops for its question exits 2 (suspended), as the help's exit codes say.
    const expected = example.startsWith("xmd workflow start") ? 2 : 0;
    assert.equal(ran.code, expected, `${example}\n${ran.stderr}`);
  }
});
