import assert from "node:assert/strict";
import { FileSystemError } from "../engine/file-system-error.ts";
import type { ShellRequest } from "../engine/providers.ts";
import { HostShell, UnsupportedLanguageError } from "./host-shell.ts";

/** A temporary root directory, removed when the scope ends. */
async function tempRoot(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "xmd-host-shell-" });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true });
    },
  };
}

/** A request for `script` with recording callbacks. */
function request(script: string, overrides: Partial<ShellRequest> = {}) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const shellRequest: ShellRequest = {
    lang: "sh",
    script,
    cwd: ".",
    timeoutMs: 10_000,
    onStdout: (chunk) => stdout.push(chunk),
    onStderr: (chunk) => stderr.push(chunk),
    signal: new AbortController().signal,
    ...overrides,
  };
  return { request: shellRequest, stdout, stderr };
}

Deno.test("HostShell: runs a block and collects its output", async () => {
  await using root = await tempRoot();
  const shell = new HostShell(root.path);
  const run = request("echo out; echo err >&2");
  const result = await shell.run(run.request);
  assert.deepEqual(result, { exitCode: 0, stdout: "out\n", stderr: "err\n", timedOut: false });
  assert.equal(run.stdout.join(""), "out\n");
  assert.equal(run.stderr.join(""), "err\n");
});

Deno.test("HostShell: runs bash blocks with bash syntax", async () => {
  await using root = await tempRoot();
  const shell = new HostShell(root.path);
  const { request: bash } = request("words=(a b c); echo ${#words[@]}", { lang: "bash" });
  assert.equal((await shell.run(bash)).stdout, "3\n");
});

Deno.test("HostShell: reports a nonzero exit code as data", async () => {
  await using root = await tempRoot();
  const shell = new HostShell(root.path);
  const result = await shell.run(request("echo partial; exit 3").request);
  assert.deepEqual(result, { exitCode: 3, stdout: "partial\n", stderr: "", timedOut: false });
  const missing = await shell.run(request("no-such-command-xmd").request);
  assert.equal(missing.exitCode, 127);
  assert.match(missing.stderr, /no-such-command-xmd/);
});

Deno.test("HostShell: runs in the requested directory under the root", async () => {
  await using root = await tempRoot();
  await Deno.mkdir(`${root.path}/sub/dir`, { recursive: true });
  const shell = new HostShell(root.path);
  const result = await shell.run(request("pwd; echo made > here.txt", { cwd: "sub/dir" }).request);
  assert.equal(result.stdout, `${await Deno.realPath(`${root.path}/sub/dir`)}\n`);
  assert.equal(await Deno.readTextFile(`${root.path}/sub/dir/here.txt`), "made\n");
});

Deno.test("HostShell: adds its environment and gives the block no stdin", async () => {
  await using root = await tempRoot();
  const shell = new HostShell(root.path, { XMD_TEST_VALUE: "from env" });
  const result = await shell.run(request('echo "$XMD_TEST_VALUE"; echo "$HOME"; cat').request);
  assert.equal(result.stdout, `from env\n${Deno.env.get("HOME") ?? ""}\n`);
  assert.equal(result.exitCode, 0);
});

Deno.test("HostShell: streams output before the block ends", async () => {
  await using root = await tempRoot();
  const shell = new HostShell(root.path);
  let settled = false;
  let settledWhenFirstChunkArrived: boolean | undefined;
  const run = request("echo a; sleep 1; echo b", {
    onStdout: (chunk) => {
      settledWhenFirstChunkArrived ??= settled;
      run.stdout.push(chunk);
    },
  });
  const result = await shell.run(run.request).finally(() => settled = true);
  assert.equal(settledWhenFirstChunkArrived, false);
  assert.equal(run.stdout[0], "a\n");
  assert.equal(result.stdout, "a\nb\n");
});

Deno.test("HostShell: decodes a multi-byte character split across writes", async () => {
  await using root = await tempRoot();
  const shell = new HostShell(root.path);
  // "é" is C3 A9: the two bytes arrive in separate reads.
  const result = await shell.run(request("printf '\\303'; sleep 0.2; printf '\\251\\n'").request);
  assert.equal(result.stdout, "é\n");
});

