/**
 * `@xmd/workflow/deno`: the local provider. One SQLite database per run
 * (`node:sqlite`, WAL with `synchronous=FULL` while written, one file at
 * rest, read-only connections for reading) under a runs folder, an OS
 * executor lock per run, Worker Shell for exec blocks, and the
 * {@linkcode LocalWorkflowHost} over them. And the remote host's runner,
 * {@linkcode RemoteWorkflowHost}: the same `WorkflowHost` over runs kept in
 * Durable Objects (`@xmd/workflow/cloudflare`), executed here on a working
 * copy, every change committed over one WebSocket.
 *
 * A run starts in four steps, each refusing before anything is written:
 * read and check the document and its components (`loadProgramFile` from
 * `@xmd/core/deno`, or `loadProgram` from `@xmd/core` for text in memory);
 * refuse what a workflow cannot run (`checkWorkflowSupport`; `host.start`
 * refuses it too, but only once the props are resolved); resolve the props
 * (`resolveProps`); then `host.start`. A run that asks a question ends
 * `suspended`; `host.answer` stores the answer and `host.resume` continues
 * from the question, without running anything before it again.
 *
 * @example Starting a run, answering its question and resuming it
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveProps } from "@xmd/core";
 * import { loadProgramFile } from "@xmd/core/deno";
 * import { checkWorkflowSupport, type ExecutionIo } from "@xmd/workflow";
 * import { LocalWorkflowHost } from "@xmd/workflow/deno";
 *
 * const folder = await Deno.makeTempDir();
 * await Deno.writeTextFile(
 *   `${folder}/release.md`,
 *   [
 *     "---",
 *     "props:",
 *     "  version: { type: string }",
 *     "required: [version]",
 *     "---",
 *     '<File path="notes.txt">Release {props.version}</File>',
 *     "",
 *     '<Elicit as="ship" schema={{ type: "boolean" }}>Ship {props.version}?</Elicit>',
 *     "",
 *     "<If condition={ship}>Shipping {props.version}.</If>",
 *     "",
 *   ].join("\n"),
 * );
 *
 * const program = await loadProgramFile("release.md", { cwd: folder });
 * checkWorkflowSupport(program);
 * const props = resolveProps(program.root.props, {
 *   options: new Map([["props-version", ["1.2.0"]]]),
 *   env: {},
 * });
 *
 * const host = new LocalWorkflowHost(`${folder}/runs`);
 * let output = "";
 * const io: ExecutionIo = {
 *   stdout: (text) => output += text,
 *   stderr: () => {},
 *   onRun: () => {},
 *   signal: new AbortController().signal,
 * };
 * const started = await host.start({ id: "release-1", program, props }, io);
 * assert.equal(started.status, "suspended");
 * assert.equal(started.pendingSuspension?.question, "Ship 1.2.0?");
 *
 * await host.answer("release-1", started.pendingSuspension.suspensionId, true, true);
 * const resumed = await host.resume("release-1", io);
 * assert.equal(resumed.status, "completed");
 * assert.match(output, /Shipping 1\.2\.0\./);
 *
 * // The run's files live in its Workspace, not in the folder it started from.
 * const exported = `${folder}/exported`;
 * await host.export("release-1", null, exported);
 * assert.equal(await Deno.readTextFile(`${exported}/notes.txt`), "Release 1.2.0");
 * await Deno.remove(folder, { recursive: true });
 * ```
 *
 * @module
 */
export {
  type LocalStartOptions,
  LocalWorkflowHost,
  type LocalWorkflowHostOptions,
} from "./src/deno/local-workflow-host.ts";
export type { WorkerShellOptions } from "./src/deno/worker-shell.ts";
export {
  RemoteWorkflowHost,
  type RemoteWorkflowHostOptions,
} from "./src/deno/remote-workflow-host.ts";
export {
  RemoteConnectionLostError,
  RemoteConnectionRefusedError,
  RemoteUnsupportedError,
} from "./src/remote/remote-refusal.ts";
