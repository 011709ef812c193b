/**
 * One timed operation of the scale bench, in a process of its own so its peak
 * memory is its own: `deno run -A bench/_scale-op.ts <op> <runs> <id> <arg>`.
 * It prints one JSON line `{ms, peakRssBytes}`: the operation's wall time
 * (the process's start-up excluded) and the process's high-water mark of
 * resident memory (`VmHWM`, Linux; null elsewhere).
 *
 * Operations, each through `LocalWorkflowHost` as the CLI calls it:
 * - `resume`: the run (a copy, made before the clock starts) is answered and
 *   resumed to completion: verification, replay of every event, one effect.
 * - `history`: every event read, serialized as `history --json` prints it.
 * - `export`: the current root written into a new folder.
 * - `diff`: the roots after event 1 and after event `<arg>`.
 * - `list`: every run of the folder.
 *
 * Invariant: each operation is checked to have done its work (a completed
 * run, the number of events, files or runs expected), so the bench never
 * times an error path.
 *
 * @module
 */
import { LocalWorkflowHost } from "@xmd/workflow/deno";

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
const exportTo = `${await Deno.makeTempDir()}/export`;

const started = performance.now();
switch (op) {
  case "resume": {
    const report = await host.resume(id, quiet);
    check(report.status === "completed", `the run ended ${report.status}`);
    break;
  }
  case "history": {
    const history = await host.history(id);
    const json = JSON.stringify(history);
    check(history.events.length === expected && json.length > 0, "events are missing");
    break;
  }
  case "export": {
    const report = await host.export(id, null, exportTo);
    check(report.files === expected, `${report.files} files exported`);
    break;
  }
  case "diff": {
    const diff = await host.diff(id, 1, expected);
    check(diff.added.length > 0, "nothing differs");
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
const peakRssBytes = await peakRss();
await prepared();
await Deno.remove(exportTo.slice(0, exportTo.lastIndexOf("/")), { recursive: true });
console.log(JSON.stringify({ ms, peakRssBytes }));
