import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { FileSystemError } from "@xmd/core";
import { Workspace } from "../workspace/workspace.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";
import { WorkerShell, WorkerShellError } from "./worker-shell.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function workspace(): Workspace {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  seam.transaction(() => Workspace.initialize(seam));
  return new Workspace(seam);
}

function request(script: string, overrides: Partial<Parameters<WorkerShell["run"]>[0]> = {}) {
  const out = { stdout: "", stderr: "", stdoutCalls: 0 };
  return {
    out,
    request: {
      lang: "sh",
      script,
      cwd: ".",
      timeoutMs: 30_000,
      onStdout: (chunk: string) => {
        out.stdout += chunk;
        out.stdoutCalls++;
      },
      onStderr: (chunk: string) => out.stderr += chunk,
      signal: new AbortController().signal,
      ...overrides,
    },
  };
}

/** What a user sees of `script` run in `shell`: its status and its two streams. */
async function outcome(shell: WorkerShell, script: string) {
  const { exitCode, stdout, stderr } = await shell.run(request(script).request);
  return { exitCode, stdout, stderr };
}

/** Every path in the Workspace with its content (files) or kind, sorted. */
function snapshot(ws: Workspace, dir = "/"): string[] {
  const rows: string[] = [];
  for (const name of ws.readdir(dir)) {
    const path = dir === "/" ? `/${name}` : `${dir}/${name}`;
    const stat = ws.lstat(path);
    if (stat.kind === "dir") rows.push(`${path}/`, ...snapshot(ws, path));
    else if (stat.kind === "symlink") rows.push(`${path} -> ${ws.readlink(path)}`);
    else rows.push(`${path} = ${JSON.stringify(decoder.decode(ws.readFile(path)))}`);
  }
  return rows;
}

Deno.test("worker shell: runs a block against the Workspace", async () => {
  const ws = workspace();
  ws.writeFile("/in.txt", encoder.encode("b\na\n"));
  using shell = new WorkerShell(ws);
  const { request: req, out } = request(
    "mkdir -p out && sort in.txt > out/sorted.txt && ls out && cat out/sorted.txt && echo x > f",
  );
  const result = await shell.run(req);
  assert.equal(result.stderr, "");
  assert.equal(result.exitCode, 0);
  assert.equal(result.stdout, "sorted.txt\na\nb\n");
  assert.equal(out.stdout, "sorted.txt\na\nb\n");
  assert.equal(decoder.decode(ws.readFile("/out/sorted.txt")), "a\nb\n");
  assert.equal(decoder.decode(ws.readFile("/f")), "x\n");
});

Deno.test("worker shell: a CPU-bound script is stopped by its timeout and the next block runs", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const result = await shell.run(request("while true; do :; done", { timeoutMs: 1500 }).request);
  assert.equal(result.exitCode, 124);
  assert.equal(result.timedOut, true);
  const next = await shell.run(request("echo after").request);
  assert.equal(next.stdout, "after\n");
});

Deno.test("worker shell: a timeout beyond setTimeout's range does not fire at once", async () => {
  using shell = new WorkerShell(workspace());
  const result = await shell.run(request("echo ok", { timeoutMs: 2 ** 40 }).request);
  assert.deepEqual(result, { exitCode: 0, stdout: "ok\n", stderr: "", timedOut: false });
});

Deno.test("worker shell: output streams while the block runs", async () => {
  using shell = new WorkerShell(workspace());
  // Started first, so the limit below is the block's alone, however loaded the machine.
  assert.equal((await shell.run(request("true").request)).exitCode, 0);
  const controller = new AbortController();
  const seen: string[] = [];
  // The block never ends by itself: only output that arrives while it runs
  // can cancel it (were output held until the end, it would time out: 124).
  const result = await shell.run({
    ...request("echo started; while true; do :; done").request,
    timeoutMs: 60_000,
    signal: controller.signal,
    onStdout: (chunk) => {
      seen.push(chunk);
      if (chunk === "started\n") controller.abort();
    },
  });
  assert.deepEqual(seen, ["started\n"]);
  assert.deepEqual(result, { exitCode: 130, stdout: "started\n", stderr: "", timedOut: false });
});

Deno.test("worker shell: each statement and each top-level loop iteration streams on its own", async () => {
  using shell = new WorkerShell(workspace());
  const chunks: string[] = [];
  const result = await shell.run({
    ...request(
      "echo first; echo oops >&2\nfor i in 1 2; do echo a$i; echo b$i; done\n" +
        "for i in 1; do for j in x y; do echo $j; done; done\necho x | tr x y",
    ).request,
    onStdout: (chunk) => chunks.push(chunk),
  });
  // A loop streams once per iteration, a nested loop too.
  assert.deepEqual(chunks, ["first\n", "a1\nb1\n", "a2\nb2\n", "x\n", "y\n", "y\n"]);
  assert.equal(result.stdout, "first\na1\nb1\na2\nb2\nx\ny\ny\n");
  assert.equal(result.stderr, "oops\n");
});

Deno.test("worker shell: a condition's output streams before the body it chooses", async () => {
  using shell = new WorkerShell(workspace());
  const { request: req, out } = request(
    "f() { echo in-f; }\nif f; then echo then; fi\n" +
      "i=0; while echo w$i; [ $i -lt 1 ]; do i=$((i+1)); echo body$i; done\n" +
      "until echo u; true; do :; done",
  );
  const result = await shell.run(req);
  // What reached the terminal, in the order it was written, as bash writes it.
  assert.equal(out.stdout, "in-f\nthen\nw0\nbody1\nw1\nu\n");
  assert.equal(result.stdout, out.stdout);
});

Deno.test("worker shell: a block stopped by its timeout keeps the output it streamed", async () => {
  using shell = new WorkerShell(workspace());
  // The interpreter starts first, so the block's time limit measures the block alone (a loaded
  // machine can take longer than the limit to start a process).
  assert.equal((await shell.run(request("true").request)).exitCode, 0);
  const { request: req, out } = request("echo before; while true; do :; done", { timeoutMs: 1500 });
  const result = await shell.run(req);
  assert.deepEqual(result, { exitCode: 124, stdout: "before\n", stderr: "", timedOut: true });
  assert.equal(out.stdout, "before\n");
});

Deno.test("worker shell: streamed output keeps UTF-8 text whole, on stdout and stderr", async () => {
  const ws = workspace();
  ws.writeFile("/f", encoder.encode("é✓\n"));
  using shell = new WorkerShell(ws);
  const { request: req, out } = request("cat f >&2; printf 'café'; cat f; echo ✓ >&2");
  const result = await shell.run(req);
  assert.equal(out.stdout, "caféé✓\n");
  assert.equal(out.stderr, "é✓\n✓\n");
  assert.equal(result.stdout, out.stdout);
  assert.equal(result.stderr, out.stderr);
});

