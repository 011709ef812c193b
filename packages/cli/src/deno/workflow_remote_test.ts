/**
 * `xmd workflow --remote` end to end: the real CLI as a subprocess with an
 * Actions job's environment, a loopback OIDC token service, and the
 * `WorkflowRun` Durable Object in real workerd behind the remote test
 * Worker's `/v1/connect`; the local host for the reference run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runXmd } from "./_run-xmd.ts";
import {
  LoggingServer,
  type Outcome,
  RemoteStage,
  REQUEST_TOKEN,
  spawnWorkflow,
  TESTDATA,
  testRunId,
  workflow,
} from "./_test-remote-cli.ts";

const DOCUMENT = "ok.workspace-effects.md";
const ANSWER = '{"ok":true}';
const NODE_ID = "I_kwDOABCDEF5Abc";

/** The document run on the local host: its outputs and its events as `history --json` shows them. */
interface Reference {
  started: string;
  resumed: string;
  events: unknown[];
  diff: string;
  tree: string[];
}

let reference: Promise<Reference> | undefined;

/** The uninterrupted local run, made once. */
function localReference(): Promise<Reference> {
  return reference ??= (async () => {
    const runs = await Deno.makeTempDir({ prefix: "xmd-remote-reference-" });
    const env = { XMD_WORKFLOW_RUNS: runs };
    const xmd = (...args: string[]) => runXmd(["workflow", ...args], { cwd: TESTDATA, env });
    const started = await xmd("start", "--id=local", DOCUMENT);
    assert.equal(started.code, 2, started.stderr);
    assert.equal((await xmd("answer", "local", "go-5", ANSWER)).code, 0);
    const resumed = await xmd("resume", "local");
    assert.equal(resumed.code, 0, resumed.stderr);
    const history = JSON.parse((await xmd("history", "local", "--json")).stdout);
    const diff = await xmd("diff", "local", "2", "8");
    await xmd("export", "local", `${runs}/out`);
    const result = {
      started: started.stdout,
      resumed: resumed.stdout,
      events: eventsOf(history),
      diff: diff.stdout,
      tree: await tree(`${runs}/out`),
    };
    await Deno.remove(runs, { recursive: true });
    return result;
  })();
}

// deno-lint-ignore no-explicit-any
function eventsOf(history: any): unknown[] {
  return history.events.map(({ at: _at, ...event }: { at: number }) => event);
}

async function tree(dir: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const path = join(prefix, entry.name);
    if (entry.isDirectory) found.push(`${path}/`, ...await tree(dir, path));
    else found.push(`${path} ${await Deno.readTextFile(join(dir, path))}`);
  }
  return found.sort();
}

function exit(outcome: Outcome, code: number): void {
  assert.equal(outcome.code, code, `exit ${outcome.code}:\n${outcome.stdout}\n${outcome.stderr}`);
  assert.doesNotMatch(outcome.stderr, /internal error|^\s+at /m, outcome.stderr);
}

/** A refusal: exit 1, nothing on stdout, exactly `xmd: <message>` on stderr. */
function refused(outcome: Outcome, message: string): void {
  exit(outcome, 1);
  assert.equal(outcome.stdout, "");
  assert.equal(outcome.stderr, `xmd: ${message}\n`);
}

/** No output holds a token: neither an OIDC token nor the request token. */
function noToken(...outcomes: Outcome[]): void {
  for (const { stdout, stderr } of outcomes) {
    for (const text of [stdout, stderr]) {
      assert.doesNotMatch(text, /oidc-\d|expired-\d/, "an OIDC token was printed");
      assert.ok(!text.includes(REQUEST_TOKEN), "the request token was printed");
    }
  }
}

async function historyEvents(env: Record<string, string>, issue: string[] = []) {
  const history = await workflow(["history", ...issue, "--json"], env);
  exit(history, 0);
  return eventsOf(JSON.parse(history.stdout));
}

