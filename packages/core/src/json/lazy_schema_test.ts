/**
 * The journal's schemas are built with `zod/mini` (MDX-132), which installs
 * no locale and no cycle memoizer; `lazySchema` installs classic zod's, so a
 * process that loads no classic zod (`xmd workflow list`) refuses a value
 * with the same issues and English messages as one that does.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import * as classic from "zod";
import { JournalEventSchema } from "../../protocol.ts";

const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));
const PROTOCOL = new URL("../../protocol.ts", import.meta.url).href;

/** Events the journal's schema refuses, each for one reason. */
const REFUSED: unknown[] = [
  { type: "close", coroutineId: 5, result: { status: "ok", value: null } },
  { type: "close", coroutineId: "main", result: { status: "ok", value: null } },
  { type: "close", coroutineId: "root", result: { status: "ok" } },
  { type: "close", coroutineId: "root", result: { status: "err", error: { name: "" } } },
  { type: "close", coroutineId: "root", result: { status: "cancelled" }, extra: 1 },
  { type: "yield", coroutineId: "root", result: { status: "cancelled" } },
];

Deno.test("MDX-132: the journal's schema refuses with English messages in a process that loads no classic zod, as in one that does", async () => {
  // A fresh process that imports the protocol alone: zod/mini and its core, no classic zod.
  const script = `
    const { JournalEventSchema } = await import(${JSON.stringify(PROTOCOL)});
    const refused = ${JSON.stringify(REFUSED)};
    console.log(JSON.stringify(refused.map((value) => JournalEventSchema.safeParse(value).error?.issues)));
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", `--config=${CONFIG}`, script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const alone = JSON.parse(new TextDecoder().decode(output.stdout));

  // This process has loaded classic zod, which installs its defaults on its first schema.
  classic.string();
  const here = JSON.parse(
    JSON.stringify(REFUSED.map((value) => {
      const result = JournalEventSchema.safeParse(value);
      return result.success ? undefined : result.error.issues;
    })),
  );
  assert.deepEqual(alone, here);
  assert.equal(alone.length, REFUSED.length);
  for (const issues of alone) {
    assert.ok(issues.length > 0);
    for (const issue of issues) assert.match(issue.message, /^(Invalid|Unrecognized|Too small)/);
  }
  assert.equal(alone[0][0].message, "Invalid input: expected string, received number");
});
