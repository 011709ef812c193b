import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { Bash, InMemoryFs } from "just-bash";
import { Workspace } from "../workspace/workspace.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";
import { assertBashCases } from "./_test-bash-cases.ts";
import { OutputDecoder } from "./worker-shell-output.ts";
import { MAY_SET_XTRACE } from "./worker-shell-streaming.ts";
import { WorkerShell } from "./worker-shell.ts";

/** Scripts whose observable behaviour the streaming wrapper must not change. */
const SCRIPTS = [
  "false | true; echo ${PIPESTATUS[@]}",
  "false; echo $?",
  "set -e; echo a; false; echo b",
  "set -e\nif false; then echo x; fi\necho after",
  "for i in 1 2 3; do if [ $i = 2 ]; then continue; fi; echo $i; done",
  "for i in 1 2 3; do echo $i; if [ $i = 2 ]; then break; fi; done; echo end",
  "for i in 1 2 3; do echo $i; [ $i = 2 ] && exit 4; done; echo end",
  "f() { echo in; return 3; echo no; }\nf; echo $?",
  "while read l; do echo got $l; done <<EOF\na\nb\nEOF",
  "x=1; { x=2; }; echo $x",
  "echo $LINENO\n\necho $LINENO",
  "set -x; echo hi",
  "set -x; for i in 1 2; do echo $i; echo e$i >&2; done; if true; then echo t; fi",
  "set -v\necho hi",
  "echo a; echo err >&2; echo b",
  "echo hi > /f; cat /f; echo $_",
  "nosuch; echo $?",
  "for ((i=0;i<3;i++)); do echo $i; done",
  "case a in a) echo A;; *) echo B;; esac",
  "until false; do echo once; break; done",
  "echo $(echo sub; echo err >&2)",
  "exit 5",
  "echo 'unterminated",
  "(echo sub; exit 2); echo $?",
  "f() { echo in; exit 4; }; echo body; f; echo no",
  "for i in 1 2; do echo $i; done | sort -r",
  "i=0; while [ $i -lt 3 ]; do i=$((i+1)); echo $i; done",
  "if true; then echo a; exit 3; fi",
  "! true; echo $?",
  "echo a >&2; echo b 1>&2 2>/dev/null",
  "cd /tmp 2>/dev/null || mkdir -p /tmp && cd /tmp; pwd",
  "for i in 1 2 3; do echo a$i; [ $i = 2 ] && continue; echo b$i; done",
  "for i in 1 2; do for j in x y; do echo $i$j; [ $j = x ] && break; done; echo after$i; done",
  "while true; do echo once; break; echo never; done; echo $?",
  "n=0; until [ $n = 2 ]; do n=$((n+1)); if [ $n = 1 ]; then echo one; else echo other >&2; fi; done",
  // Conditions that write: their output, status and `$?` as without the wrapper (WS-148).
  "if echo a; then echo b; fi; echo c",
  "f() { echo in-f; return 1; }; if f; then echo T; elif echo e >&2; then echo E; else echo no; fi",
  "i=0; while echo w$i; [ $i -lt 2 ]; do i=$((i+1)); echo body$i; done; echo $?",
  "until echo u; true; do echo never; done; echo $?",
  "set -e; if false; echo c; false; then echo x; else echo y $?; fi; echo after",
  "if { echo g; false; }; then echo x; fi; echo $?",
  // Background statements: their output in its place, `$!` and `wait` as without the wrapper.
  "(sleep 0.1; echo bg) & echo fg; wait; echo done",
  "echo a & echo b; wait; echo c",
  'sleep 0 & p=$!; [ -n "$p" ] && echo pid; wait $p; echo "waited $?"',
  // rmdir, and rm without -r, of an empty folder and of one that is not.
  "mkdir -p /tmp/d/e && rmdir /tmp/d; echo $?; rmdir /tmp/d/e && rmdir /tmp/d && echo gone",
  "mkdir -p /tmp/d/e && rm /tmp/d/e; echo $?; rm -d /tmp/d/e; echo $?; ls /tmp/d | wc -l",
  // cp -r copies links as links: their targets stay theirs, and a link up the tree is no loop.
  "mkdir -p /tmp/d && echo x > /tmp/t && ln -s ../t /tmp/d/l && ln -s .. /tmp/d/up && " +
  "cp -r /tmp/d /tmp/e && readlink /tmp/e/l /tmp/e/up && cat /tmp/e/l && ls /tmp/e/up",
  // Commands that run other commands: what those write is the command's output, in its pipe.
  "printf 'a\\nb\\n' > /f; echo /f | xargs cat | wc -l",
  "bash -c 'echo lower; echo err >&2' 2>/dev/null | tr a-z A-Z",
  "printf 'a\\nb\\n' > /f; find /f -exec cat {} \\; | wc -l",
  "timeout 5 echo t | tr t T; env echo v | tr v V",
  // (just-bash's xargs takes `-I {}`, not `-I{}`.)
  "echo x | xargs -I {} sh -c 'echo in-{}; for i in 1 2; do echo $i; done' | tr a-z A-Z",
];

