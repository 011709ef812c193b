/**
 * `xmd workflow --remote` end to end: the real CLI as a subprocess with an
 * Actions job's environment, against the production admission Worker in
 * real workerd (miniflare), configured with the loopback OIDC issuer (the
 * CLI asks its token endpoint for each connection's token, the Worker
 * verifies it against its JWKS) and the loopback GitHub GraphQL API (the
 * Worker rereads every issue there); the local host for the reference run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { AdmissionWorkerd } from "../../../workflow/src/cloudflare/_test-admission-workerd.ts";
import { FakeOidcIssuer } from "../../../workflow/src/deno/_test-github-fakes.ts";
import { runXmd } from "./_run-xmd.ts";
import {
  issueReference,
  LoggingServer,
  type Outcome,
  RemoteStage,
  spawnWorkflow,
  TESTDATA,
  workflow,
} from "./_test-remote-cli.ts";

const DOCUMENT = "ok.workspace-effects.md";
const ANSWER = '{"ok":true}';

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

/** The text of every outcome: what no secret may appear in. */
function texts(outcomes: Outcome[]): string[] {
  return outcomes.flatMap(({ stdout, stderr }) => [stdout, stderr]);
}

async function historyEvents(env: Record<string, string>, issue: string[] = []) {
  const history = await workflow(["history", ...issue, "--json"], env);
  exit(history, 0);
  return eventsOf(JSON.parse(history.stdout));
}

Deno.test("RM-100 RM-101 RM-103 RM-109 WF-88 WF-89: every workflow command runs on the remote host XMD_WORKFLOW_REMOTE selects, on the run of the Actions event's issue as the admission Worker rereads it, with the local host's output, one connection per read or execution", async () => {
  const expected = await localReference();
  await using stage = await RemoteStage.start();
  const issue = stage.issue();
  const home = `${stage.dir}/home`;
  await Deno.mkdir(home);
  const env = stage.jobEnv({
    XMD_WORKFLOW_REMOTE: stage.remote,
    GITHUB_EVENT_PATH: await stage.event(issue.id),
    HOME: home,
  });
  const id = await stage.runId(issue);
  const outcomes: Outcome[] = [];
  // Each connection asks the token endpoint for one token: how many each command opened.
  const connections: [string, number][] = [];
  const run = async (args: string[], code: number, stdin?: string) => {
    const before = stage.oidc.tokenRequests.length;
    const outcome = await workflow(args, env, { stdin });
    exit(outcome, code);
    outcomes.push(outcome);
    connections.push([args.join(" "), stage.oidc.tokenRequests.length - before]);
    return outcome;
  };

  const started = await run(["start", DOCUMENT], 2);
  assert.equal(started.stdout, expected.started);
  assert.equal(
    started.stderr,
    `workflow run: ${id}\nworkflow status: suspended\nQuestion (go-5): Build again?\n` +
      `Answer schema: {"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}\n` +
      `Answer with: xmd workflow answer --issue=${issue.id} go-5 '<json>'\n`,
  );
  const status = await run(["status"], 0);
  assert.match(status.stdout, new RegExp(`^run +${id}\nstatus +suspended\n`));
  assert.match(
    status.stdout,
    new RegExp(`answer with: xmd workflow answer --issue=${issue.id} go-5`),
  );
  // The issue however named, its legacy node id or owner/repo#number, is the one run (RM-71).
  for (const name of [issue.legacyId, issueReference(issue)]) {
    const other = await run(["status", `--issue=${name}`, "--json"], 0);
    assert.equal(JSON.parse(other.stdout).id, id);
  }
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
      `\n\`\`\`\n\nAnswer with:\n\n\`\`\`sh\nxmd workflow answer --issue=${issue.id} go-5 '<json>'\n\`\`\`\n`,
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
    `answered go-5 of run ${id}; continue it with: xmd workflow resume --issue=${issue.id}\n`,
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
  assert.equal(await stage.dump(id), dump);
  assert.equal((await run(["delete"], 0)).stdout, `deleted run ${id}\n`);
  refused(
    await run(["status"], 1),
    `Cannot find run "${id}": no such remote run. Start it with xmd workflow start --issue=${issue.id} <document.md>`,
  );
  assert.equal((await run(["list"], 0)).stdout, "No workflow runs.\n");

  // The run id is learned on the command's first read, not on a connection of its own (RM-109):
  // a read is one connection, an execution (or a cancel, a delete) a read and an executor's.
  assert.deepEqual(connections, [
    [`start ${DOCUMENT}`, 2],
    ["status", 1],
    [`status --issue=${issue.legacyId} --json`, 1],
    [`status --issue=${issueReference(issue)} --json`, 1],
    ["status --format=markdown", 1],
    ["status --json", 1],
    ["list", 1],
    ["list --json", 1],
    ["answer go -", 2],
    ["resume", 2],
    ["diff 2 8", 1],
    ["export " + `${stage.dir}/out`, 1],
    [`start ${DOCUMENT}`, 1],
    // A cancel the run's status refuses is decided on the read: it acquires nothing.
    ["cancel", 1],
    ["delete", 2],
    ["status", 1],
    ["list", 1],
  ]);
  // Nothing was kept on this machine, and every token asked for the remote's origin.
  assert.deepEqual([...Deno.readDirSync(home)], []);
  assert.ok(stage.oidc.tokenRequests.length > outcomes.length);
  for (const audience of stage.oidc.tokenRequests) {
    assert.equal(audience, new URL(stage.remote).origin);
  }
  stage.assertNoSecret(...texts(outcomes));
});