Deno.test("RM-100 RM-101 RM-103 WF-88 WF-89: every workflow command runs on the remote host XMD_WORKFLOW_REMOTE selects, on the run of the Actions event's issue, with the local host's output", async () => {
  const expected = await localReference();
  await using stage = await RemoteStage.start();
  const home = `${stage.dir}/home`;
  await Deno.mkdir(home);
  const env = stage.jobEnv({
    XMD_WORKFLOW_REMOTE: stage.remote,
    GITHUB_EVENT_PATH: await stage.event(NODE_ID),
    HOME: home,
  });
  const id = await testRunId(NODE_ID);
  const outcomes: Outcome[] = [];
  const run = async (args: string[], code: number, stdin?: string) => {
    const outcome = await workflow(args, env, { stdin });
    exit(outcome, code);
    outcomes.push(outcome);
    return outcome;
  };

  const started = await run(["start", DOCUMENT], 2);
  assert.equal(started.stdout, expected.started);
  assert.equal(
    started.stderr,
    `workflow run: ${id}\nworkflow status: suspended\nQuestion (go-5): Build again?\n` +
      `Answer schema: {"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}\n` +
      `Answer with: xmd workflow answer --issue=${NODE_ID} go-5 '<json>'\n`,
  );
  const status = await run(["status"], 0);
  assert.match(status.stdout, new RegExp(`^run +${id}\nstatus +suspended\n`));
  assert.match(
    status.stdout,
    new RegExp(`answer with: xmd workflow answer --issue=${NODE_ID} go-5`),
  );
  const markdown = await run(["status", "--format=markdown"], 0);
  assert.equal(
    markdown.stdout,
    `### xmd workflow run \`${id}\`: suspended\n\n5 events committed; stopped: at event 5.\n\n` +
      "Waiting for an answer to `go-5`:\n\n> Build again?\n\nAnswer schema:\n\n```json\n" +
      JSON.stringify(
        { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
        null,
        2,
      ) +
      `\n\`\`\`\n\nAnswer with:\n\n\`\`\`sh\nxmd workflow answer --issue=${NODE_ID} go-5 '<json>'\n\`\`\`\n`,
  );
  const json = JSON.parse((await run(["status", "--json"], 0)).stdout);
  assert.equal(json.id, id);
  assert.equal(json.pendingSuspension.suspensionId, "go-5");
  const listed = await run(["list"], 0);
  assert.match(listed.stdout, new RegExp(`^RUN .*\n${id} +suspended +${DOCUMENT} +5 `));
  assert.equal(JSON.parse((await run(["list", "--json"], 0)).stdout).length, 1);

  const answered = await run(["answer", "go", "-"], 0, ANSWER);
  assert.equal(
    answered.stdout,
    `answered go-5 of run ${id}; continue it with: xmd workflow resume --issue=${NODE_ID}\n`,
  );
  const resumed = await run(["resume"], 0);
  assert.equal(resumed.stdout, expected.resumed);
  assert.equal(resumed.stderr, `workflow run: ${id}\nworkflow status: completed\n`);
  assert.deepEqual(await historyEvents(env), expected.events);
  const diff = await run(["diff", "2", "8"], 0);
  assert.equal(diff.stdout, expected.diff);
  const exported = await run(["export", `${stage.dir}/out`], 0);
  assert.match(
    exported.stdout,
    new RegExp(`^exported run ${id} at root [0-9a-f]{12} \\(after event 11\\)`),
  );
  assert.deepEqual(await tree(`${stage.dir}/out`), expected.tree);

  // An existing run continues (WF-23): a completed one replays its output, changing nothing.
  const dump = await stage.dump(id);
  const again = await run(["start", DOCUMENT], 0);
  assert.equal(again.stdout, expected.resumed);
  assert.equal(await stage.dump(id), dump);
  refused(
    await run(["cancel"], 1),
    `Cannot cancel run "${id}": it is completed; only suspended or interrupted runs can be cancelled`,
  );
  assert.equal((await run(["delete"], 0)).stdout, `deleted run ${id}\n`);
  refused(
    await run(["status"], 1),
    `Cannot find run "${id}": no such remote run. Start it with xmd workflow start --issue=${NODE_ID} <document.md>`,
  );
  assert.equal((await run(["list"], 0)).stdout, "No workflow runs.\n");

  // Nothing was kept on this machine, and every token asked for the remote's origin.
  assert.deepEqual([...Deno.readDirSync(home)], []);
  assert.ok(stage.tokens.requests.length >= outcomes.length);
  for (const request of stage.tokens.requests) {
    assert.equal(new URL(request.url).searchParams.get("audience"), new URL(stage.remote).origin);
    assert.equal(new URL(request.url).searchParams.get("api-version"), "2.0");
  }
  noToken(...outcomes);
});

Deno.test("RM-100 WF-88: --remote selects the remote host too; --issue names the run; a cancelled run says to delete it; local runs are untouched", async () => {
  await using stage = await RemoteStage.start();
  const runs = `${stage.dir}/runs`;
  const env = stage.jobEnv({ XMD_WORKFLOW_RUNS: runs });
  const issue = "octo/app#7";
  const id = await testRunId(issue);
  const remote = [`--remote=${stage.remote}`, `--issue=${issue}`];
  const name = `--remote=${stage.remote}/ --issue=${issue}`;

  // A local run beside it, by the same commands without --remote.
  exit(await workflow(["start", "--id=mine", DOCUMENT], env), 2);
  const local = await Deno.readDir(runs)[Symbol.asyncIterator]().next();
  const localBefore = await Deno.readFile(join(runs, local.value!.name));

  const started = await workflow(["start", ...remote, DOCUMENT], env);
  exit(started, 2);
  assert.match(
    started.stderr,
    new RegExp(`Answer with: xmd workflow answer ${name} go-5 '<json>'\n$`),
  );
  exit(await workflow(["cancel", "--issue", issue, "--remote", stage.remote], env), 0);
  const resumed = await workflow(["resume", ...remote], env);
  exit(resumed, 3);
  assert.equal(
    resumed.stderr,
    `workflow run: ${id}\nworkflow status: cancelled\nRun ${id} was cancelled; it cannot be resumed: ` +
      `delete it with xmd workflow delete ${name}, then start the issue's run again to do it again\n`,
  );
  exit(await workflow(["delete", ...remote], env), 0);
  exit(await workflow(["start", ...remote, DOCUMENT], env), 2);

  // The local host answers as before: its run, its files.
  const list = await workflow(["list"], env);
  exit(list, 0);
  assert.match(list.stdout, /^RUN .*\nmine +suspended /);
  assert.equal(list.stdout.split("\n").length, 3);
  assert.deepEqual(await Deno.readFile(join(runs, local.value!.name)), localBefore);
});

Deno.test("RM-102: bad input is one xmd: line, exit 1, and contacts neither the remote host nor the token service", async () => {
  await using stage = await RemoteStage.start();
  await using remote = new LoggingServer(() => new Response("no", { status: 500 }));
  const event = await stage.event(NODE_ID);
  const dispatch = `${stage.dir}/dispatch.json`;
  await Deno.writeTextFile(dispatch, JSON.stringify({ inputs: { answer: "x" } }));
  const job = stage.jobEnv({ XMD_WORKFLOW_REMOTE: remote.url });
  const { ACTIONS_ID_TOKEN_REQUEST_URL: _url, ...noTokenEnv } = job;
  const cases: [string[], Record<string, string>, string][] = [
    [
      ["status"],
      job,
      "No issue names the remote run: pass --issue=<owner/repo#number>, or run in a GitHub Actions job triggered by an issue event",
    ],
    [
      ["status"],
      { ...job, GITHUB_EVENT_PATH: dispatch },
      "The Actions event at GITHUB_EVENT_PATH names no issue: pass --issue=<owner/repo#number>",
    ],
    [
      ["status", "--issue=octo/app#0"],
      job,
      "Invalid --issue: write --issue=<owner/repo#number> (such as octo/app#12) or the issue's node id",
    ],
    [
      ["status"],
      { ...noTokenEnv, GITHUB_EVENT_PATH: event },
      "No OIDC token for the remote host: ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN are not set. Run in a GitHub Actions job with `permissions: id-token: write`",
    ],
    [
      ["start", "--id=r1", DOCUMENT],
      { ...job, GITHUB_EVENT_PATH: event },
      "Option --id names a local run: a remote run is its issue's, named by --issue (or the Actions event)",
    ],
    [
      ["status", "--remote=xmd.example.workers.dev"],
      { ...job, GITHUB_EVENT_PATH: event },
      "--remote must be an absolute URL, such as https://xmd.example.workers.dev: set it to the deployed Worker's address",
    ],
    [
      ["status"],
      { ...job, XMD_WORKFLOW_REMOTE: "http://xmd.example.workers.dev", GITHUB_EVENT_PATH: event },
      "XMD_WORKFLOW_REMOTE must be an https URL (http only on loopback): set it to the deployed Worker's https address",
    ],
    [
      ["status", "--remote=https://user:pw@xmd.example.workers.dev"],
      { ...job, GITHUB_EVENT_PATH: event },
      "--remote must be the Worker's address alone, without credentials, query or fragment",
    ],
    [
      ["resume", "release-1"],
      { ...job, GITHUB_EVENT_PATH: event },
      "xmd workflow resume takes no arguments, not 1 argument: run xmd workflow resume --help",
    ],
    [
      ["status", "--issue=octo/app#1", "r1"],
      { ACTIONS_ID_TOKEN_REQUEST_TOKEN: REQUEST_TOKEN },
      "Option --issue names a remote run: select the remote host with --remote=<url> or XMD_WORKFLOW_REMOTE",
    ],
  ];
  const outcomes = await Promise.all(cases.map(([args, env]) => workflow(args, env)));
  outcomes.forEach((outcome, index) => refused(outcome, cases[index][2]));
  assert.deepEqual(remote.requests, [], "the remote host was contacted");
  assert.deepEqual(stage.tokens.requests, [], "the token service was contacted");
});

Deno.test("RM-103 RM-104: an admission refusal prints the Worker's message, exits 1 and changes nothing; no token is ever printed", async () => {
  await using stage = await RemoteStage.start();
  const env = stage.jobEnv({
    XMD_WORKFLOW_REMOTE: stage.remote,
    GITHUB_EVENT_PATH: await stage.event(NODE_ID),
  });
  const id = await testRunId(NODE_ID);
  exit(await workflow(["start", DOCUMENT], env), 2);
  const before = await stage.dump(id);
  stage.tokens.expired = true;
  const outcomes = await Promise.all(
    [["start", DOCUMENT], ["status"], ["answer", "go", ANSWER], ["resume"], ["delete"]].map((
      args,
    ) => workflow(args, env)),
  );
  for (const outcome of outcomes) refused(outcome, "The token has expired");
  noToken(...outcomes);
  assert.equal(await stage.dump(id), before);
});

Deno.test("RM-104: a remote host that cannot be reached exits 75 and says to run the command again", async () => {
  await using stage = await RemoteStage.start();
  // An edge without the Worker behind it: the upgrade is answered 502, with no refusal of the Worker's.
  const edge = new LoggingServer(() => new Response("bad gateway", { status: 502 }));
  const env = stage.jobEnv({ XMD_WORKFLOW_REMOTE: edge.url });
  const lost = await workflow(["start", `--issue=${NODE_ID}`, DOCUMENT], env);
  exit(lost, 75);
  assert.equal(
    lost.stderr,
    "xmd: Cannot connect to the remote host: it answered HTTP 502\n" +
      "Run the same command again: it continues from what the remote host committed\n",
  );
  assert.ok(edge.requests.length > 0);
  // Nothing listening there any more.
  await edge[Symbol.asyncDispose]();
  const gone = await workflow(["status", `--issue=${NODE_ID}`], env);
  exit(gone, 75);
  assert.match(
    gone.stderr,
    /^xmd: Cannot connect to the run's Durable Object: .*\nRun the same command again: it continues from what the remote host committed\n$/,
  );
});

Deno.test("RM-105: a runner SIGKILLed before, during and after a commit; the retried start continues to the uninterrupted run's journal and output", async () => {
  const expected = await localReference();
  await using stage = await RemoteStage.start();
  for (
    const point of ["create:sent", "workspace-effect:sent:2", "append:acked:2", "settle:after"]
  ) {
    const issue = `octo/app#${point.length}${point.charCodeAt(0)}`;
    const env = stage.jobEnv({ XMD_WORKFLOW_REMOTE: stage.remote });
    const args = [`--issue=${issue}`];
    const killed = await workflow(["start", ...args, DOCUMENT], { ...env, XMD_FAILPOINT: point });
    assert.equal(killed.signal, "SIGKILL", `${point}: ${killed.stderr}`);
    // What the example job does: start again (the run continues, WF-23) until it is not 75.
    const retried = await workflow(["start", ...args, DOCUMENT], env);
    // Killed before the suspension settled, the retry runs on to it; after, it asks again.
    exit(retried, 2);
    exit(await workflow(["answer", ...args, "go-5", ANSWER], env), 0);
    const resumed = await workflow(["resume", ...args], env);
    exit(resumed, 0);
    assert.equal(resumed.stdout, expected.resumed, point);
    assert.deepEqual(await historyEvents(env, args), expected.events, point);
  }
});

Deno.test("RM-106: two runners: while one holds the issue's run, another's start, resume and delete are refused busy and change nothing; once it is killed the next acquires at once", async () => {
  const expected = await localReference();
  await using stage = await RemoteStage.start();
  const env = stage.jobEnv({ XMD_WORKFLOW_REMOTE: stage.remote });
  const issue = ["--issue=octo/app#2"];
  const id = await testRunId("octo/app#2");
  const first = spawnWorkflow(["start", ...issue, DOCUMENT], {
    ...env,
    XMD_FAILPOINT: "workspace-effect:acked:2:stop",
  });
  // Frozen holding the run once its second effect (event 3) is acknowledged.
  while ((await historyEvents(env, issue).catch(() => [])).length < 3) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const before = await stage.dump(id);
  // The local host's words for the same state (RM-52).
  const busy =
    `xmd: Cannot run "${id}": it is already running in another process. Wait for it, or stop it with Ctrl-C\n`;
  for (const args of [["start", ...issue, DOCUMENT], ["resume", ...issue], ["delete", ...issue]]) {
    const outcome = await workflow(args, env);
    exit(outcome, 1);
    // As locally, start and resume name the run they address before they try to acquire it.
    assert.equal(outcome.stderr, (args[0] === "delete" ? "" : `workflow run: ${id}\n`) + busy);
  }
  assert.equal(await stage.dump(id), before);
  Deno.kill(first.pid, "SIGKILL");
  assert.equal((await first.output()).signal, "SIGKILL");
  exit(await workflow(["start", ...issue, DOCUMENT], env), 2);
  exit(await workflow(["answer", ...issue, "go", "--file=/dev/stdin"], env, { stdin: ANSWER }), 0);
  const resumed = await workflow(["resume", ...issue], env);
  exit(resumed, 0);
  assert.equal(resumed.stdout, expected.resumed);
  assert.deepEqual(await historyEvents(env, issue), expected.events);
});