Deno.test("worker shell streaming: wrapping statements changes no script's output, errors or status", async () => {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  seam.transaction(() => Workspace.initialize(seam));
  const ws = new Workspace(seam);
  using shell = new WorkerShell(ws);
  const run = (script: string) =>
    shell.run({
      lang: "bash",
      script,
      cwd: ".",
      timeoutMs: 30_000,
      onStdout: () => {},
      onStderr: () => {},
      signal: new AbortController().signal,
    });
  for (const script of SCRIPTS) {
    await run("rm -rf /f /tmp");
    const plain = await new Bash({ fs: new InMemoryFs(), cwd: "/", defenseInDepth: false }).exec(
      script,
    );
    const streamed = await run(script);
    assert.deepEqual(
      [streamed.exitCode, streamed.stdout, streamed.stderr],
      [plain.exitCode, plain.stdout, plain.stderr],
      script,
    );
  }
});

Deno.test("worker shell streaming: set -x's trace of a statement streams before its output, as in bash", async () => {
  // What GNU bash 5.2 writes, stdout and stderr together (WS-167); just-bash's own order gave
  // each statement's output before its trace (`hi`, then `+ echo hi`).
  await assertBashCases([
    ["set -x; echo hi; y=2; echo $y", "+ echo hi\nhi\n+ y=2\n+ echo 2\n2\n", 0],
    [
      "set -ex; if [ -n x ]; then echo yes; fi; echo done",
      "+ '[' -n x ']'\n+ echo yes\nyes\n+ echo done\ndone\n",
      0,
    ],
    [
      "set -x; f() { echo in-f; }; f; echo after",
      "+ f\n+ echo in-f\nin-f\n+ echo after\nafter\n",
      0,
    ],
    [
      "set -x; cat missing; echo after",
      "+ cat missing\ncat: missing: No such file or directory\n+ echo after\nafter\n",
      0,
    ],
    ["set -x; { echo a; echo b; }; set +x; echo c", "+ echo a\na\n+ echo b\nb\n+ set +x\nc\n", 0],
    ["set -o xtrace; ls; echo z", "+ ls\n+ echo z\nz\n", 0],
    // Gaps of just-bash's trace, kept: no `+ for …` or `+ case …` line, and one level of `+`.
    ['set -x\nfor i in 1 2; do echo "i=$i"; done', "+ echo i=1\ni=1\n+ echo i=2\ni=2\n", 0],
    // Without xtrace, a statement's stdout still streams before its stderr.
    ["ls -d / nothere", "/\nls: cannot access 'nothere': No such file or directory\n", 2],
  ]);
});

Deno.test("worker shell streaming: a block is read as turning xtrace on only when its text can", () => {
  for (
    const text of [
      "set -x",
      "set -euxo pipefail",
      "set -e -x",
      "set +x",
      "set -o xtrace",
      "set -o errexit -o xtrace",
    ]
  ) {
    assert.equal(MAY_SET_XTRACE.test(text), true, text);
  }
  for (
    const text of ["set -e", "set -euo pipefail", "echo set; x=1", "tar -xf a.tar", "offset -x"]
  ) {
    assert.equal(MAY_SET_XTRACE.test(text), false, text);
  }
});

Deno.test("worker shell streaming: the decoder joins a character split across byte chunks", () => {
  const decoder = new OutputDecoder();
  const bytes = new TextEncoder().encode("é✓");
  assert.equal(decoder.write(bytes.subarray(0, 1), "binary"), "");
  assert.equal(decoder.write(bytes.subarray(1, 3), "binary"), "é");
  assert.equal(decoder.write("\x9c", "binary"), "");
  assert.equal(decoder.write("\x93\n", "latin1"), "✓\n");
  assert.equal(decoder.write(bytes.subarray(0, 1), "binary"), "");
  assert.equal(decoder.end(), "\ufffd");
  assert.equal(decoder.end(), "");
});

Deno.test("worker shell streaming: bytes named utf8 are read as bytes only when they are UTF-8", () => {
  const decoder = new OutputDecoder();
  assert.equal(decoder.write("\xc3\xa9\n", "utf8"), "é\n", "UTF-8 bytes named utf8");
  assert.equal(decoder.write("café", "utf8"), "café", "Latin-1 text stays text");
  assert.equal(decoder.write("é\n", "utf8"), "é\n");
  assert.equal(decoder.write("✓ ok", "binary"), "✓ ok", "chars beyond a byte are text");
  assert.equal(decoder.write("plain", "utf8"), "plain");
  assert.equal(decoder.end(), "");
});
