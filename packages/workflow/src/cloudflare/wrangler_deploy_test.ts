/**
 * The deployment as CI can check it without a Cloudflare account: the
 * Worker bundled as `deno task build:worker` bundles it, then `wrangler
 * deploy --dry-run` (the pinned wrangler, from dev.lock) over the
 * repository's own `wrangler.toml`, into a temporary folder; and the
 * bundle itself admits a connection in workerd.
 */
import assert from "node:assert/strict";
import { FakeGitHub, FakeOidcIssuer, issueReference } from "../deno/_test-github-fakes.ts";
import { call } from "../remote/_test-remote.ts";
import { AdmissionWorkerd, bundleWorker } from "./_test-admission-workerd.ts";

const PACKAGE = new URL("../../", import.meta.url);
const ROOT = new URL("../../", PACKAGE);
const WRANGLER = "npm:wrangler@4.116.0";

/** Deno's cache folder as this process uses it, so a subprocess with another HOME still finds packages. */
function denoDir(): string {
  return Deno.env.get("DENO_DIR") ?? JSON.parse(
    new TextDecoder().decode(
      new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).outputSync().stdout,
    ),
  ).denoDir;
}

Deno.test("RM-80: build:worker bundles src/cloudflare/worker.ts to wrangler.toml's main, and wrangler deploy --dry-run accepts it with RUNS, the SQLite migration and the vars", async () => {
  const toml = await Deno.readTextFile(new URL("wrangler.toml", PACKAGE));
  const main = /^main = "([^"]+)"$/m.exec(toml)?.[1];
  assert.equal(main, "dist/worker.js");
  assert.match(toml, /^compatibility_flags = \["nodejs_compat"\]$/m);
  assert.match(
    toml,
    /\[\[durable_objects\.bindings\]\]\nname = "RUNS"\nclass_name = "WorkflowRun"/,
  );
  assert.match(toml, /\[\[migrations\]\]\ntag = "v1"\nnew_sqlite_classes = \["WorkflowRun"\]/);
  const tasks = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))).tasks;
  assert.equal(
    tasks["build:worker"],
    `deno bundle --quiet --platform=browser --format=esm -o packages/workflow/${main} ` +
      "packages/workflow/src/cloudflare/worker.ts",
  );
  const dir = await Deno.makeTempDir({ prefix: "xmd-wrangler-" });
  try {
    // The repository's wrangler.toml beside the bundle, as build:worker leaves them.
    await Deno.writeTextFile(`${dir}/wrangler.toml`, toml);
    await Deno.mkdir(`${dir}/dist`);
    await Deno.mkdir(`${dir}/tmp`);
    await bundleWorker("src/cloudflare/worker.ts", `${dir}/${main}`);
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--lock=../../dev.lock",
        WRANGLER,
        "deploy",
        "--dry-run",
        "--config",
        `${dir}/wrangler.toml`,
        "--outdir",
        `${dir}/out`,
      ],
      // Inside the workspace, so dev.lock is read as the frozen lock it is.
      cwd: PACKAGE.pathname,
      env: {
        HOME: `${dir}/home`,
        XDG_CONFIG_HOME: `${dir}/home/.config`,
        // wrangler's update check writes into the temporary folder.
        TMPDIR: `${dir}/tmp`,
        DENO_DIR: denoDir(),
        CI: "1",
        WRANGLER_SEND_METRICS: "false",
        NO_COLOR: "1",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    assert.equal(code, 0, output);
    assert.match(output, /wrangler 4\.116\.0/);
    assert.match(output, /env\.RUNS \(WorkflowRun\)\s+Durable Object/);
    for (const key of ["XMD_GITHUB_HOST", "XMD_OIDC_AUDIENCE", "XMD_REPOSITORIES"]) {
      assert.match(output, new RegExp(`env\\.${key} `));
    }
    assert.doesNotMatch(output, /XMD_GITHUB_TOKEN/, "the secret is put, never a var");
    // no_bundle: what wrangler would upload is the Deno bundle, byte for byte.
    assert.deepEqual(
      await Deno.readFile(`${dir}/out/worker.js`),
      await Deno.readFile(`${dir}/${main}`),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RM-80: the production bundle (WorkflowRun, no test hook) admits an issue's connection in workerd and refuses without a token", async () => {
  await using oidc = await FakeOidcIssuer.start();
  await using github = await FakeGitHub.start();
  const repository = github.addRepository("octo/app");
  const issue = github.addIssue(repository);
  await using workerd = await AdmissionWorkerd.start({
    entry: "production",
    bindings: {
      XMD_GITHUB_HOST: "github.com",
      XMD_GITHUB_API_URL: github.url,
      XMD_OIDC_ISSUER: oidc.issuer,
      XMD_OIDC_JWKS_URL: oidc.jwksUrl,
      XMD_OIDC_AUDIENCE: "https://xmd.test",
      XMD_REPOSITORIES: "octo/app",
      XMD_GITHUB_TOKEN: github.token,
    },
  });
  const token = await oidc.mint({ repository, audience: "https://xmd.test" });
  const admitted = await workerd.connect({
    authorization: `Bearer ${token}`,
    "x-xmd-issue": issueReference(issue),
  });
  assert.equal(admitted.status, 101, admitted.body);
  const hello = await call(admitted.socket!.send, { type: "hello", role: "reader" });
  assert.equal(hello.frontier, null);
  await admitted.socket!.close();
  const refused = await workerd.connect({ "x-xmd-issue": issueReference(issue) });
  assert.equal(refused.status, 401);
  assert.equal(JSON.parse(refused.body).error.code, "token.missing");
  // The production bundle has no dump route: it is a route like any other.
  const dump = await workerd.fetch(new URL("/_test/dump?run=x", workerd.url));
  assert.equal(dump.status, 404);
  assert.equal(JSON.parse(await dump.text()).error.code, "route.not_found");
});

Deno.test("RM-80: dev.lock pins wrangler 4.116.0 with the one miniflare and the one workerd the tests run", async () => {
  const lock = JSON.parse(await Deno.readTextFile(new URL("dev.lock", ROOT))) as {
    specifiers: Record<string, string>;
    npm: Record<string, { dependencies?: string[] }>;
  };
  assert.equal(lock.specifiers["npm:wrangler@4.116.0"], "4.116.0");
  const versions = (name: string) =>
    Object.keys(lock.npm).filter((key) => key.startsWith(`${name}@`)).map((key) =>
      key.slice(name.length + 1)
    );
  assert.deepEqual(versions("workerd"), ["1.20260730.1"]);
  assert.deepEqual(versions("miniflare"), ["4.20260730.0"]);
  assert.ok(lock.npm["wrangler@4.116.0"].dependencies?.includes("miniflare"));
});
