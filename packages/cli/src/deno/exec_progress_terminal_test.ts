/**
 * The progress line of a long exec block as a person at a terminal meets it:
 * the real `xmd` on a pseudo-terminal (script(1)) that understands cursor
 * movement (`TERM=xterm-256color`), and the same documents with stdout in a
 * file, on a pipe and on a dumb terminal. Contents are asserted, not times:
 * each block sleeps long enough for the line to be drawn.
 */
import assert from "node:assert/strict";
import { runXmd } from "./_run-xmd.ts";
import { XmdTerminal } from "./_test-pty.ts";
import { drawnLines, finalScreen } from "./_test-screen.ts";
import { testFolder } from "../../../core/src/deno/_test-temp-folder.ts";

const RELEASE = `Releasing

\`\`\`sh exec
echo building
sleep 3
echo built
\`\`\`

Released.
`;

/** What `xmd run docs/release.md` prints. */
const RENDERED = "Releasing\n\nbuilding\nbuilt\n\nReleased.\n";

/** Asserts that the progress line was drawn on `screen`, each time naming the block at `label`. */
function assertDrawn(screen: string, label: string): void {
  const lines = drawnLines(screen);
  assert.ok(lines.length > 0, `No progress line was drawn:\n${JSON.stringify(screen)}`);
  for (const line of lines) {
    assert.match(line, new RegExp(`^exec ${RegExp.escape(label)} · \\d+s$`));
  }
}

const TERMINAL = { TERM: "xterm-256color" };

async function project(document = RELEASE): Promise<string> {
  const cwd = await testFolder("xmd-progress-");
  await Deno.mkdir(`${cwd}/docs`);
  await Deno.writeTextFile(`${cwd}/docs/release.md`, document);
  return cwd;
}

Deno.test("MDX-75: on a terminal, a long block shows which block runs, then the line is gone", async () => {
  const cwd = await project();
  // NO_COLOR (set by the test environment) removes colour only: the line still shows.
  const { code, screen } = await XmdTerminal.start(["run", "docs/release.md"], {
    cwd,
    env: TERMINAL,
  }).exit();
  assert.equal(code, 0, screen);
  assertDrawn(screen, "docs/release.md:3:1");
  assert.ok(!screen.includes("\x1b[2m"));
  // Drawn after the block's first output and erased before its next.
  const drawn = screen.indexOf("\x1b7\x1bD\rexec ");
  assert.ok(screen.indexOf("building") < drawn && drawn < screen.indexOf("built\n"));
  assert.equal(finalScreen(screen), finalScreen(RENDERED));
});

Deno.test("MDX-75: with stdout in a file the line shows on the terminal and the file holds only the document", async () => {
  const cwd = await project();
  const { code, screen } = await XmdTerminal.start(
    ["--color=always", "run", "docs/release.md"],
    { cwd, env: TERMINAL, stdout: `${cwd}/out.txt` },
  ).exit();
  assert.equal(code, 0, screen);
  // Colour dims it.
  assertDrawn(screen, "docs/release.md:3:1");
  assert.ok(screen.includes("\r\x1b[2mexec docs/release.md:3:1 · "));
  assert.equal(finalScreen(screen), "");
  assert.equal(await Deno.readTextFile(`${cwd}/out.txt`), RENDERED);
});

Deno.test("MDX-77: on a pipe, even with --color=always, and on a dumb terminal, nothing of the line is written", async () => {
  const cwd = await project();
  const piped = await runXmd(["--color=always", "run", "docs/release.md"], { cwd, env: TERMINAL });
  assert.deepEqual(piped, { code: 0, stdout: RENDERED, stderr: "" });
  const dumb = await XmdTerminal.start(["run", "docs/release.md"], {
    cwd,
    env: { TERM: "dumb" },
  }).exit();
  assert.deepEqual(dumb, { code: 0, screen: RENDERED });
});

const WORKFLOW = `Building

\`\`\`sh exec
sleep 3
echo built
\`\`\`

<Elicit as="ok" schema={{ type: "boolean" }}>Publish?</Elicit>

\`\`\`sh exec
sleep 3
echo published {ok}
\`\`\`
`;

Deno.test("WF-70: workflow start and resume show the line for the blocks they run, never for a replayed one", async () => {
  const cwd = await project(WORKFLOW);
  const env = { ...TERMINAL, XMD_WORKFLOW_RUNS: `${cwd}/runs` };
  const started = await XmdTerminal.start(
    ["workflow", "start", "--id", "r1", "docs/release.md"],
    { cwd, env },
  ).exit();
  assert.equal(started.code, 2, started.screen);
  assertDrawn(started.screen, "docs/release.md:3:1");
  const startScreen = finalScreen(started.screen);
  assert.match(startScreen, /^workflow run: r1\nBuilding\n\nbuilt\nworkflow status: suspended\n/);
  assert.doesNotMatch(startScreen, /exec /);

  const answered = await runXmd(["workflow", "answer", "r1", "ok-3", "true"], { cwd, env });
  assert.equal(answered.code, 0, answered.stderr);
  const resumed = await XmdTerminal.start(["workflow", "resume", "r1"], { cwd, env }).exit();
  assert.equal(resumed.code, 0, resumed.screen);
  // Resume names the document by its label (MDX-62); the first block is replayed, not run.
  assertDrawn(resumed.screen, "release.md:10:1");
  assert.equal(
    finalScreen(resumed.screen),
    "workflow run: r1\nBuilding\n\nbuilt\n\n\npublished true\nworkflow status: completed",
  );
});
