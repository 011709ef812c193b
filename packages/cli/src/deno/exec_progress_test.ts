import assert from "node:assert/strict";
import { drawnLines, finalScreen } from "./_test-screen.ts";
import { ExecProgress, execProgress } from "./exec-progress.ts";

/** A progress line over one recorded terminal, with a clock and ticks the test moves. */
function terminal(options: { dim?: boolean; columns?: number } = {}) {
  let bytes = "";
  let now = 0;
  const ticks = new Set<() => void>();
  const progress = new ExecProgress((text) => bytes += text, {
    dim: options.dim ?? false,
    now: () => now,
    schedule: (tick) => {
      ticks.add(tick);
      return () => ticks.delete(tick);
    },
    columns: () => options.columns,
  });
  const stdout = progress.follow((text) => bytes += text);
  const stderr = progress.follow((text) => bytes += text);
  return {
    progress,
    stdout,
    stderr,
    /** Moves the clock to `seconds` and lets the line redraw. */
    at(seconds: number) {
      now = seconds * 1000;
      for (const tick of ticks) tick();
    },
    get bytes() {
      return bytes;
    },
    get ticking() {
      return ticks.size;
    },
  };
}

Deno.test("MDX-75: the line names the block and its time below the text, and the screen after the block is the screen without it", () => {
  const term = terminal();
  term.stdout("Releasing");
  const end = term.progress.start("docs/release.md:17:1");
  term.at(2);
  term.at(3);
  term.stderr("warning from the block\n");
  term.at(75);
  end();
  term.stdout("\n\nReleased.\n");
  assert.deepEqual(drawnLines(term.bytes), [
    "exec docs/release.md:17:1 · 2s",
    "exec docs/release.md:17:1 · 3s",
    "exec docs/release.md:17:1 · 1m 15s",
  ]);
  assert.equal(term.ticking, 0);
  assert.equal(finalScreen(term.bytes), "Releasingwarning from the block\n\n\nReleased.");
  // The same writes without a progress line show the same screen.
  assert.equal(
    finalScreen("Releasingwarning from the block\n\n\nReleased.\n"),
    finalScreen(term.bytes),
  );
});

Deno.test("MDX-75: while the line shows, output erases it first; a block that ends early never draws it", () => {
  const term = terminal();
  const end = term.progress.start("a.md:3:1");
  term.at(2);
  const drawn = term.bytes.length;
  term.stdout("x");
  // The erase comes before the text, and the cursor is where the text left it.
  assert.equal(term.bytes.slice(drawn), "\x1b7\x1bD\x1b[2K\x1b8x");
  end();
  assert.equal(term.bytes.slice(drawn + "\x1b7\x1bD\x1b[2K\x1b8x".length), "");

  const quick = terminal();
  quick.progress.start("a.md:3:1")();
  quick.stdout("done\n");
  assert.equal(quick.bytes, "done\n");
});

Deno.test("MDX-77: with colour the line is dimmed; a narrow terminal keeps it on one row", () => {
  const dim = terminal({ dim: true });
  dim.progress.start("a.md:3:1");
  dim.at(4);
  assert.ok(dim.bytes.includes("\r\x1b[2mexec a.md:3:1 · 4s\x1b[0m\x1b[K"));

  const narrow = terminal({ columns: 20 });
  narrow.progress.start("very/long/path/to/release.md:17:1");
  narrow.at(2);
  const [line] = drawnLines(narrow.bytes);
  assert.equal(line, "exec ….md:17:1 · 2s");
  assert.ok(line.length < 20);
});

Deno.test("MDX-77: no progress line unless stderr is a terminal that moves its cursor", () => {
  const write = () => {};
  assert.equal(execProgress(write, false, {}, false), undefined);
  assert.equal(execProgress(write, true, { TERM: "dumb" }, false), undefined);
  assert.ok(execProgress(write, true, { TERM: "xterm-256color", NO_COLOR: "1" }, false));
  assert.ok(execProgress(write, true, {}, false));
});