Deno.test("worker shell: bytes survive cat, redirections, gzip and tar unchanged", async () => {
  const ws = workspace();
  const binary = Uint8Array.from({ length: 256 }, (_, i) => i);
  ws.writeFile("/bin.dat", binary);
  ws.writeFile("/text.txt", encoder.encode("héllo wörld ✓\n"));
  using shell = new WorkerShell(ws);
  const result = await shell.run(
    request(
      "cat bin.dat bin.dat > twice.dat && cat text.txt > copy.txt && cat < text.txt >> copy.txt && " +
        "gzip -c text.txt > t.gz && gunzip -c t.gz > round.txt && " +
        "mkdir pack && cp bin.dat pack/ && tar czf pack.tgz pack && rm -r pack && tar xzf pack.tgz && " +
        "sed 's/wörld/welt/' text.txt > sed.txt && wc -c < twice.dat",
    ).request,
  );
  assert.equal(result.stderr, "");
  assert.equal(result.stdout, "512\n");
  assert.deepEqual(ws.readFile("/twice.dat"), new Uint8Array([...binary, ...binary]));
  assert.equal(decoder.decode(ws.readFile("/copy.txt")), "héllo wörld ✓\n".repeat(2));
  assert.equal(decoder.decode(ws.readFile("/round.txt")), "héllo wörld ✓\n");
  assert.deepEqual(ws.readFile("/pack/bin.dat"), binary);
  assert.equal(decoder.decode(ws.readFile("/sed.txt")), "héllo welt ✓\n");
});

Deno.test("worker shell: /dev/null swallows output and never enters the Workspace", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const result = await shell.run(
    request(
      "echo hidden > /dev/null; ls missing 2>/dev/null; echo $?; cat /dev/null; wc -c < /dev/null",
    )
      .request,
  );
  assert.deepEqual(
    { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr },
    { exitCode: 0, stdout: "2\n0\n", stderr: "" },
  );
  assert.deepEqual(snapshot(ws), []);
});

Deno.test("worker shell: a redirection into a missing directory fails the command, as in bash", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const result = await shell.run(request("echo a > nowhere/f").request);
  assert.equal(result.exitCode, 1);
  assert.equal(result.stderr, "bash: /nowhere/f: No such file or directory\n");
  assert.deepEqual(snapshot(ws), []);
  const going = await shell.run(request("echo a > nowhere/f; echo status $?").request);
  assert.deepEqual([going.exitCode, going.stdout], [0, "status 1\n"]);
  const next = await shell.run(request("echo fine").request);
  assert.equal(next.stdout, "fine\n");
});

Deno.test("worker shell: split, cp onto itself and -ef see Workspace file identities", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const result = await shell.run(
    request("mkdir d && seq 1 3 > n && split -l 1 n d/part && ls d && [ n -ef n ] && echo same")
      .request,
  );
  assert.equal(result.stderr, "");
  assert.equal(result.stdout, "partaa\npartab\npartac\nsame\n");
  assert.equal(decoder.decode(ws.readFile("/d/partab")), "2\n");
});

Deno.test("worker shell: a missing or non-directory cwd is refused before anything runs", async () => {
  const ws = workspace();
  ws.writeFile("/file", encoder.encode("x"));
  using shell = new WorkerShell(ws);
  await assert.rejects(
    shell.run(request("echo ran > /ran", { cwd: "missing" }).request),
    (error) =>
      error instanceof FileSystemError && error.posix === "ENOENT" &&
      error.message === 'Cannot run a block in "missing": no such Workspace directory (ENOENT)',
  );
  await assert.rejects(
    shell.run(request("echo ran > /ran", { cwd: "file" }).request),
    (error) => error instanceof FileSystemError && error.posix === "ENOTDIR",
  );
  assert.deepEqual(snapshot(ws), ['/file = "x"']);
});

Deno.test("worker shell: cancellation stops the block; an already aborted one never starts", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const aborted = new AbortController();
  aborted.abort();
  const never = await shell.run(request("echo ran > ran", { signal: aborted.signal }).request);
  assert.deepEqual(never, { exitCode: 130, stdout: "", stderr: "", timedOut: false });
  const controller = new AbortController();
  const running = shell.run(request("sleep 30", { signal: controller.signal }).request);
  controller.abort();
  assert.deepEqual(await running, { exitCode: 130, stdout: "", stderr: "", timedOut: false });
  assert.deepEqual(snapshot(ws), []);
  assert.equal((await shell.run(request("echo next").request)).stdout, "next\n");
});

Deno.test("worker shell: a Workspace storage failure stops the block instead of reaching the script", async () => {
  const ws = workspace();
  ws.writeFile("/f", encoder.encode("data"));
  const ino = ws.stat("/f").ino;
  ws.sql.exec("DELETE FROM ws_inode WHERE ino = ?", ino);
  using shell = new WorkerShell(ws);
  // Were the failure a POSIX error, `|| true` would swallow it and the block would exit 0.
  await assert.rejects(
    shell.run(request("cat f || true; echo swallowed > after").request),
    (error) =>
      error instanceof Error && !(error instanceof WorkerShellError) &&
      !(error instanceof FileSystemError) && /inode \d+ is missing/.test(error.message),
  );
  assert.equal(ws.exists("/after"), false);
  assert.equal((await shell.run(request("echo fresh").request)).stdout, "fresh\n");
});

Deno.test("worker shell: only sh and bash blocks run", async () => {
  using shell = new WorkerShell(workspace());
  await assert.rejects(
    shell.run(request("print(1)", { lang: "python" }).request),
    (error) => error instanceof WorkerShellError && /"python" block/.test(error.message),
  );
});

Deno.test("WF-191: the interpreter's warm-up leaves nothing a block sees: the first block, sent before it ends, and the next see the same fresh shell over their Workspace", async () => {
  const ws = workspace();
  ws.writeFile("/in.txt", encoder.encode("x\n"));
  using shell = new WorkerShell(ws);
  // Sent at once: the process is still loading just-bash, so this block waits for the warm-up.
  const script = 'echo "warm=${warm-unset}"; pwd; ls /; echo "$((6 * 7))"; env | sort';
  const first = request(script);
  const firstResult = await shell.run(first.request);
  const second = request(script);
  const secondResult = await shell.run(second.request);
  assert.equal(firstResult.exitCode, 0, firstResult.stderr);
  assert.equal(firstResult.stderr, "");
  assert.match(firstResult.stdout, /^warm=unset\n\/\nin\.txt\n42\n/);
  // Only the block's own output reached the host, and the second block saw what the first did.
  assert.equal(first.out.stdout, firstResult.stdout);
  assert.equal(secondResult.stdout, firstResult.stdout);
  assert.deepEqual(snapshot(ws), ['/in.txt = "x\\n"']);
});