Deno.test("RM-100 WF-88: --remote selects the remote host too; --issue names the run; a cancelled run says to delete it; local runs are untouched", async () => {
  await using stage = await RemoteStage.start();
  const runs = `${stage.dir}/runs`;
  const env = stage.jobEnv({ XMD_WORKFLOW_RUNS: runs });
  const opened = stage.issue();
  const issue = issueReference(opened);
  const id = await stage.runId(opened);
  const remote = [`--remote=${stage.remote}`, `--issue=${issue}`];
  const name = `--remote=${stage.remote}/ --issue=${issue}`;

  // A local run beside it, by the same commands without --remote.
  exit(await workflow(["start", "--id=mine", DOCUMENT], env), 2);
  const local = await Deno.readDir(runs)[Symbol.asyncIterator]().next();
  const localBefore = await Deno.readFile(join(runs, local.value!.name));
  const asked = stage.oidc.tokenRequests.length;

  const started = await workflow(["start", ...remote, DOCUMENT], env);
  exit(started, 2);
  assert.match(started.stderr, new RegExp(`^workflow run: ${id}\n`));
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
  assert.ok(stage.oidc.tokenRequests.length > asked, "the remote host was not asked");

  // The local host answers as before: its run, its files, and no token asked for.
  const before = stage.oidc.tokenRequests.length;
  const list = await workflow(["list"], env);
  exit(list, 0);
  assert.match(list.stdout, /^RUN .*\nmine +suspended /);
  assert.equal(list.stdout.split("\n").length, 3);
  assert.deepEqual(await Deno.readFile(join(runs, local.value!.name)), localBefore);
  assert.equal(stage.oidc.tokenRequests.length, before);
});

