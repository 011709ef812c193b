/**
 * A runner process for tests: the real `RemoteWorkflowHost` in its own
 * process (so a test can SIGKILL it) with no CLI around it: the kill matrix
 * runs below the CLI (the CLI's remote tests are in
 * `packages/cli/src/deno/workflow_remote_test.ts`). The document's output
 * goes to stdout; the report to stderr as
 * one `report: <json>` line; a refusal as one `xmd: <message>` line.
 *
 * `deno run -A _test-remote-runner.ts <base-url> start <document> <id> [<cwd>]`
 * `… resume <id>` · `… answer <id> <suspension-id> <json>`
 *
 * Exit codes: 0 completed, 2 suspended, 3 another status, 75 the connection
 * was lost (run again), 1 a refusal.
 *
 * @module
 */
import { loadProgramFile } from "@xmd/core/deno";
import { RemoteConnectionLostError } from "../remote/remote-refusal.ts";
import type { ExecutionIo, ExecutionReport } from "../contracts/workflow-host.ts";
import { RemoteWorkflowHost } from "./remote-workflow-host.ts";

const [base, command, ...rest] = Deno.args;
const host = new RemoteWorkflowHost({ url: (id) => `${base}?run=${encodeURIComponent(id)}` });
const utf8 = new TextEncoder();
const io: ExecutionIo = {
  stdout: (text) => Deno.stdout.writeSync(utf8.encode(text)),
  stderr: (text) => Deno.stderr.writeSync(utf8.encode(text)),
  onRun: () => {},
  signal: new AbortController().signal,
};

try {
  let report: ExecutionReport | undefined;
  if (command === "start") {
    const [document, id, cwd] = rest;
    const program = await loadProgramFile(document, { cwd });
    report = await host.start({ id, program, props: {} }, io);
  } else if (command === "resume") {
    report = await host.resume(rest[0], io);
  } else if (command === "answer") {
    await host.answer(rest[0], rest[1], JSON.parse(rest[2]), true);
  } else {
    throw new Error(`unknown command ${command}`);
  }
  if (report) console.error(`report: ${JSON.stringify(report)}`);
  Deno.exit(
    !report || report.status === "completed" ? 0 : report.status === "suspended" ? 2 : 3,
  );
} catch (error) {
  console.error(`xmd: ${error instanceof Error ? error.message : String(error)}`);
  Deno.exit(error instanceof RemoteConnectionLostError ? error.exitCode : 1);
}
