/**
 * The example job `.github/workflows/xmd-issue.yml`, its steps run as a
 * script: each `run:` step by bash as Actions runs it (`-eo pipefail`), its
 * `env` and `if` evaluated for the few expressions the job uses, against
 * the production admission Worker in workerd with the loopback fakes (each
 * job's OIDC token from the fake Actions token endpoint, each issue reread
 * from the fake GitHub, `_test-remote-cli.ts`). The steps Actions provides
 * (checkout, setup-deno, upload-artifact) and the install step are stood in
 * for: a fresh working folder holding the examples, `xmd` on PATH, the
 * exported folder checked.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DENO_DIR, runXmd } from "./_run-xmd.ts";
import { parseYaml, RemoteStage } from "./_test-remote-cli.ts";

const ROOT = new URL("../../../../", import.meta.url);
const root = (path: string) => fileURLToPath(new URL(path, ROOT));
const JOB_FILE = root(".github/workflows/xmd-issue.yml");
const DOCUMENT = "examples/issue.md";

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
}

interface Workflow {
  on: { issues: unknown; workflow_dispatch: { inputs: Record<string, unknown> } };
  permissions: Record<string, string>;
  concurrency: { group: string };
  jobs: { run: { env: Record<string, string>; steps: Step[] } };
}

/** What one step did. */
interface StepResult {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
}

/** The context the job's expressions read. */
interface Context {
  inputs: Record<string, string>;
  vars: Record<string, string>;
  event: { issue?: { number: number; node_id: string } };
  temp: string;
  steps: Record<string, StepResult & { outcome: string }>;
}

/** `${{ … }}` of the expressions the job uses: lookups, `||` and string literals. */
function evaluate(expression: string, context: Context): string {
  for (const part of expression.split("||").map((p) => p.trim())) {
    const value = lookup(part, context);
    if (value !== "") return value;
  }
  return "";
}

function lookup(part: string, context: Context): string {
  const literal = /^'(.*)'$/.exec(part);
  if (literal) return literal[1];
  const [head, ...rest] = part.split(".");
  switch (head) {
    case "inputs":
      return context.inputs[rest[0]] ?? "";
    case "vars":
      return context.vars[rest[0]] ?? "";
    case "runner":
      assert.deepEqual(rest, ["temp"]);
      return context.temp;
    case "github": {
      assert.deepEqual(rest.slice(0, 2), ["event", "issue"], part);
      const issue = context.event.issue as Record<string, unknown> | undefined;
      return issue === undefined ? "" : String(issue[rest[2]]);
    }
    case "steps": {
      const step = context.steps[rest[0]];
      if (rest[1] === "outputs") return step?.outputs[rest[2]] ?? "";
      assert.equal(rest[1], "outcome", part);
      return step?.outcome ?? "skipped";
    }
  }
  throw new Error(`The test does not evaluate ${part}`);
}

function substitute(text: string, context: Context): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, expression) => evaluate(expression, context));
}

/** The job's `if:` conditions, each `always() && <a> <op> '<b>'`. */
function condition(text: string, context: Context): boolean {
  const match = /^always\(\) && ([\w.]+) (==|!=) '(.*)'$/.exec(text);
  if (!match) throw new Error(`The test does not evaluate if: ${text}`);
  const value = lookup(match[1], context);
  return match[2] === "==" ? value === match[3] : value !== match[3];
}

/** One runner: a fresh folder with the repository's examples, and its own temporary folder. */
async function runner(stage: RemoteStage): Promise<{ work: string; temp: string; bin: string }> {
  const base = await Deno.makeTempDir({ dir: stage.dir, prefix: "runner-" });
  const work = join(base, "work");
  const temp = join(base, "temp");
  const bin = join(base, "bin");
  await Deno.mkdir(work);
  await Deno.mkdir(temp);
  await Deno.mkdir(bin);
  await new Deno.Command("cp", { args: ["-R", root("examples"), work] }).output();
  await Deno.writeTextFile(
    join(bin, "xmd"),
    `#!/bin/sh\nexec "${Deno.execPath()}" run -A --quiet --config=${root("deno.json")} ${
      root("packages/cli/main.ts")
    } "$@"\n`,
    { mode: 0o755 },
  );
  return { work, temp, bin };
}

