/**
 * Colour for the diagnostics `xmd` writes on stderr: the `xmd:` prefix (red;
 * `xmd: warning:` yellow) and the status word of `workflow status: <status>`.
 * Only whole diagnostic lines are painted, so a document's own output (a
 * shell block's stderr) passes through as it was written.
 *
 * Invariant: colour is on only when asked (`--color=always`) or when stderr
 * is a terminal and `NO_COLOR` is unset (`--color=auto`, the default); with it
 * off, every byte is what it would be without this module.
 *
 * @module
 */
/** When to paint: `auto` (a terminal, no `NO_COLOR`), `always` or `never`. */
export type ColourMode = "auto" | "always" | "never";

const RESET = "\x1b[0m";
const STATUS: Record<string, string> = {
  completed: "\x1b[32m",
  suspended: "\x1b[33m",
  interrupted: "\x1b[33m",
  cancelled: "\x1b[2m",
  failed: "\x1b[31m",
};

/** Whether `--color=<value>` names a mode (the caller refuses any other value). */
export function isColourMode(value: string): value is ColourMode {
  return value === "auto" || value === "always" || value === "never";
}

/** Whether to paint stderr under `mode`. */
export function paintsStderr(
  mode: ColourMode,
  env: Record<string, string | undefined>,
  terminal: boolean,
): boolean {
  if (mode !== "auto") return mode === "always";
  return terminal && (env.NO_COLOR === undefined || env.NO_COLOR === "");
}

/** `write`, painting the diagnostic lines it is given. */
export function paintedStderr(write: (text: string) => void): (text: string) => void {
  return (text) => write(paint(text));
}

function paint(text: string): string {
  if (!text.endsWith("\n")) return text;
  if (text.startsWith("xmd: warning: ")) {
    return `\x1b[33mxmd: warning:${RESET} ${text.slice("xmd: warning: ".length)}`;
  }
  if (text.startsWith("xmd: ")) return `\x1b[1;31mxmd:${RESET} ${text.slice(5)}`;
  const status = /^workflow status: (\w+)\n$/.exec(text)?.[1];
  if (status !== undefined && STATUS[status]) {
    return `workflow status: ${STATUS[status]}${status}${RESET}\n`;
  }
  return text;
}
