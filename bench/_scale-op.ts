/**
 * One timed operation of the scale bench, in a process of its own so its peak
 * memory is its own: `deno run -A bench/_scale-op.ts <op> <runs> <id> <arg>`.
 * It prints one JSON line `{ms, cpuMs, peakRssBytes}`: the operation's wall
 * time and the CPU time the process spent during it (user and system, every
 * thread; the process's start-up excluded), and the process's high-water mark
 * of resident memory (`VmHWM`, Linux; null elsewhere).
 *
 * Operations, each through `LocalWorkflowHost` as the CLI calls it:
 * - `resume`: the run (a copy, made before the clock starts) is answered and
 *   resumed to completion: verification, replay of every event, one effect.
 * - `history`: every event read and serialized as `history --json` writes it, a page at a time.
 * - `export`: the current root written into a new folder.
 * - `host-floor`: the same tree `export` writes for the scale run (folders of
 *   100 files of a few bytes) written by bare synchronous host calls (mkdir,
 *   create, write, chmod), without xmd: the host's share of an export.
 * - `diff`: the roots after event 1 and after event `<arg>`.
 * - `list`: every run of the folder.
 * - `write`: one file of `<arg>` MiB written into a new Workspace database
 *   (WAL, `synchronous=FULL`) with `Workspace.writeFileFrom` from pieces of
 *   64 KiB made as they are asked for, its root published and committed.
 *
 * Invariant: each operation is checked to have done its work (a completed
 * run, the number of events, files or runs expected), so the bench never
 * times an error path.
 *
 * @module
 */
import process from "node:process";
import { DatabaseSync } from "node:sqlite";
import { LocalWorkflowHost } from "@xmd/workflow/deno";
import { HistoryJsonWriter } from "../packages/cli/src/deno/history-json.ts";
import { nativeSha256Hex, NodeSqliteSeam } from "@xmd/workflow/deno/internal";
import { publishRoot, Workspace } from "@xmd/workflow/internal";

const [op, runs, id, arg] = Deno.args;
const expected = Number(arg);
const quiet = {
  stdout: () => {},
  stderr: () => {},
  onRun: () => {},
  signal: new AbortController().signal,
};

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`Cannot time ${op}: ${what}`);
}

/** `count` pieces of 64 KiB, all in one reused buffer, each distinct (so no chunk is stored once for two). */
function* pieces(count: number): Generator<Uint8Array> {
  const piece = new Uint8Array(64 * 1024);
  for (let index = 0; index < count; index++) {
    new DataView(piece.buffer).setUint32(0, index);
    piece.fill(index % 251, 4);
    yield piece;
  }
}

async function peakRss(): Promise<number | null> {
  try {
    const status = await Deno.readTextFile("/proc/self/status");
    const kib = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return kib ? Number(kib) * 1024 : null;
  } catch {
    return null;
  }
}

let host = new LocalWorkflowHost(runs);
let prepared: () => Promise<void> = () => Promise.resolve();
if (op === "resume") {
  const copy = await Deno.makeTempDir({ dir: runs, prefix: "resume-" });
  const path = host.pathOf(id);
  await Deno.copyFile(path, `${copy}/${path.slice(path.lastIndexOf("/") + 1)}`);
  host = new LocalWorkflowHost(copy);
  const pending = (await host.inspect(id)).pendingSuspension;
  check(pending !== null, "the run waits for no answer");
  await host.answer(id, pending!.suspensionId, true, true);
  prepared = () => Deno.remove(copy, { recursive: true });
}
// Exports stay until the bench's folder is removed, after every sample: on a file system that
// scans recently deleted inodes when it creates one (ext4 without a journal), removing one
// sample's 10,000 files right before the next would make the next pay for them.
const exportTo = `${runs}-exports/${crypto.randomUUID()}`;

const cpuBefore = process.cpuUsage();
const started = performance.now();
switch (op) {
  case "resume": {
    const report = await host.resume(id, quiet);
    check(report.status === "completed", `the run ended ${report.status}`);
    break;
  }
  case "history": {
    // As the CLI prints it: written a page at a time, here into a count of its characters.
    let characters = 0;
    let events = 0;
    const writer = new HistoryJsonWriter((text) => characters += text.length);
    await host.streamHistory(id, {
      inspection: (inspection) => writer.inspection(inspection),
      events: (page) => {
        events += page.length;
        writer.events(page);
      },
    });
    writer.end();
    check(events === expected && characters > 0, "events are missing");
    break;
  }
  case "export": {
    const report = await host.export(id, null, exportTo);
    check(report.files === expected, `${report.files} files exported`);
    break;
  }
  case "host-floor": {
    const encoder = new TextEncoder();
    Deno.mkdirSync(`${exportTo}/d`, { recursive: true });
    for (let item = 0; item < expected; item++) {
      const folder = `${exportTo}/d/${Math.floor(item / 100)}`;
      if (item % 100 === 0) Deno.mkdirSync(folder, { mode: 0o700 });
      const path = `${folder}/${item}.txt`;
      {
        using file = Deno.openSync(path, { write: true, createNew: true, mode: 0o600 });
        file.writeSync(encoder.encode(`line ${item}`));
      }
      Deno.chmodSync(path, 0o644);
    }
    break;
  }
  case "diff": {
    const diff = await host.diff(id, 1, expected);
    check(diff.added.length > 0, "nothing differs");
    break;
  }
  case "write": {
    const file = `${runs}/write-${crypto.randomUUID()}.sqlite`;
    prepared = () =>
      Promise.all(
        [file, `${file}-wal`, `${file}-shm`].map((path) => Deno.remove(path).catch(() => {})),
      ).then(() => {});
    const database = new DatabaseSync(file);
    database.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL");
    const seam = new NodeSqliteSeam(database);
    seam.transaction(() => Workspace.initialize(seam));
    const workspace = new Workspace(seam, { sha256: nativeSha256Hex });
    seam.transaction(() => {
      workspace.writeFileFrom("/big.bin", pieces(expected * 16));
      publishRoot(seam, nativeSha256Hex);
    });
    check(workspace.stat("/big.bin").size === expected * 1024 * 1024, "the file is short");
    database.close();
    break;
  }
  case "list": {
    const listing = await host.list();
    check(listing.runs.length === expected, `${listing.runs.length} runs listed`);
    break;
  }
  default:
    throw new Error(`Unknown scale operation ${op}`);
}
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const cpuMs = (cpu.user + cpu.system) / 1_000;
const peakRssBytes = await peakRss();
await prepared();
console.log(JSON.stringify({ ms, cpuMs, peakRssBytes }));