Deno.test("WS-115: a block is bounded by its time and heap, not by counts: awk over 150,000 lines, long loops and a million-element list run as in bash; an endless sed or jq program ends at its step bound", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const cases: [string, string][] = [
    // just-bash's own limits refuse each of these (100,000 awk records or loop iterations, a
    // million jq results or sequence numbers).
    ["seq 1 150000 > lines.txt && awk '{ s += $1 } END { print s }' lines.txt", "11250075000\n"],
    ["awk 'BEGIN { for (i = 0; i < 200000; i++) s += i; print s }'", "19999900000\n"],
    ["jq -n '[range(0; 1100000)] | length'", "1100000\n"],
    ["seq 1 1100000 | tail -n 1", "1100000\n"],
  ];
  for (const [script, stdout] of cases) {
    const { request: req } = request(script);
    const result = await shell.run(req);
    assert.equal(result.stderr, "", script);
    assert.deepEqual([result.exitCode, result.stdout], [0, stdout], script);
  }
  // The file the first block wrote is there, whole.
  assert.equal(decoder.decode(ws.readFile("/lines.txt")).split("\n").length, 150_001);
  // An endless sed or jq program still ends by itself, at 50,000,000 steps (awk's takes longer).
  for (
    const [script, message] of [
      [
        "echo a | sed ':a; ba'",
        "sed: sed: command execution exceeded maximum iterations (50000000)\n",
      ],
      ["jq -n '0 | until(. < 0; . + 1)'", "jq: query evaluation: too many iterations (50000000)\n"],
    ]
  ) {
    const { request: req } = request(script);
    const result = await shell.run(req);
    assert.deepEqual([result.exitCode, result.stderr], [126, message], script);
  }
});

Deno.test("WS-118: xargs reads its input as GNU xargs does: -I and -L take whole lines, quotes keep blanks, joined option values, its exit statuses", async () => {
  const ws = workspace();
  ws.writeFile("/x y", encoder.encode("1"));
  ws.writeFile("/z", encoder.encode("2"));
  ws.writeFile("/list", encoder.encode("f1\nf 2\n"));
  using shell = new WorkerShell(ws);
  const run = (script: string) => outcome(shell, script);
  const ok = (stdout: string) => ({ exitCode: 0, stdout, stderr: "" });
  // just-bash's own xargs refused `-I{}` and `-n1` ("invalid option"), split -I's input on
  // blanks, read no quotes, had no -L, -a or -E, and exited with the last command's status.
  assert.deepEqual(
    await run(`printf '  a b \\nc\\n\\n' | xargs -I{} echo "[{}]"`),
    ok("[a b ]\n[c]\n"),
  );
  assert.deepEqual(
    await run(`printf '"a b" c\\\\ d e\\n' | xargs -n1 echo`),
    ok("a b\nc d\ne\n"),
  );
  assert.deepEqual(await run("printf 'a b \\nc\\nd\\n' | xargs -L1 echo"), ok("a b c\nd\n"));
  assert.deepEqual(await run("printf 'a\\nSTOP\\nb\\n' | xargs -E STOP echo"), ok("a\n"));
  assert.deepEqual(await run("xargs -a list -i echo '<{}>'"), ok("<f1>\n<f 2>\n"));
  assert.deepEqual(
    await run("printf 'a\\0\\0b\\0' | xargs -0 -n1 echo '['"),
    ok("[ a\n[ \n[ b\n"),
  );
  // The commands see xargs's environment (just-bash's own gave them none).
  assert.deepEqual(
    await run("export Y=2; Z=3; echo a | X=1 xargs sh -c 'echo $X $Y $Z.'"),
    ok("1 2 .\n"),
  );
  // With no input the command runs once, unless -r; a long input runs it more than once.
  assert.deepEqual(
    await run("printf '' | xargs echo hi; printf '' | xargs -r echo no"),
    ok("hi\n"),
  );
  assert.deepEqual(await run("seq 1 30000 | xargs echo | wc -l"), ok("2\n"));
  // A command that fails makes the status 123; one that exits 255 stops xargs (124).
  assert.deepEqual(await run("echo x | xargs false; echo $?"), ok("123\n"));
  assert.deepEqual(
    await run("printf 'a\\nb\\n' | xargs -n1 sh -c 'echo run $0; exit 255'; echo $?"),
    {
      exitCode: 0,
      stdout: "run a\n124\n",
      stderr: "xargs: sh: exited with status 255; aborting\n",
    },
  );
  // An unmatched quote is an error and runs nothing.
  assert.deepEqual(await run(`printf "it's\\n" | xargs echo ran; echo $?`), {
    exitCode: 0,
    stdout: "1\n",
    stderr:
      "xargs: unmatched single quote; by default quotes are special to xargs unless you use the -0 option\n",
  });
  // A name with a blank stays one name, in the Workspace too.
  assert.deepEqual(
    await run("ls x* z | xargs -I{} mv {} {}.bak && ls"),
    ok("list\nx y.bak\nz.bak\n"),
  );
  assert.deepEqual(snapshot(ws), ['/list = "f1\\nf 2\\n"', '/x y.bak = "1"', '/z.bak = "2"']);
});

Deno.test("WS-119: realpath prints a path as the Workspace resolves it, as GNU realpath does", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const run = (script: string) => outcome(shell, script);
  await run("mkdir -p w/a/b && touch w/a/b/f && ln -s a/b w/l && ln -s nowhere w/dl");
  // just-bash has no realpath: "bash: realpath: command not found", status 127.
  assert.deepEqual(await run("cd w && realpath a/b/f l l/f ."), {
    exitCode: 0,
    stdout: "/w/a/b/f\n/w/a/b\n/w/a/b/f\n/w\n",
    stderr: "",
  });
  // The last component may be missing (a dangling link resolves to its target); -e wants it,
  // -m wants nothing, -s resolves no link.
  assert.deepEqual(await run("cd w && realpath dl new && realpath -m x/y/z && realpath -s l"), {
    exitCode: 0,
    stdout: "/w/nowhere\n/w/new\n/w/x/y/z\n/w/l\n",
    stderr: "",
  });
  assert.deepEqual(await run("cd w && realpath -e dl a; echo $?"), {
    exitCode: 0,
    stdout: "/w/a\n1\n",
    stderr: "realpath: dl: No such file or directory\n",
  });
  assert.deepEqual(await run("cd w && realpath x/y; echo $?"), {
    exitCode: 0,
    stdout: "1\n",
    stderr: "realpath: x/y: No such file or directory\n",
  });
  assert.deepEqual(await run("cd w && realpath --relative-to=a/b a l/f"), {
    exitCode: 0,
    stdout: "..\nf\n",
    stderr: "",
  });
  // Nothing was written.
  assert.deepEqual(snapshot(ws), [
    "/w/",
    "/w/a/",
    "/w/a/b/",
    '/w/a/b/f = ""',
    "/w/dl -> nowhere",
    "/w/l -> a/b",
  ]);
});

