/**
 * A new run's sources are parsed once (WF-100): the start that retains them
 * executes the program it loaded them into, and does not read them back
 * from the run database or parse them again; an execution given no program
 * (a resume, a replay) loads the retained sources, as before.
 * Real run databases in temp dirs.
 */
import assert from "node:assert/strict";
import { createSecretGate, loadProgram } from "@xmd/core";
import type { RunStore } from "../store/run-store.ts";
import { withCreatedRun } from "../deno/_test-executor-run.ts";
import { nativeSha256Hex } from "../deno/native-sha256.ts";
import { executeRun } from "./execute-run.ts";

const DOCUMENT = '<File path="a.txt">alpha</File>\n\n<File path="a.txt" as="a" />\n\nread {a}\n';

/** `store`, counting the calls of its `sources()` (what loading the retained program reads). */
function counting(store: RunStore): { store: RunStore; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      if (key === "sources") return (...args: unknown[]) => (reads++, value.apply(target, args));
      return value.bind(target);
    },
  });
  return { store: counted, reads: () => reads };
}

for (const given of [true, false]) {
  Deno.test(`WF-100: an execution ${given ? "given the program it retained does not read or parse its sources again" : "given no program loads the retained sources"}, with the same output`, async () => {
    const program = await loadProgram(
      { file: "doc.md", text: DOCUMENT },
      () => Promise.resolve(undefined),
    );
    await withCreatedRun(DOCUMENT, async ({ store, execution }) => {
      const { store: watched, reads } = counting(store);
      let out = "";
      const result = await executeRun({
        store: watched,
        execution,
        sha256: nativeSha256Hex,
        gate: createSecretGate(),
        stdout: (text) => out += text,
        stderr: () => {},
        signal: new AbortController().signal,
        ...(given ? { program } : {}),
      });
      assert.equal(result.status, "completed");
      assert.equal(out, "read alpha\n");
      assert.equal(reads(), given ? 0 : 1);
    });
  });
}
