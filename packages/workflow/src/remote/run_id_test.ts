import assert from "node:assert/strict";
import { checkRunId } from "../execution/run-id.ts";
import { issueRunId } from "./run-id.ts";

Deno.test("RM-70: an issue's run id is lowercase unpadded base32 of SHA-256 over the host and node id (the vector)", async () => {
  assert.equal(
    await issueRunId("github.com", "I_kwDOABCDEF5Abc"),
    "upiybqglt3mnqvtvzuxuvh2q3pmdmsjiyrs4iem65wrwuu7zbdbq",
  );
});

Deno.test("RM-70: the run id depends on the host and the node id only, and always fits the run id grammar", async () => {
  const a = await issueRunId("github.com", "I_kwDOABCDEF5Abc");
  assert.notEqual(await issueRunId("github.example.com", "I_kwDOABCDEF5Abc"), a);
  assert.notEqual(await issueRunId("github.com", "I_kwDOABCDEF5Abd"), a);
  // The separator is part of the hash: moving it gives another id.
  assert.notEqual(await issueRunId("github.co", "mI_kwDOABCDEF5Abc"), a);
  for (const id of [a, await issueRunId("", ""), await issueRunId("h", "x".repeat(10_000))]) {
    assert.match(id, /^[a-z2-7]{52}$/);
    checkRunId(id);
  }
});