Deno.test("WS-120: cp -a copies a tree as it is (links as links, modes kept), as GNU cp does", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const { request: req } = request(
    "mkdir -p a/b && echo x > a/b/f && ln -s f a/b/l && chmod 700 a/b && cp -a a c && " +
      "cp --archive a/b/l m && readlink c/b/l m && stat -c '%a' c/b",
  );
  const { exitCode, stdout, stderr } = await shell.run(req);
  // just-bash's own cp refused it: "cp: invalid option -- 'a'".
  assert.deepEqual({ exitCode, stdout, stderr }, {
    exitCode: 0,
    stdout: "f\nf\n700\n",
    stderr: "",
  });
  assert.deepEqual(snapshot(ws), [
    "/a/",
    "/a/b/",
    '/a/b/f = "x\\n"',
    "/a/b/l -> f",
    "/c/",
    "/c/b/",
    '/c/b/f = "x\\n"',
    "/c/b/l -> f",
    "/m -> f",
  ]);
});

Deno.test("WS-121: head -n -N and -c -N print all but the last N lines or bytes, as GNU head does", async () => {
  const ws = workspace();
  ws.writeFile("/a", encoder.encode("1\n2\n3"));
  ws.writeFile("/b", encoder.encode("x\ny\n"));
  using shell = new WorkerShell(ws);
  const run = (script: string) => outcome(shell, script);
  // just-bash's own head refused them: "head: invalid number of lines".
  assert.deepEqual(await run("printf '1\\n2\\n3\\n' | head -n -1"), {
    exitCode: 0,
    stdout: "1\n2\n",
    stderr: "",
  });
  assert.deepEqual(await run("head -n-1 a b; printf 'abcdef' | head -c -2"), {
    exitCode: 0,
    stdout: "==> a <==\n1\n2\n\n==> b <==\nx\nabcd",
    stderr: "",
  });
  assert.deepEqual(await run("head -n -1 nope; echo $?"), {
    exitCode: 0,
    stdout: "1\n",
    stderr: "head: cannot open 'nope' for reading: No such file or directory\n",
  });
  // Any other head is just-bash's.
  assert.deepEqual(await run("head -n 1 a"), { exitCode: 0, stdout: "1\n", stderr: "" });
});

Deno.test("WS-122: sed -i SUFFIX keeps each original under its backup name, as GNU sed does", async () => {
  const ws = workspace();
  ws.writeFile("/f", encoder.encode("a\n"));
  ws.writeFile("/g", encoder.encode("x\n"));
  using shell = new WorkerShell(ws);
  const run = (script: string) => outcome(shell, script);
  // just-bash's own sed edited in place and wrote no backup, so the rm failed.
  assert.deepEqual(
    await run("sed -i.bak -e 's/a/b/' -e 's/x/y/' f g && rm f.bak && cat f g g.bak"),
    { exitCode: 0, stdout: "b\ny\nx\n", stderr: "" },
  );
  assert.deepEqual(await run("sed --in-place=.orig 's/b/c/' f && cat f.orig f"), {
    exitCode: 0,
    stdout: "b\nc\n",
    stderr: "",
  });
  // Without a suffix there is no backup.
  assert.deepEqual(await run("sed -i 's/c/d/' f && ls"), {
    exitCode: 0,
    stdout: "f\nf.orig\ng\ng.bak\n",
    stderr: "",
  });
  assert.deepEqual(snapshot(ws), [
    '/f = "d\\n"',
    '/f.orig = "b\\n"',
    '/g = "y\\n"',
    '/g.bak = "x\\n"',
  ]);
});

Deno.test("WS-123: trap EXIT runs its handler when the block ends, with the shell's state then, as bash does", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const run = (script: string) => outcome(shell, script);
  // Without WS-123, `trap` is "command not found" and set -e ends the block there (127).
  assert.deepEqual(
    await run(
      "set -e; tmp=work; trap 'echo \"cleanup $tmp $?\"; rm -f marker' EXIT; touch marker; false; echo no",
    ),
    { exitCode: 1, stdout: "cleanup work 1\n", stderr: "" },
  );
  assert.deepEqual(snapshot(ws), []);
  // `exit` in a function: the variables, folder and functions of that moment.
  assert.deepEqual(
    await run(
      'cleanup() { echo "bye $x $(pwd)"; }; trap cleanup EXIT; x=1; mkdir -p d; f() { x=2; cd d; exit 6; }; f',
    ),
    { exitCode: 6, stdout: "bye 2 /d\n", stderr: "" },
  );
  // The handler keeps the block's status unless it exits, or fails under set -e.
  assert.deepEqual(await run("trap 'echo rc=$?; false' EXIT; exit 5"), {
    exitCode: 5,
    stdout: "rc=5\n",
    stderr: "",
  });
  assert.deepEqual(await run("trap 'exit 3' EXIT; true"), { exitCode: 3, stdout: "", stderr: "" });
  assert.deepEqual(await run("set -e; trap 'echo a; false; echo b' EXIT; exit 4"), {
    exitCode: 1,
    stdout: "a\n",
    stderr: "",
  });
  // A subshell's exit ends only the subshell; a reset trap runs nothing.
  assert.deepEqual(
    await run("trap 'echo end $?' EXIT; (exit 7); echo \"in $?\"; trap -p; trap - EXIT; trap -p"),
    { exitCode: 0, stdout: "in 7\ntrap -- 'echo end $?' EXIT\n", stderr: "" },
  );
  assert.deepEqual(await run("trap 'echo x' SIGTERM int 0; trap; trap x FOO"), {
    exitCode: 1,
    stdout: "trap -- 'echo x' EXIT\ntrap -- 'echo x' SIGINT\ntrap -- 'echo x' SIGTERM\nx\n",
    stderr: "bash: trap: FOO: invalid signal specification\n",
  });
  // What Worker Shell cannot run is refused, not ignored.
  assert.deepEqual(
    await run("trap 'echo e' DEBUG; (trap 'echo s' EXIT); eval \"trap 'echo v' EXIT\""),
    {
      exitCode: 1,
      stdout: "",
      stderr: "bash: trap: DEBUG: Worker Shell runs no DEBUG or RETURN trap\n" +
        "bash: trap: Worker Shell sets no trap in a subshell or a command substitution\n" +
        "bash: trap: Worker Shell sets no trap outside the block's own text (eval, bash -c, a sourced script)\n",
    },
  );
});

Deno.test("WS-124: mktemp makes a new file or folder from a template, as GNU mktemp does", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const run = (script: string) => outcome(shell, script);
  // Without WS-124, mktemp is "command not found" (127). The Workspace has no
  // /tmp at first: mktemp makes it, as every system has one.
  assert.deepEqual(
    await run(
      'd=$(mktemp -d); f=$(mktemp -p "$d" x.XXX.txt); echo hi > "$f"; stat -c "%a %n" /tmp "$d" "$f" | sed "s/[A-Za-z0-9]\\{10\\}/R/; s/x.[A-Za-z0-9]\\{3\\}/x.R/"',
    ),
    { exitCode: 0, stdout: "1777 /tmp\n700 /tmp/tmp.R\n600 /tmp/tmp.R/x.R.txt\n", stderr: "" },
  );
  assert.deepEqual(
    await run(
      "mkdir w && cd w && mktemp ab.XXXXX | wc -c && TMPDIR=/w mktemp -t --suffix=.s qXXX | cut -c1-4 && ls | wc -l",
    ),
    { exitCode: 0, stdout: "9\n/w/q\n2\n", stderr: "" },
  );
  // Refusals, in GNU's words, and nothing made.
  const before = snapshot(ws);
  assert.deepEqual(
    await run("mktemp foo; mktemp -p nope a.XXX; mktemp -q nope/xXXX || mktemp -p . /abs.XXX"),
    {
      exitCode: 1,
      stdout: "",
      stderr: "mktemp: too few X's in template ‘foo’\n" +
        "mktemp: failed to create file via template ‘nope/a.XXX’: No such file or directory\n" +
        "mktemp: invalid template, ‘/abs.XXX’; with --tmpdir, it may not be absolute\n",
    },
  );
  assert.deepEqual(snapshot(ws), before);
});

