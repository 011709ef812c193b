/**
 * The progress line of a long exec block: while a block has run for two
 * seconds or more, one line on stderr says which block runs and for how long
 * (`exec release.md:17:1 · 12s`), redrawn every second and erased when the
 * block ends.
 *
 * Invariants:
 * - It is shown only when stderr is a terminal that moves its cursor (not
 *   `TERM=dumb`); otherwise {@linkcode execProgress} gives nothing and every
 *   byte `xmd` writes is what it would be without this module. Colour
 *   (`--color`, `NO_COLOR`) decides only whether the line is dimmed.
 * - The line lives on the row below the cursor and the cursor is put back
 *   where the output left it (save, index down, draw, restore), so it needs
 *   no knowledge of the column, and the document's output, which may stop
 *   mid-line, continues in place.
 * - It is erased before anything else is written to stdout or stderr, and
 *   when the block ends, so what the terminal shows afterwards is what it
 *   would show without it.
 *
 * @module
 */
/** The delay before a block's line is first drawn, and between redraws. */
const FIRST_DRAW_MS = 2_000;
const REDRAW_MS = 1_000;

const SAVE = "\x1b7";
const RESTORE = "\x1b8";
/** Index: down one row keeping the column, scrolling at the bottom. */
const DOWN = "\x1bD";
/** Reverse index: up one row keeping the column. */
const UP = "\x1bM";
const CLEAR_LINE = "\x1b[2K";

/** Calls `tick` after the first delay and then at each redraw; returns how to stop. */
export type Schedule = (tick: () => void) => () => void;

/** Real timers. */
const timers: Schedule = (tick) => {
  let interval: ReturnType<typeof setInterval> | undefined;
  const first = setTimeout(() => {
    tick();
    interval = setInterval(tick, REDRAW_MS);
  }, FIRST_DRAW_MS);
  return () => {
    clearTimeout(first);
    clearInterval(interval);
  };
};

/** The terminal's width, when it tells it. */
function terminalColumns(): number | undefined {
  try {
    return Deno.consoleSize().columns || undefined;
  } catch {
    return undefined;
  }
}

/** What the progress line needs of the process. */
export interface ProgressOptions {
  /** Dims the line (colour is on). */
  dim: boolean;
  /** The clock, in milliseconds (default `Date.now`). */
  now?: () => number;
  /** When to draw (default: after two seconds, then every second). */
  schedule?: Schedule;
  /** The terminal's width, to keep the line on one row (default: the console's). */
  columns?: () => number | undefined;
}

/** The progress line over one terminal. */
export class ExecProgress {
  readonly #write: (text: string) => void;
  readonly #dim: boolean;
  readonly #now: () => number;
  readonly #schedule: Schedule;
  readonly #columns: () => number | undefined;
  #shown = false;
  #block: { label: string; started: number; stop: () => void } | undefined;

  /** Draws through `write`, the terminal's stderr. */
  constructor(write: (text: string) => void, options: ProgressOptions) {
    this.#write = write;
    this.#dim = options.dim;
    this.#now = options.now ?? Date.now;
    this.#schedule = options.schedule ?? timers;
    this.#columns = options.columns ?? terminalColumns;
  }

  /** Tells that the block at `label` (`release.md:17:1`) starts; returns its end. */
  start(label: string): () => void {
    this.#block?.stop();
    const block = { label, started: this.#now(), stop: () => {} };
    block.stop = this.#schedule(() => this.#draw());
    this.#block = block;
    return () => {
      block.stop();
      if (this.#block !== block) return;
      this.#erase();
      this.#block = undefined;
    };
  }

  /** `write`, erasing the line first; it is drawn again at the next tick. */
  follow(write: (text: string) => void): (text: string) => void {
    return (text) => {
      if (text !== "") this.#erase();
      write(text);
    };
  }

  #draw(): void {
    if (this.#block === undefined) return;
    const seconds = Math.floor((this.#now() - this.#block.started) / 1000);
    let text = `exec ${this.#block.label} · ${duration(seconds)}`;
    // A line wider than the terminal would wrap onto a row this module does not erase.
    const columns = this.#columns();
    if (columns !== undefined && text.length > columns - 1) {
      text = columns > 8 ? `exec …${text.slice(text.length - (columns - 7))}` : "";
    }
    const painted = this.#dim ? `\x1b[2m${text}\x1b[0m` : text;
    // Down and up first, so that at the bottom the screen scrolls before the cursor is saved.
    this.#write(`${DOWN}${UP}${SAVE}${DOWN}\r${painted}\x1b[K${RESTORE}`);
    this.#shown = true;
  }

  #erase(): void {
    if (!this.#shown) return;
    this.#write(`${SAVE}${DOWN}${CLEAR_LINE}${RESTORE}`);
    this.#shown = false;
  }
}

/** `12s`, `3m 05s`. */
function duration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`;
}

/**
 * The progress line for a process whose stderr is `terminal` (a terminal, by
 * `env.TERM` one that moves its cursor), or undefined when none is shown.
 */
export function execProgress(
  write: (text: string) => void,
  terminal: boolean,
  env: Record<string, string | undefined>,
  dim: boolean,
): ExecProgress | undefined {
  if (!terminal || env.TERM === "dumb") return undefined;
  return new ExecProgress(write, { dim });
}
