import assert from "node:assert/strict";
import { formatPosition } from "../document/source-position.ts";
import type { ShellProvider } from "./providers.ts";
import { observedShell } from "./observed-shell.ts";
import { createWorld, load, refusingProviders, run } from "./_test-providers.ts";

const DOC = "before\n\n```sh exec\nfirst\n```\n\nbetween\n\n```bash exec\nsecond\n```\n\nafter\n";

/** Runs DOC with `shell` observed, returning what the observer and stdout saw, in order. */
async function observe(shell: ShellProvider, recorded?: Parameters<typeof run>[2]) {
  const seen: string[] = [];
  const chunks: string[] = [];
  const world = createWorld();
  const record = await run(await load(DOC), {
    ...world.providers,
    shell: observedShell(shell, (position) => {
      seen.push(`start ${formatPosition(position)} after ${JSON.stringify(chunks.join(""))}`);
      return () => seen.push(`end after ${JSON.stringify(chunks.join(""))}`);
    }),
  }, { ...recorded, chunks });
  return { seen, record };
}

Deno.test("MDX-76: each shell request names its block's position, and the observer sees each block start and end before what follows it is written", async () => {
  const world = createWorld({
    shell: { first: { stdout: ["one\n"] }, second: { stdout: ["two\n"] } },
  });
  const { seen, record } = await observe(world.shell);
  assert.deepEqual(world.shell.requests.map((request) => request.position), [
    { file: "doc.md", line: 3, column: 1 },
    { file: "doc.md", line: 9, column: 1 },
  ]);
  assert.deepEqual(seen, [
    'start doc.md:3:1 after "before"',
    // A block's line ends as it is written; the blank line after it waits for what follows.
    'end after "before\\n\\none\\n"',
    'start doc.md:9:1 after "before\\n\\none\\n\\nbetween"',
    'end after "before\\n\\none\\n\\nbetween\\n\\ntwo\\n"',
  ]);
  assert.equal(record.stdout, "before\n\none\n\nbetween\n\ntwo\n\nafter\n");
});

Deno.test("MDX-76: a block that fails, or a shell that cannot run it, still ends; a replayed block is not observed; disposal reaches the shell", async () => {
  const failing = createWorld({ shell: { first: { exitCode: 3 } } });
  const failed = await observe(failing.shell);
  assert.deepEqual(failed.seen, ['start doc.md:3:1 after "before"', 'end after "before"']);
  assert.equal(failed.record.outcome.status, "failed");

  const broken: ShellProvider = { run: () => Promise.reject(new Error("no shell here")) };
  const lost: string[] = [];
  await assert.rejects(
    run(await load(DOC), {
      ...createWorld().providers,
      shell: observedShell(broken, () => () => lost.push("end")),
    }),
    /no shell here/,
  );
  assert.deepEqual(lost, ["end"]);

  // Disposing the observed shell disposes the one it observes.
  let disposed = 0;
  const kept = observedShell(
    { ...broken, [Symbol.asyncDispose]: () => Promise.resolve(void disposed++) },
    () => () => {},
  );
  await kept[Symbol.asyncDispose]();
  assert.equal(disposed, 1);

  const world = createWorld({ shell: { first: {}, second: {} } });
  const { record } = await observe(world.shell);
  const replay = await observe(refusingProviders().providers.shell, { recorded: record.events });
  assert.deepEqual(replay.seen, []);
  assert.equal(replay.record.outcome.status, "completed");
});