Deno.test("WS-125: paste without a file reads standard input, as GNU paste does", async () => {
  using shell = new WorkerShell(workspace());
  // just-bash's paste printed its usage (status 1) without a file operand.
  assert.deepEqual(await outcome(shell, "seq 3 | paste -sd+; seq 4 | paste -d: - -"), {
    exitCode: 0,
    stdout: "1+2+3\n1:2\n3:4\n",
    stderr: "",
  });
});

Deno.test("WS-126: mkdir -m gives its mode to the folders it makes, as GNU mkdir does", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const run = (script: string) => outcome(shell, script);
  // just-bash's mkdir refused -m ("invalid option -- 'm'") and made nothing.
  assert.deepEqual(
    await run(
      "mkdir -p -m 750 a/b && mkdir -m go-w,u=rwx c && mkdir --mode=700 d && stat -c '%a %n' a a/b c d",
    ),
    { exitCode: 0, stdout: "755 a\n750 a/b\n755 c\n700 d\n", stderr: "" },
  );
  const before = snapshot(ws);
  assert.deepEqual(await run("mkdir -m bad e"), {
    exitCode: 1,
    stdout: "",
    stderr: "mkdir: invalid mode ‘bad’\n",
  });
  assert.deepEqual(snapshot(ws), before);
});

Deno.test("WS-127: install copies files with a mode and makes folders, as GNU install does", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const run = (script: string) => outcome(shell, script);
  // just-bash has no install ("command not found", 127).
  assert.deepEqual(
    await run(
      "echo x > s && echo y > o && ln -s o l && install s l && install -m 644 -D s out/bin/t && " +
        "install -d -m 700 q/r && install -v -m u=rwx,g=u s q && stat -c '%a %n' l out out/bin/t q q/r q/s && cat o l",
    ),
    {
      exitCode: 0,
      stdout: "'s' -> 'q/s'\n755 l\n755 out\n644 out/bin/t\n755 q\n700 q/r\n770 q/s\ny\nx\n",
      stderr: "",
    },
  );
  // What could not be installed is said and the rest still is; nothing else changes.
  const before = snapshot(ws);
  assert.deepEqual(await run("install nope s q/r; install -m bad s t; install -s s t"), {
    exitCode: 1,
    stdout: "",
    stderr: "install: cannot stat 'nope': No such file or directory\n" +
      "install: invalid mode ‘bad’\n" +
      "install: -s: stripping is not supported in Worker Shell\n",
  });
  assert.deepEqual(snapshot(ws).sort(), [...before, '/q/r/s = "x\\n"'].sort());
});

Deno.test("WS-128: truncate sets a file's size, cutting it or padding it with zero bytes, as GNU truncate does", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const run = (script: string) => outcome(shell, script);
  // just-bash has no truncate ("command not found", 127).
  assert.deepEqual(
    await run(
      "echo hello > f && echo ab > g && truncate -s 3 f && truncate -s +2 -r g h && truncate -s %4 g && " +
        "truncate -c -s 9 none && stat -c '%s %n' f g h && cat f",
    ),
    { exitCode: 0, stdout: "3 f\n4 g\n5 h\nhel", stderr: "" },
  );
  assert.deepEqual(snapshot(ws), [
    '/f = "hel"',
    '/g = "ab\\n\\u0000"',
    '/h = "\\u0000\\u0000\\u0000\\u0000\\u0000"',
  ]);
  const before = snapshot(ws);
  assert.deepEqual(await run("truncate -s x f; truncate f; truncate -s 1 d/f; truncate -s 1G f"), {
    exitCode: 1,
    stdout: "",
    stderr: "truncate: Invalid number: ‘x’\n" +
      "truncate: you must specify either ‘--size’ or ‘--reference’\nTry 'truncate --help' for more information.\n" +
      "truncate: cannot open 'd/f' for writing: No such file or directory\n" +
      "truncate: failed to truncate 'f' at 1073741824 bytes: File too large\n",
  });
  assert.deepEqual(snapshot(ws), before);
});

Deno.test("WS-129: sort -z sorts NUL-ended records, newlines inside them kept, as GNU sort does", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const run = (script: string) => outcome(shell, script);
  // just-bash's sort refused -z ("invalid option -- 'z'").
  assert.deepEqual(
    await run(
      "mkdir d && touch 'd/x y' d/b 'd/a\nz' && find d -type f -print0 | sort -z | xargs -0 -n1 printf '[%s]'",
    ),
    { exitCode: 0, stdout: "[d/a\nz][d/b][d/x y]", stderr: "" },
  );
  assert.deepEqual(
    await run(
      "printf 'b,2\\0a,1\\0c,9\\0' | sort -zrt, -k2n -o out && xargs -0 -a out printf '%s;'",
    ),
    { exitCode: 0, stdout: "c,9;b,2;a,1;", stderr: "" },
  );
  assert.deepEqual(await run("sort -z nope"), {
    exitCode: 2,
    stdout: "",
    stderr: "sort: cannot read: nope: No such file or directory\n",
  });
});

Deno.test("WS-130: tr reads octal escapes, so it moves between NUL-ended and line-ended text as GNU tr does", async () => {
  using shell = new WorkerShell(workspace());
  // just-bash's tr read '\0' as the digit 0 ("a0b0") and changed no NUL.
  assert.deepEqual(
    await outcome(
      shell,
      "printf 'a\\nb\\n' | tr '\\n' '\\0' | tr '\\0' ';'; printf 'c\\0d' | tr -d '\\000'; printf '\\tx\\001' | tr -cd '\\11\\40-\\176' | tr '\\t' T",
    ),
    { exitCode: 0, stdout: "a;b;cdTx", stderr: "" },
  );
});

Deno.test("WS-131: uniq -c pads its counts to seven columns and uniq IN OUT writes OUT, as GNU uniq does", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  // just-bash's uniq -c padded them to four ("   2 b"), and read OUT as a second input.
  assert.deepEqual(
    await outcome(
      shell,
      "printf 'b\\na\\nb\\n' | sort | uniq -c | sort -rn; printf 'x\\nx\\n' > in; uniq --count in out; uniq in once",
    ),
    { exitCode: 0, stdout: "      2 b\n      1 a\n", stderr: "" },
  );
  assert.deepEqual(snapshot(ws), ['/in = "x\\nx\\n"', '/once = "x\\n"', '/out = "      2 x\\n"']);
});

