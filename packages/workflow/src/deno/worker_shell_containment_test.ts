/**
 * Worker Shell containment: real blocks try to reach the host's files, its
 * environment, the network and native processes. Canaries are planted on each
 * side; after every attempt no canary may appear in the block's output or in
 * the Workspace, and after all of them the host must be untouched.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { Workspace } from "../workspace/workspace.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";
import { WorkerShell } from "./worker-shell.ts";

const decoder = new TextDecoder();

function randomHex(): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(16)),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
}

/** Every name, symlink target and file content in the Workspace, as one string. */
function everything(ws: Workspace, dir = "/"): string {
  let text = "";
  for (const name of ws.readdir(dir)) {
    const path = dir === "/" ? `/${name}` : `${dir}/${name}`;
    const stat = ws.lstat(path);
    text += `${path}\n`;
    if (stat.kind === "dir") text += everything(ws, path);
    else if (stat.kind === "symlink") text += `${ws.readlink(path)}\n`;
    else text += `${decoder.decode(ws.readFile(path))}\n`;
  }
  return text;
}

async function listing(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir), (entry) => entry.name)).sort();
}

Deno.test("worker shell containment: no escape reaches host files, environment, network or processes", async (t) => {
  const secret = `file-canary-${randomHex()}`;
  const envSecret = `env-canary-${randomHex()}`;
  const nameSecret = `name-canary-${randomHex()}`;
  const host = await Deno.makeTempDir({ prefix: "xmd-containment-" });
  const canary = join(host, "canary.txt");
  await Deno.writeTextFile(canary, `${secret}\n`);
  await Deno.writeTextFile(join(host, nameSecret), "x");
  const canaryBytes = await Deno.readFile(canary);
  const hostListing = await listing(host);
  const previousEnv = Deno.env.get("XMD_CANARY");
  Deno.env.set("XMD_CANARY", envSecret);

  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    hits++;
    return new Response(secret);
  });
  const url = `http://127.0.0.1:${server.addr.port}/`;
  const relative = `${"../".repeat(12)}${canary.slice(1)}`;
  const outside = (name: string) => join(host, name);
  const tmpTarget = `/tmp/xmd-escape-${randomHex()}`;

  const attempts: [name: string, script: string][] = [
    ["read /etc/passwd", "cat /etc/passwd; head -1 /etc/hostname"],
    ["read the canary by absolute path", `cat ${canary}`],
    ["read the canary through a ..-chain", `cat ${relative}; cat /..${canary}`],
    ["walk the whole filesystem", "cd /; find / ; ls -R /"],
    ["list the root", "ls -la /; ls -la /tmp /home /root /proc /sys /dev"],
    ["list the host folder", `ls -la ${host}; echo ${host}/*`],
    ["run /bin/sh", `/bin/sh -c "cat ${canary}"; /usr/bin/env cat ${canary}`],
    ["run bash -c", `bash -c 'cat ${canary}; echo $XMD_CANARY'; sh -c 'printenv XMD_CANARY'`],
    ["dump the environment", "env; export -p; set; declare -p"],
    ["printenv", "printenv; printenv XMD_CANARY"],
    ["expand the variable", 'echo "$XMD_CANARY" "${XMD_CANARY}" "${!XMD*}"'],
    ["curl the loopback server", `curl -s ${url}; curl ${url}canary`],
    ["wget the loopback server", `wget -qO- ${url}; wget ${url}`],
    ["/dev/tcp redirection", `echo GET > /dev/tcp/127.0.0.1/${server.addr.port}`],
    ["exec a host program", `exec /bin/cat ${canary}`],
    ["source a host file", `source ${canary}; echo sourced`],
    ["dot a host file", `. ${canary}; . /etc/profile`],
    ["redirect output into the host folder", `echo pwned > ${outside("escaped")}`],
    ["append output to a host /tmp path", `echo pwned >> ${tmpTarget}`],
    ["redirect input from a host path", `read line < ${canary}; echo "$line"; cat < /etc/hostname`],
    ["symlink to a host file", `ln -s /etc/passwd l; cat l; ln -s ${canary} c; cat c`],
    ["symlink to a climbing path", `ln -s ../../../../ x; ls x; cat x${canary}`],
    [
      "here-docs reading and writing host paths",
      `cat <<EOF\n$(cat ${canary})\nEOF\ncat > ${outside("heredoc")} <<EOF\npwned\nEOF`,
    ],
    ["python3", `python3 -c "print(open('${canary}').read())"; python -c 1`],
    ["node", `node -e "console.log(require('fs').readFileSync('${canary}', 'utf8'))"`],
    ["deno", `deno eval "console.log(Deno.readTextFileSync('${canary}'))"`],
    ["js-exec", `js-exec -c "console.log(1)"`],
    ["sqlite3 on a host path", `sqlite3 ${outside("db.sqlite")} "create table t(x)"`],
    [
      "tar and gzip host paths",
      `tar czf out.tgz ${host}; tar tzf out.tgz; gzip -c ${canary} > c.gz`,
    ],
    ["procfs", "cat /proc/self/environ; cat /proc/self/cmdline; cat /proc/1/environ; ls /proc"],
    ["cd .. in a loop", `for i in $(seq 60); do cd ..; done; pwd; ls; cat ${canary.slice(1)}`],
    ["trap", `trap 'cat ${canary}; echo $XMD_CANARY' EXIT; false`],
    ["eval", `eval "cat ${canary}"; eval 'echo $XMD_CANARY'`],
    ["background job", `cat ${canary} & wait; (curl ${url}) & wait`],
    ["xargs", `echo ${canary} | xargs cat; echo /etc/passwd | xargs -n 1 cat`],
    ["glob /**", `shopt -s globstar; echo /**; ls /** ; cat /tmp/*/canary.txt`],
    ["command substitution", `x=$(< ${canary}); echo "$x"; echo "$(cat ${canary})"`],
    ["copy and move host files", `cp ${canary} here; mv ${canary} moved; cat here moved`],
    ["modify host files", `rm -rf ${host}; chmod 000 ${canary}; touch ${outside("touched")}`],
    ["create host directories", `mkdir -p ${outside("made")}; tee ${outside("teed")} < /dev/null`],
    ["html-to-markdown and jq on host paths", `jq . ${canary}; html-to-markdown ${canary}`],
  ];

  // The canaries are live: the host itself reaches each of them.
  assert.equal(await (await fetch(url)).text(), secret);
  assert.equal(hits, 1);
  hits = 0;
  assert.equal(Deno.env.get("XMD_CANARY"), envSecret);

  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  seam.transaction(() => Workspace.initialize(seam));
  const ws = new Workspace(seam);
  try {
    using shell = new WorkerShell(ws);
    assert.ok(attempts.length >= 30);
    for (const [name, script] of attempts) {
      await t.step(name, async () => {
        let streamed = "";
        const result = await shell.run({
          lang: "bash",
          script,
          cwd: ".",
          timeoutMs: 20_000,
          onStdout: (chunk) => streamed += chunk,
          onStderr: (chunk) => streamed += chunk,
          signal: new AbortController().signal,
        });
        const seen = `${result.stdout}\n${result.stderr}\n${streamed}\n${everything(ws)}`;
        for (const value of [secret, envSecret, nameSecret]) {
          assert.ok(!seen.includes(value), `"${name}" leaked a canary:\n${seen}`);
        }
        assert.equal(result.timedOut, false);
        assert.doesNotMatch(result.stderr, /syntax error/, "the attempt never ran");
      });
    }
  } finally {
    await server.shutdown();
    if (previousEnv === undefined) Deno.env.delete("XMD_CANARY");
    else Deno.env.set("XMD_CANARY", previousEnv);
  }
  try {
    assert.equal(hits, 0, "the loopback server was reached");
    assert.deepEqual(await Deno.readFile(canary), canaryBytes, "the host canary changed");
    assert.deepEqual(await listing(host), hostListing, "a host file appeared or vanished");
    await assert.rejects(Deno.lstat(tmpTarget), Deno.errors.NotFound);
  } finally {
    await Deno.remove(host, { recursive: true });
  }
});