Deno.test("RM-102: bad input is one xmd: line, exit 1, and contacts neither the remote host nor the token service", async () => {
  await using oidc = await FakeOidcIssuer.start();
  await using remote = new LoggingServer(() => new Response("no", { status: 500 }));
  const dir = await Deno.makeTempDir({ prefix: "xmd-remote-input-" });
  try {
    const event = `${dir}/event.json`;
    await Deno.writeTextFile(event, JSON.stringify({ issue: { node_id: "I_kwDOABCDEF5Abc" } }));
    const dispatch = `${dir}/dispatch.json`;
    await Deno.writeTextFile(dispatch, JSON.stringify({ inputs: { answer: "x" } }));
    const job = {
      ...oidc.actionsEnv({ nameWithOwner: "octo/app", databaseId: 1 }),
      XMD_WORKFLOW_REMOTE: remote.url,
    };
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
        { ACTIONS_ID_TOKEN_REQUEST_TOKEN: job.ACTIONS_ID_TOKEN_REQUEST_TOKEN },
        "Option --issue names a remote run: select the remote host with --remote=<url> or XMD_WORKFLOW_REMOTE",
      ],
    ];
    const outcomes = await Promise.all(cases.map(([args, env]) => workflow(args, env)));
    outcomes.forEach((outcome, index) => refused(outcome, cases[index][2]));
    assert.deepEqual(remote.requests, [], "the remote host was contacted");
    assert.deepEqual(oidc.tokenRequests, [], "the token service was contacted");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RM-103 RM-104 RM-110: an admission the Worker refuses (the token, its repository, the issue, a transfer, its configuration) prints the Worker's message and exits 1 for every command, GitHub down exits 75 to run again, and nothing changes; no token, credential or endpoint is ever printed or logged", async () => {
  await using stage = await RemoteStage.start();
  const issue = stage.issue();
  const id = await stage.runId(issue);
  const base = {
    XMD_WORKFLOW_REMOTE: stage.remote,
    GITHUB_EVENT_PATH: await stage.event(issue.id),
  };
  exit(await workflow(["start", DOCUMENT], stage.jobEnv(base)), 2);
  const before = await stage.dump(id);
  const outcomes: Outcome[] = [];
  const refusedFor = async (
    commands: string[][],
    env: Record<string, string>,
    message: string,
  ) => {
    for (const args of commands) {
      const outcome = await workflow(args, env);
      refused(outcome, message);
      outcomes.push(outcome);
    }
  };
  const every = [["start", DOCUMENT], ["status"], ["answer", "go", ANSWER], ["resume"], [
    "delete",
  ]];
  const some = [["start", DOCUMENT], ["status"]];

  await refusedFor(
    every,
    stage.jobEnv(base, { mint: { expiresIn: -120 } }),
    "The token has expired",
  );
  await refusedFor(
    some,
    stage.jobEnv(base, { mint: { foreignKey: true } }),
    "The token is not signed by a key of the issuer",
  );
  await refusedFor(
    some,
    stage.jobEnv(base, { mint: { issuer: "https://token.actions.example" } }),
    "The token comes from another issuer",
  );
  await refusedFor(
    some,
    stage.jobEnv({ ...base, XMD_WORKFLOW_REMOTE_AUDIENCE: "https://xmd.example" }),
    "The token is for another audience than this host's",
  );
  await refusedFor(
    some,
    stage.jobEnv(base, { repository: stage.stranger }),
    "The token's repository is not allowed on this host (XMD_REPOSITORIES)",
  );
  await refusedFor(
    some,
    stage.jobEnv(base, { repository: stage.other }),
    "The issue is not in the repository the token was issued for",
  );
  await refusedFor(
    [["status", "--issue=octo/app#99"]],
    stage.jobEnv({ XMD_WORKFLOW_REMOTE: stage.remote }),
    "GitHub knows no such issue",
  );
  // GitHub failing is the Worker's refusal too, but one to run again (RM-104): exit 75, as a lost
  // connection, which the example job retries.
  stage.github.failWith(502);
  for (const args of some) {
    const outcome = await workflow(args, stage.jobEnv(base));
    exit(outcome, 75);
    assert.equal(outcome.stdout, "");
    assert.equal(
      outcome.stderr,
      "xmd: GitHub cannot be asked about the issue now; try again later\n" +
        "Run the same command again: it continues from what the remote host committed\n",
    );
    outcomes.push(outcome);
  }
  stage.github.failWith(undefined);
  // Transferred to octo/other: a job there is admitted by the Worker, and refused by the run,
  // which was admitted in octo/app; a job in octo/app no longer holds the issue.
  stage.github.transfer(issue, stage.other);
  await refusedFor(
    every,
    stage.jobEnv(base, { repository: stage.other }),
    "Cannot open this run's Durable Object: its issue was admitted in another repository and transferred since",
  );
  await refusedFor(
    some,
    stage.jobEnv(base),
    "The issue is not in the repository the token was issued for",
  );
  // A deployment missing a configuration key refuses every request, whatever the job (RM-75);
  // its log names the key, never a value.
  const { XMD_REPOSITORIES: _, ...partial } = stage.config;
  await using unconfigured = await AdmissionWorkerd.start({ bindings: partial });
  await refusedFor(
    some,
    stage.jobEnv({
      ...base,
      XMD_WORKFLOW_REMOTE: unconfigured.url.origin,
      XMD_WORKFLOW_REMOTE_AUDIENCE: stage.config.XMD_OIDC_AUDIENCE,
    }),
    "The remote host is not configured",
  );
  assert.match(unconfigured.logs, /not configured: XMD_REPOSITORIES missing or malformed/);
  assert.equal(await stage.dump(id), before);
  stage.assertNoSecret(...texts(outcomes), unconfigured.logs);
});