Deno.test("WS-132: a command a block can run stands at /usr/bin/<name> once the Workspace has a /usr/bin", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  // Without WS-132, installing a tool into /usr/bin made every other command "command not found".
  assert.deepEqual(
    await outcome(
      shell,
      "printf '#!/bin/sh\\necho tool\\n' > t && install -D t /usr/bin/tool && tool && echo a,b | cut -d, -f2 && " +
        "[ -x /usr/bin/cut ] && [ ! -e /usr/bin/nosuch ] && ls /usr/bin && command -v cut realpath",
    ),
    { exitCode: 0, stdout: "tool\nb\ntool\n/usr/bin/cut\n/usr/bin/realpath\n", stderr: "" },
  );
  // Only a name: the Workspace holds no such file.
  assert.deepEqual(await outcome(shell, "cat /usr/bin/cut"), {
    exitCode: 1,
    stdout: "",
    stderr: "cat: /usr/bin/cut: No such file or directory\n",
  });
});

Deno.test("WS-133: awk's split() and column see every field, the array bound lifted without reaching split's count", async () => {
  using shell = new WorkerShell(workspace());
  // With the bound at Number.MAX_SAFE_INTEGER both returned nothing: "0" and no table.
  assert.deepEqual(
    await outcome(
      shell,
      "echo x | awk '{n = split(\"a,b,c\", parts, \",\"); print n, parts[3]}'; printf 'a b\\nccc d\\n' | column -t",
    ),
    { exitCode: 0, stdout: "3 c\na    b\nccc  d\n", stderr: "" },
  );
});

Deno.test("WS-134: cmp compares two files byte by byte, as GNU cmp does", async () => {
  using shell = new WorkerShell(workspace());
  const run = (script: string) => outcome(shell, script);
  // just-bash has no cmp ("command not found", 127).
  assert.deepEqual(
    await run(
      "printf 'a\\nbc' > f && cp f g && cmp -s f g && echo same; printf 'a\\nbd' > g; cmp f g; cmp -l f g; printf 'a' | cmp f -",
    ),
    {
      exitCode: 1,
      stdout: "same\nf g differ: byte 4, line 2\n4 143 144\n",
      stderr: "cmp: EOF on - after byte 1, in line 1\n",
    },
  );
  assert.deepEqual(await run("cmp f nope; cmp -s f nope"), {
    exitCode: 2,
    stdout: "",
    stderr: "cmp: nope: No such file or directory\n",
  });
});

Deno.test("WS-135: env NAME=value command exports the assignments to the command, as GNU env does", async () => {
  using shell = new WorkerShell(workspace());
  // just-bash's env gave them unexported: a shell it started saw nothing ("\n").
  assert.deepEqual(
    await outcome(
      shell,
      "export Z=1 Y=2; env A=1 B='x y' sh -c 'echo $A $B $Z'; env -u Z sh -c 'echo ${Z:-unset} $Y'; " +
        "env -i A=3 sh -c 'echo $A ${Y:-none}'; printf 'in\\n' | env A=4 cat",
    ),
    { exitCode: 0, stdout: "1 x y 1\nunset 2\n3 none\nin\n", stderr: "" },
  );
});

Deno.test("WS-116: a brace range longer than just-bash expands fails where it is reached instead of running short", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const refusal = (range: string, words: string) =>
    `bash: ${range}: Worker Shell expands a brace range to at most 10,000 words, and this one has ${words}: generate them with seq\n`;
  const run = (script: string) => outcome(shell, script);
  // Without the refusal just-bash runs this loop 10,000 times and prints "after 10000".
  assert.deepEqual(
    await run("echo before > log; for i in {1..12000}; do echo $i >> log; done; echo after $i"),
    { exitCode: 1, stdout: "", stderr: refusal("{1..12000}", "12,000") },
  );
  // The statement before it ran; the loop wrote nothing.
  assert.equal(decoder.decode(ws.readFile("/log")), "before\n");
  // A command substitution's subshell ends; its caller goes on with the status.
  assert.deepEqual(await run('x=$(echo {0..30000..2}); echo "status $? [$x]"'), {
    exitCode: 0,
    stdout: "status 1 []\n",
    stderr: refusal("{0..30000..2}", "15,001"),
  });
  // A range of 10,000 words, one in a branch not taken, and seq run as written.
  assert.deepEqual(
    await run(
      "if false; then echo {1..12000}; fi; for i in {1..10000}; do n=$i; done; " +
        "for i in $(seq 1 12000); do m=$i; done; echo $n $m {a..c}",
    ),
    { exitCode: 0, stdout: "10000 12000 a b c\n", stderr: "" },
  );
});

Deno.test("worker shell: a command in the Workspace's /usr/bin or /bin runs as soon as it exists, through a link too", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const exitsWith = (code: number) => `printf '#!/bin/sh\\nexit ${code}\\n'`;
  // Not there, then moved into place: /usr/bin appears in the middle of the block.
  const moved = await shell.run(
    request(
      `mkdir /tools && ${exitsWith(7)} > /tools/hello && chmod +x /tools/hello; ` +
        `hello 2>/dev/null; echo "before $?"; mkdir /usr && mv /tools /usr/bin && hello`,
    ).request,
  );
  assert.deepEqual([moved.stdout, moved.exitCode], ["before 127\n", 7]);
  // The next block starts with it there.
  assert.equal((await shell.run(request("hello").request)).exitCode, 7);
  // A Workspace /usr/bin does not hide the built-ins it does not hold (WS-132).
  const builtIn = await shell.run(request("basename /a/b").request);
  assert.deepEqual([builtIn.exitCode, builtIn.stdout, builtIn.stderr], [0, "b\n", ""]);
  // Gone, then back through a link: /usr -> /tools.
  ws.rename("/usr", "/tools");
  const linked = await shell.run(
    request(`hello 2>/dev/null; echo "gone $?"; ln -s /tools /usr && hello`).request,
  );
  assert.deepEqual([linked.stdout, linked.exitCode], ["gone 127\n", 7]);
  // In /bin.
  ws.unlink("/usr");
  const bin = await shell.run(
    request(`mkdir /bin && ${exitsWith(5)} > /bin/hi && chmod +x /bin/hi && hi`).request,
  );
  assert.equal(bin.exitCode, 5);
});

/**
 * A Worker Shell over an empty Workspace that counts the Workspace's
 * transactions (one a request of the interpreter); `run` gives a script's
 * result with the count of its own.
 */
function countingShell() {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  seam.transaction(() => Workspace.initialize(seam));
  let requests = 0;
  const ws = new Workspace({
    exec: (sql, ...params) => seam.exec(sql, ...params),
    transaction: (fn) => {
      requests++;
      return seam.transaction(fn);
    },
  });
  const shell = new WorkerShell(ws);
  return {
    ws,
    async run(script: string) {
      requests = 0;
      const { exitCode, stdout, stderr } = await shell.run(request(script).request);
      return { exitCode, stdout, stderr, requests };
    },
    [Symbol.dispose]: () => shell[Symbol.dispose](),
  };
}

