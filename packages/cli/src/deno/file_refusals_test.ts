/**
 * One document, two modes: a filesystem refusal reads the same under
 * `xmd run` (the host's files) and `xmd workflow start` (a Workspace), and is
 * journaled as the same error, so a document means the same in both.
 */
import assert from "node:assert/strict";
import type { JournalEvent } from "@xmd/core";
import { runXmd } from "./_run-xmd.ts";
import { testFolder } from "../../../core/src/deno/_test-temp-folder.ts";

/** Each document fails at its last element; the expected `xmd:` line is the same in both modes. */
const CASES: { name: string; doc: string; message: string }[] = [
  {
    name: "a missing file",
    doc: '<File path="files/missing.txt" as="x" />\n',
    message: 'doc.md:1:1: Cannot read "files/missing.txt": no such file (ENOENT)',
  },
  {
    name: "a missing file in an existing folder",
    doc: '<File path="files/a.txt">a</File>\n<File path="files/missing.txt" as="x" />\n',
    message: 'doc.md:2:1: Cannot read "files/missing.txt": no such file (ENOENT)',
  },
  {
    name: "a folder read as a file",
    doc: '<File path="files/a.txt">a</File>\n<File path="files" as="x" />\n',
    message: 'doc.md:2:1: Cannot read "files": it is a directory (EISDIR)',
  },
  {
    name: "a read under a file",
    doc: '<File path="f">x</File>\n<File path="f/g" as="x" />\n',
    message: 'doc.md:2:1: Cannot read "f/g": a parent is not a directory (ENOTDIR)',
  },
  {
    name: "a write under a file",
    doc: '<File path="f">x</File>\n<File path="f/g">y</File>\n',
    message: 'doc.md:2:1: Cannot write "f/g": a parent is not a directory (ENOTDIR)',
  },
  {
    name: "a write two levels under a file",
    doc: '<File path="f">x</File>\n<File path="f/g/h">y</File>\n',
    message: 'doc.md:2:1: Cannot write "f/g/h": a parent is not a directory (ENOTDIR)',
  },
  {
    name: "a write onto a folder",
    doc: '<File path="d/a">x</File>\n<File path="d">y</File>\n',
    message: 'doc.md:2:1: Cannot write "d": it is a directory (EISDIR)',
  },
  {
    name: "a listing of a missing folder",
    doc: '<Dir path="nowhere"><Glob include="*" as="x" /></Dir>\n',
    message: 'doc.md:1:21: Cannot list "nowhere": no such directory (ENOENT)',
  },
  {
    name: "a listing of a file",
    doc: '<File path="f">x</File>\n<Dir path="f"><Glob include="*" as="x" /></Dir>\n',
    message: 'doc.md:2:15: Cannot list "f": it is not a directory (ENOTDIR)',
  },
];

/** The error the journal recorded for the failing effect. */
function lastError(events: JournalEvent[]): unknown {
  const failed = events.filter((event) => event.type === "yield" && event.result.status === "err");
  assert.equal(failed.length, 1, JSON.stringify(events));
  return (failed[0] as Extract<JournalEvent, { type: "yield" }>).result;
}

for (const { name, doc, message } of CASES) {
  Deno.test(`MDX-25: ${name} is the same refusal, journaled the same, under xmd run and in a workflow`, async () => {
    const cwd = await testFolder("xmd-refusals-");
    await Deno.writeTextFile(`${cwd}/doc.md`, doc);
    const run = await runXmd(["run", "--journal=trace.jsonl", "doc.md"], { cwd });
    const env = { XMD_WORKFLOW_RUNS: `${cwd}/runs` };
    const workflow = await runXmd(["workflow", "start", "--id=w", "doc.md"], { cwd, env });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stderr, `xmd: ${message}\n`);
    assert.equal(workflow.code, 1, workflow.stderr);
    assert.ok(workflow.stderr.includes(`\nxmd: ${message}\n`), workflow.stderr);
    const history = await runXmd(["workflow", "history", "w", "--json"], { cwd, env });
    const journal = (await Deno.readTextFile(`${cwd}/trace.jsonl`)).trim().split("\n")
      .map((line) => JSON.parse(line) as JournalEvent);
    assert.deepEqual(lastError(JSON.parse(history.stdout).events), lastError(journal));
  });
}