Deno.test("RM-104: a remote host that cannot be reached exits 75 and says to run the command again", async () => {
  await using oidc = await FakeOidcIssuer.start();
  // An edge without the Worker behind it: the upgrade is answered 502, with no refusal of the Worker's.
  const edge = new LoggingServer(() => new Response("bad gateway", { status: 502 }));
  const env = {
    ...oidc.actionsEnv({ nameWithOwner: "octo/app", databaseId: 1 }),
    XMD_WORKFLOW_REMOTE: edge.url,
  };
  const lost = await workflow(["start", "--issue=octo/app#1", DOCUMENT], env);
  exit(lost, 75);
  assert.equal(
    lost.stderr,
    "xmd: Cannot connect to the remote host: it answered HTTP 502\n" +
      "Run the same command again: it continues from what the remote host committed\n",
  );
  assert.ok(edge.requests.length > 0);
  // Nothing listening there any more.
  await edge[Symbol.asyncDispose]();
  const gone = await workflow(["status", "--issue=octo/app#1"], env);
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
    const args = [`--issue=${issueReference(stage.issue())}`];
    const env = stage.jobEnv({ XMD_WORKFLOW_REMOTE: stage.remote });
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
  const issue = stage.issue();
  const id = await stage.runId(issue);
  const args = [`--issue=${issueReference(issue)}`];
  const first = spawnWorkflow(["start", ...args, DOCUMENT], {
    ...env,
    XMD_FAILPOINT: "workspace-effect:acked:2:stop",
  });
  // Frozen holding the run once its second effect (event 3) is acknowledged.
  while ((await historyEvents(env, args).catch(() => [])).length < 3) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const before = await stage.dump(id);
  // The local host's words for the same state (RM-52).
  const busy =
    `xmd: Cannot run "${id}": it is already running in another process. Wait for it, or stop it with Ctrl-C\n`;
  for (const command of [["start", ...args, DOCUMENT], ["resume", ...args], ["delete", ...args]]) {
    const outcome = await workflow(command, env);
    exit(outcome, 1);
    // As locally, start and resume name the run they address before they try to acquire it.
    assert.equal(outcome.stderr, (command[0] === "delete" ? "" : `workflow run: ${id}\n`) + busy);
  }
  assert.equal(await stage.dump(id), before);
  Deno.kill(first.pid, "SIGKILL");
  assert.equal((await first.output()).signal, "SIGKILL");
  exit(await workflow(["start", ...args, DOCUMENT], env), 2);
  exit(await workflow(["answer", ...args, "go", "--file=/dev/stdin"], env, { stdin: ANSWER }), 0);
  const resumed = await workflow(["resume", ...args], env);
  exit(resumed, 0);
  assert.equal(resumed.stdout, expected.resumed);
  assert.deepEqual(await historyEvents(env, args), expected.events);
});