Deno.test("worker shell: commands run without asking the Workspace while it has no /usr/bin or /bin", async () => {
  using counted = countingShell();
  const { ws, run } = counted;
  assert.deepEqual(
    await run(
      'echo "$(basename /a/b) $((6 * 7))" > f; cat f; printf x | wc -c; for i in 1 2; do basename /c/d; done',
    ),
    // The redirection's three requests (is f there, truncate it, write it) and cat's read: no
    // lookup of echo, basename, cat, printf or wc (three requests each), nor of the path just-bash
    // remembered for basename (a stat each time it runs again).
    { exitCode: 0, stdout: "b 42\n1\nd\nd\n", stderr: "", requests: 4 },
  );
  // What a script sees of those paths is what the Workspace says, whatever /usr is.
  const probe = "stat /usr/bin/x; ls /bin/y/z; [ -e /usr/bin/x ]; echo $?";
  const missing = "stat: cannot stat '/usr/bin/x': No such file or directory\n" +
    "ls: cannot access '/bin/y/z': No such file or directory\n";
  assert.deepEqual(await run(probe), { exitCode: 0, stdout: "1\n", stderr: missing, requests: 0 });
  ws.writeFile("/usr", encoder.encode("a file"));
  assert.deepEqual(await run(`${probe}; cat /usr/bin/x`), {
    exitCode: 1,
    stdout: "1\n",
    stderr: `${missing}cat: /usr/bin/x: No such file or directory\n`,
    requests: 1,
  });
});

Deno.test("WS-137: ls of several operands lists the files together, then each folder under its name, as GNU ls does", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  // just-bash's ls printed a blank line after each operand ("a.txt\n\nb.txt\n"), in their order.
  assert.deepEqual(
    await outcome(
      shell,
      "mkdir d e && touch b.txt a.txt d/x e/y && ls b.txt a.txt && ls -d e d && ls e b.txt d && ls -r a.txt b.txt",
    ),
    {
      exitCode: 0,
      stdout: "a.txt\nb.txt\nd\ne\nb.txt\n\nd:\nx\n\ne:\ny\nb.txt\na.txt\n",
      stderr: "",
    },
  );
  // An operand that does not exist is refused in GNU's words, status 2, and the rest listed.
  assert.deepEqual(await outcome(shell, "ls nothere a.txt d; echo $?; ls gone"), {
    exitCode: 2,
    stdout: "a.txt\n\nd:\nx\n2\n",
    stderr: "ls: cannot access 'nothere': No such file or directory\n" +
      "ls: cannot access 'gone': No such file or directory\n",
  });
});

Deno.test("WS-138: sed reads a, i and c texts and a replacement's escaped backslash as GNU sed does", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  // just-bash kept the backslash of a one-line text ("\header"), appended a "\" line for $a\,
  // and read a replacement's \\ as an escape of the next character (s/"/\\"/g changed nothing).
  const script = [
    String.raw`printf '"q" a\\b\n' | sed 's/"/\\"/g; s/\\b/\\\\b/'`,
    String.raw`printf 'l1\nl2\n' | sed -e '1i\header' -e '$a\  last' -e '2c\'`,
    String.raw`printf 'two' > f && sed -i '$a\' f && wc -c < f && cat f`,
    String.raw`printf 'a\nb\n' | sed ':a;N;$!ba;s/\n/\\n/g'`,
  ].join("\n");
  // What GNU sed prints for the same lines.
  const gnu = String.raw`\"q\" a\\b` + "\nheader\nl1\n  last\n4\ntwo\n" + String.raw`a\nb` + "\n";
  assert.deepEqual(await outcome(shell, script), { exitCode: 0, stdout: gnu, stderr: "" });
});

Deno.test("WS-139: diff prints GNU's normal format by default and GNU's unified header and ranges under -u", async () => {
  using shell = new WorkerShell(workspace());
  // just-bash printed a unified diff for every diff, headed by a line of "=" and no times.
  const script =
    String.raw`printf 'a\nb\nc\n' > 1; printf 'a\nc\nd\n' > 2; diff 1 2; echo "rc=$?"; ` +
    String.raw`diff -u 1 2 | tail -n +3; diff -u 1 2 | head -2 | cut -c1-5; printf x | diff - 2`;
  // What GNU diff prints for the same lines (the header's times aside).
  const gnu = "2d1\n< b\n3a3\n> d\nrc=1\n@@ -1,3 +1,3 @@\n a\n-b\n c\n+d\n--- 1\n+++ 2\n" +
    "1c1,3\n< x\n\\ No newline at end of file\n---\n> a\n> c\n> d\n";
  assert.deepEqual(await outcome(shell, script), { exitCode: 1, stdout: gnu, stderr: "" });
  // The header's time is the file's, as GNU writes it.
  const header = await outcome(shell, "touch 1; diff -u 1 2 | head -1");
  assert.match(header.stdout, /^--- 1\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} \+0000\n$/);
});

Deno.test("WS-140: ls -l shows each entry's mode and a symbolic link as itself, as GNU ls does", async () => {
  using shell = new WorkerShell(workspace());
  // just-bash wrote -rw-r--r-- and drwxr-xr-x whatever the mode, listed a link as the file it names
  // (a dangling one as an empty file), refused a dangling operand, and put / after a folder's name.
  const script = [
    "mkdir d; touch d/f; chmod 755 d/f; chmod 700 d; ln -s f d/l; ln -s nowhere d/x",
    "ls -l d | awk 'NR>1 {print $1, $5, $NF}'",
    "ls -l d | grep -c ' l -> f$'",
    "ls -ld d | awk '{print $1, $NF}'",
    "ls -l d/x | awk '{print $1, $NF}'",
  ].join("\n");
  // What GNU ls prints for the same lines.
  const gnu =
    "-rwxr-xr-x 0 f\nlrwxrwxrwx 1 f\nlrwxrwxrwx 7 nowhere\n1\ndrwx------ d\nlrwxrwxrwx nowhere\n";
  assert.deepEqual(await outcome(shell, script), { exitCode: 0, stdout: gnu, stderr: "" });
});

Deno.test("WS-141: od reads GNU od's options and writes its columns", async () => {
  using shell = new WorkerShell(workspace());
  // just-bash's od read -tx1 as octal, had no -A, -N, -j or -w, and printed -x as octal bytes.
  const script = [
    String.raw`printf 'AB\n' | od -An -tx1`,
    "printf 'ABCDEFGHIJKLMNOPQRS' | od -A x -t x1z",
    "printf 'hello world' | od -j 6 -N 2 -A d -c",
    "printf 'AB' | od -x -t c",
  ].join("\n");
  // What GNU od prints for the same lines.
  const gnu = " 41 42 0a\n" +
    "000000 41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50  >ABCDEFGHIJKLMNOP<\n" +
    "000010 51 52 53                                         >QRS<\n000013\n" +
    "0000006   w   o\n0000008\n0000000    4241\n          A   B\n0000002\n";
  assert.deepEqual(await outcome(shell, script), { exitCode: 0, stdout: gnu, stderr: "" });
});