/** Runs the job on a fresh runner with `inputs` and `event` as its trigger. */
async function runJob(
  stage: RemoteStage,
  job: Workflow["jobs"]["run"],
  trigger: { name: string; inputs: Record<string, string>; event: Context["event"] },
) {
  const { work, temp, bin } = await runner(stage);
  const context: Context = {
    inputs: trigger.inputs,
    vars: { XMD_REMOTE: stage.remote },
    event: trigger.event,
    temp,
    steps: {},
  };
  const eventPath = join(temp, "event.json");
  await Deno.writeTextFile(eventPath, JSON.stringify(trigger.event));
  const summary = join(temp, "summary.md");
  await Deno.writeTextFile(summary, "");
  const jobEnv = Object.fromEntries(
    Object.entries(job.env).map(([name, value]) => [name, substitute(value, context)]),
  );
  const ran: Record<string, StepResult> = {};
  const skipped: string[] = [];
  for (const step of job.steps) {
    if (step.run === undefined || step.name === "Install xmd") {
      skipped.push(step.uses ?? step.name!);
      continue;
    }
    if (step.if !== undefined && !condition(step.if, context)) {
      if (step.id) context.steps[step.id] = { ...none, outcome: "skipped" };
      continue;
    }
    const output = join(temp, `output-${step.id ?? crypto.randomUUID()}`);
    await Deno.writeTextFile(output, "");
    const script = join(temp, "step.sh");
    await Deno.writeTextFile(script, step.run);
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([name, value]) => [name, substitute(value, context)]),
    );
    const result = await new Deno.Command("bash", {
      args: ["--noprofile", "--norc", "-eo", "pipefail", script],
      cwd: work,
      clearEnv: true,
      env: {
        PATH: `${bin}:${dirname(Deno.execPath())}:/usr/bin:/bin`,
        HOME: temp,
        DENO_DIR,
        GITHUB_ACTIONS: "true",
        GITHUB_EVENT_NAME: trigger.name,
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_REPOSITORY: "octo/app",
        GITHUB_OUTPUT: output,
        GITHUB_STEP_SUMMARY: summary,
        RUNNER_TEMP: temp,
        ...stage.jobEnv(),
        ...jobEnv,
        ...stepEnv,
      },
    }).output();
    const outputs = Object.fromEntries(
      (await Deno.readTextFile(output)).split("\n").filter(Boolean).map((line) => {
        const at = line.indexOf("=");
        return [line.slice(0, at), line.slice(at + 1)];
      }),
    );
    const stepResult = {
      code: result.code,
      stdout: new TextDecoder().decode(result.stdout),
      stderr: new TextDecoder().decode(result.stderr),
      outputs,
    };
    ran[step.name ?? step.id!] = stepResult;
    if (step.id) {
      context.steps[step.id] = {
        ...stepResult,
        outcome: result.code === 0 ? "success" : "failure",
      };
    }
    if (result.code !== 0) break;
  }
  return { ran, skipped, summary: await Deno.readTextFile(summary), temp };
}

const none: StepResult = { code: 0, stdout: "", stderr: "", outputs: {} };

async function tree(dir: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const path = join(prefix, entry.name);
    if (entry.isDirectory) found.push(`${path}/`, ...await tree(dir, path));
    else found.push(`${path} ${await Deno.readTextFile(join(dir, path))}`);
  }
  return found.sort();
}

Deno.test("RM-107: the example job's shape: triggers, permissions, one concurrency group per issue, and no expression inside a script", async () => {
  const workflow = parseYaml(await Deno.readTextFile(JOB_FILE)) as Workflow;
  assert.ok("issues" in workflow.on);
  assert.deepEqual(Object.keys(workflow.on.workflow_dispatch.inputs).sort(), [
    "answer",
    "issue",
    "question",
    "text",
  ]);
  assert.deepEqual(workflow.permissions, { contents: "read", "id-token": "write" });
  assert.equal(
    workflow.concurrency.group,
    "xmd-issue-${{ github.event.issue.number || inputs.issue }}",
  );
  for (const step of workflow.jobs.run.steps) {
    // Inputs reach a script only through its environment: never interpolated into its text.
    assert.ok(!step.run?.includes("${{"), `step "${step.name}" interpolates an expression`);
    // The job never writes to the issue.
    assert.doesNotMatch(step.run ?? "", /\bgh\b|api\.github\.com|curl/);
  }
});