Deno.test("HostShell: a timeout stops the block and everything it started", async () => {
  await using root = await tempRoot();
  const shell = new HostShell(root.path);
  const run = request("echo started; sleep 30 & sleep 30; echo never", { timeoutMs: 300 });
  // The background sleep holds stdout open: the run settles only if it was killed too.
  const result = await shell.run(run.request);
  assert.deepEqual(result, { exitCode: 124, stdout: "started\n", stderr: "", timedOut: true });
});

Deno.test("HostShell: a block ignoring SIGTERM is killed after the grace period", async () => {
  await using root = await tempRoot();
  const shell = new HostShell(root.path);
  const run = request("trap '' TERM; echo ready; sleep 30", { timeoutMs: 200 });
  const result = await shell.run(run.request);
  assert.equal(result.exitCode, 124);
  assert.equal(result.timedOut, true);
  assert.equal(result.stdout, "ready\n");
});

Deno.test("HostShell: aborting stops the block with exit code 130", async () => {
  await using root = await tempRoot();
  const shell = new HostShell(root.path);
  const controller = new AbortController();
  const run = request("echo started; sleep 30", {
    signal: controller.signal,
    onStdout: () => controller.abort(),
  });
  const result = await shell.run(run.request);
  assert.deepEqual(result, { exitCode: 130, stdout: "started\n", stderr: "", timedOut: false });
});

Deno.test("HostShell: an already aborted request runs nothing", async () => {
  await using root = await tempRoot();
  const shell = new HostShell(root.path);
  const run = request("touch ran", { signal: AbortSignal.abort() });
  const result = await shell.run(run.request);
  assert.deepEqual(result, { exitCode: 130, stdout: "", stderr: "", timedOut: false });
  await assert.rejects(Deno.stat(`${root.path}/ran`), Deno.errors.NotFound);
});

Deno.test("HostShell: refuses other languages before running anything", async () => {
  await using root = await tempRoot();
  const shell = new HostShell(root.path);
  await assert.rejects(shell.run(request("print(1)", { lang: "python" }).request), (error) => {
    assert.ok(error instanceof UnsupportedLanguageError);
    assert.equal(error.name, "UnsupportedLanguageError");
    assert.equal(error.lang, "python");
    assert.equal(error.message, 'Cannot run a "python" block: only sh and bash blocks run');
    return true;
  });
});

Deno.test("HostShell: refuses a missing or non-directory cwd", async () => {
  await using root = await tempRoot();
  await Deno.writeTextFile(`${root.path}/file`, "");
  const shell = new HostShell(root.path);
  await assert.rejects(shell.run(request("true", { cwd: "nope" }).request), (error) => {
    assert.ok(error instanceof FileSystemError);
    assert.equal(error.posix, "ENOENT");
    assert.equal(error.message, 'Cannot run a block in "nope": no such directory (ENOENT)');
    return true;
  });
  await assert.rejects(shell.run(request("true", { cwd: "file" }).request), (error) => {
    assert.ok(error instanceof FileSystemError);
    assert.equal(error.posix, "ENOTDIR");
    return true;
  });
});

Deno.test("MDX-43: a timed-out block whose child left its process group is reported at the timeout; the child's later output never appears", async () => {
  await using root = await tempRoot();
  const shell = new HostShell(root.path);
  // The child leaves the group (setsid), keeps the pipes open, and writes a marker 25 s later.
  const run = request(
    "echo started; setsid sh -c 'echo $$ > escaped.pid; sleep 25; echo late; echo late >&2' & sleep 30",
    { timeoutMs: 500 },
  );
  try {
    const result = await shell.run(run.request);
    assert.deepEqual(result, { exitCode: 124, stdout: "started\n", stderr: "", timedOut: true });
    assert.doesNotMatch(run.stdout.join("") + run.stderr.join(""), /late/);
  } finally {
    const pid = Number(await Deno.readTextFile(`${root.path}/escaped.pid`).catch(() => "0"));
    if (pid > 0) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // It has already exited.
      }
    }
  }
});