Deno.test("WS-142: xxd, hexdump and hd dump bytes as their own commands do", async () => {
  using shell = new WorkerShell(workspace());
  // just-bash has none of them: "command not found".
  const script = [
    String.raw`printf 'AB\n' | xxd`,
    "echo 41420a | xxd -r -p | xxd -p",
    "printf 'ABCDEFGHIJKLMNOPQRS' | hexdump -C",
    "printf '%.0sa' {1..40} | hd",
  ].join("\n");
  // What vim's xxd and util-linux's hexdump print for the same lines.
  const expected = "00000000: 4142 0a                                  AB.\n41420a\n" +
    "00000000  41 42 43 44 45 46 47 48  49 4a 4b 4c 4d 4e 4f 50  |ABCDEFGHIJKLMNOP|\n" +
    "00000010  51 52 53                                          |QRS|\n00000013\n" +
    "00000000  61 61 61 61 61 61 61 61  61 61 61 61 61 61 61 61  |aaaaaaaaaaaaaaaa|\n*\n" +
    "00000020  61 61 61 61 61 61 61 61                           |aaaaaaaa|\n00000028\n";
  assert.deepEqual(await outcome(shell, script), { exitCode: 0, stdout: expected, stderr: "" });
  // What they do not read is refused, never guessed.
  assert.deepEqual(await outcome(shell, "printf a | xxd -i"), {
    exitCode: 1,
    stdout: "",
    stderr: "xxd: -i is not an option Worker Shell's xxd reads (-p, -r, -c, -g, -s, -l, -u)\n",
  });
});

Deno.test("WS-143: printf and echo -e write the byte an escape from \\x80 to \\xff names, as bash does", async () => {
  using shell = new WorkerShell(workspace());
  // just-bash wrote U+0080 to U+00FF as UTF-8, two bytes each: a gzip header came out 1f c2 8b.
  const script = [
    String.raw`printf '\x1f\x8b\200é' > f; od -An -tx1 f`,
    String.raw`printf '%b|%s' '\0377' '\x80' | od -An -c`,
    String.raw`echo -ne '\xff' | wc -c`,
    String.raw`printf '\\x80\n'`,
  ].join("\n");
  // What bash prints for the same lines.
  const bash = " 1f 8b 80 c3 a9\n 377   |   \\   x   8   0\n1\n\\x80\n";
  assert.deepEqual(await outcome(shell, script), { exitCode: 0, stdout: bash, stderr: "" });
});

Deno.test("WS-144: envsubst fills a template from the exported variables, as GNU envsubst does", async () => {
  using shell = new WorkerShell(workspace());
  // just-bash has no envsubst: "command not found".
  const script = [
    "printf 'name: ${NAME}\\nport: $PORT\\nkeep: ${NAME:-x} $$ $1\\n' > tmpl",
    "NAME=web PORT=80 envsubst < tmpl > out.yaml; cat out.yaml",
    "echo '$NAME $PORT' | NAME=a PORT=b envsubst '$PORT'",
    "envsubst -v 'x $B ${A}'",
  ].join("\n");
  // What GNU envsubst prints for the same lines.
  const gnu = "name: web\nport: 80\nkeep: ${NAME:-x} $$ $1\n$NAME b\nB\nA\n";
  assert.deepEqual(await outcome(shell, script), { exitCode: 0, stdout: gnu, stderr: "" });
});

Deno.test("WS-145: sha224sum, sha384sum and sha512sum write and check sums as GNU coreutils does", async () => {
  using shell = new WorkerShell(workspace());
  // just-bash has md5sum, sha1sum and sha256sum only: "command not found".
  const script = [
    'echo hi > a; echo yo > b; sha512sum a b > sums; echo x > b; sha512sum -c sums; echo "rc=$?"',
    "printf '' | sha224sum; echo hi | sha384sum -b | cut -c90-",
  ].join("\n");
  // What GNU coreutils prints for the same lines.
  assert.deepEqual(await outcome(shell, script), {
    exitCode: 0,
    stdout:
      "a: OK\nb: FAILED\nrc=1\nd14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f  -\n9b2c1f5 *-\n",
    stderr: "sha512sum: WARNING: 1 computed checksum did NOT match\n",
  });
});

Deno.test("WS-146: ${NAME:?} and ${NAME?} name the missing parameter, as bash does", async () => {
  using shell = new WorkerShell(workspace());
  // just-bash wrote "bash: " alone for ${API_KEY:?}, and "bash: set x first" without the name.
  const script = [
    '( : "${API_KEY:?}" ); echo "rc=$?"',
    '( : "${x?}" )',
    '( : "${x:?set x first}" )',
    // Worker Shell's own failing expansion (WS-116) already names what failed.
    "( for i in {1..12001}; do :; done ) 2>&1 | cut -c1-30",
  ].join("\n");
  // What bash writes (but its "line 1: ", which no message of just-bash's has).
  assert.deepEqual(await outcome(shell, script), {
    exitCode: 0,
    stdout: "rc=1\nbash: {1..12001}: Worker Shell\n",
    stderr:
      "bash: API_KEY: parameter null or not set\nbash: x: parameter not set\nbash: x: set x first\n",
  });
});

Deno.test("WS-147: ls -p marks folders with / and --color=never changes nothing, as in GNU ls", async () => {
  using shell = new WorkerShell(workspace());
  // just-bash refused both ("ls: invalid option -- 'p'"), so `ls -p | grep -v /` listed nothing.
  const script = [
    "touch a; mkdir -p b/c; ls -p | grep -v /; ls -pa; ls -pR b",
    "ls -lp | awk 'NR>1 {print $1, $NF}'; ls --color=never -dp b a",
  ].join("\n");
  // What GNU ls prints for the same lines.
  const gnu = "a\n./\n../\na\nb/\nb:\nc/\n\nb/c:\n-rw-r--r-- a\ndrwxr-xr-x b/\na\nb/\n";
  assert.deepEqual(await outcome(shell, script), { exitCode: 0, stdout: gnu, stderr: "" });
});

Deno.test("worker shell: a redirection onto a file that exists asks the Workspace three times (WS-162)", async () => {
  using counted = countingShell();
  const { run } = counted;
  assert.deepEqual(await run("echo a > f"), { exitCode: 0, stdout: "", stderr: "", requests: 3 });
  // Is f there (its stat, which just-bash's check of a folder then reads), truncate it, write it.
  assert.deepEqual(await run("echo b > f"), { exitCode: 0, stdout: "", stderr: "", requests: 3 });
  // A folder there is still refused, and a stat asked after any other request asks again.
  assert.deepEqual(await run("mkdir d; echo c > d; [ -d d ] && cat f"), {
    exitCode: 0,
    stdout: "b\n",
    stderr: "bash: d: Is a directory\n",
    requests: 4,
  });
});