Deno.test("RM-107 RM-108: the example job starts the issue's run on one runner and a dispatch with the answer finishes it on another, with one uninterrupted run's output", async () => {
  const workflow = parseYaml(await Deno.readTextFile(JOB_FILE)) as Workflow;
  await using stage = await RemoteStage.start();

  // The reference: the document run on this machine without interruption.
  const runs = await Deno.makeTempDir({ dir: stage.dir, prefix: "local-" });
  const local = (...args: string[]) =>
    runXmd(["workflow", ...args], { cwd: root("."), env: { XMD_WORKFLOW_RUNS: runs } });
  const started = await local("start", "--id=local", DOCUMENT);
  assert.equal(started.code, 2, started.stderr);
  assert.equal((await local("answer", "local", "decision", '{"accept":true}')).code, 0);
  const uninterrupted = await local("resume", "local");
  assert.equal(uninterrupted.code, 0, uninterrupted.stderr);
  await local("export", "local", `${runs}/out`);

  // octo/app's issues 1 to 13: the job names them by number, the Worker rereads each.
  const issues = Array.from({ length: 13 }, () => stage.issue());
  const issue = { number: 12, node_id: issues[11].id };
  const id = await stage.runId(issues[11]);
  const first = await runJob(stage, workflow.jobs.run, {
    name: "issues",
    inputs: {},
    event: { issue },
  });
  assert.deepEqual(first.skipped, [
    "actions/checkout@v4",
    "denoland/setup-deno@v2",
    "Install xmd",
    "actions/upload-artifact@v4",
  ]);
  const run = first.ran["Answer and run"];
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.outputs.code, "2");
  assert.equal(run.stdout, started.stdout);
  assert.equal(first.ran["Export the Workspace"].code, 0);
  assert.equal(first.ran["Report"].code, 0, "a suspended run ends the job green");
  assert.ok(first.summary.startsWith(`### xmd workflow run \`${id}\`: suspended\n`), first.summary);
  assert.match(
    first.summary,
    /> Accept this issue\?\n\nAnswer schema:\n\n```json\n\{\n {2}"type": "object",/,
  );
  assert.ok(
    first.summary.includes(
      "```sh\nxmd workflow answer --issue=octo/app#12 decision-4 '<json>'\n```\n",
    ),
    first.summary,
  );
  assert.match(first.summary, /run this workflow \(workflow_dispatch\) with issue 12,/);

  // A second runner, a fresh folder: the dispatch that answers.
  const second = await runJob(stage, workflow.jobs.run, {
    name: "workflow_dispatch",
    inputs: { issue: "12", question: "decision", answer: '{"accept":true}' },
    event: {},
  });
  const finished = second.ran["Answer and run"];
  assert.equal(finished.code, 0, finished.stderr);
  assert.equal(finished.outputs.code, "0");
  assert.equal(finished.stdout, uninterrupted.stdout);
  assert.equal(second.ran["Export the Workspace"].code, 0);
  assert.deepEqual(await tree(join(second.temp, "xmd-export")), await tree(`${runs}/out`));
  assert.equal(second.ran["Report"].code, 0);
  assert.match(second.summary, /: completed\n[\s\S]*The run completed\.\n$/);

  // A third dispatch, with an answer the question no longer takes, fails the job.
  const late = await runJob(stage, workflow.jobs.run, {
    name: "workflow_dispatch",
    inputs: { issue: "12", question: "decision", text: "yes" },
    event: {},
  });
  assert.equal(late.ran["Answer and run"].code, 1);
  assert.ok(
    late.ran["Answer and run"].stderr.includes(`xmd: Cannot answer run "${id}": it is completed`),
    late.ran["Answer and run"].stderr,
  );
  assert.equal(late.ran["Report"], undefined);

  // A cancelled run fails the job, its status in the summary.
  const other = { number: 13, node_id: issues[12].id };
  const asked = await runJob(stage, workflow.jobs.run, {
    name: "issues",
    inputs: {},
    event: { issue: other },
  });
  assert.equal(asked.ran["Answer and run"].outputs.code, "2");
  const cancel = await runXmd(["workflow", "cancel", "--issue=octo/app#13"], {
    cwd: stage.dir,
    env: stage.jobEnv({ XMD_WORKFLOW_REMOTE: stage.remote }),
  });
  assert.equal(cancel.code, 0, cancel.stderr);
  const cancelled = await runJob(stage, workflow.jobs.run, {
    name: "workflow_dispatch",
    inputs: { issue: "13" },
    event: {},
  });
  assert.equal(cancelled.ran["Answer and run"].outputs.code, "3");
  assert.equal(cancelled.ran["Report"].code, 1, "a cancelled run fails the job");
  assert.match(cancelled.summary, /: cancelled\n[\s\S]*The run ended with exit code 3\.\n$/);

  // No step's output, summary or the Worker's log holds a token, a credential or an endpoint.
  stage.assertNoSecret(
    ...[first, second, late, asked, cancelled].flatMap((job) => [
      job.summary,
      ...Object.values(job.ran).flatMap(({ stdout, stderr }) => [stdout, stderr]),
    ]),
  );
});
