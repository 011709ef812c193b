/**
 * Test support: what a terminal shows after it received some bytes, for
 * the control sequences `xmd` writes (carriage return, newline as a
 * terminal in cooked mode shows it, save and restore of the cursor, index
 * and reverse index, erase in line, colours). Any other control sequence
 * fails, so a test never passes on bytes this model does not understand.
 * The screen has no height limit: indexing past the last row adds one.
 *
 * @module
 */

/** The rows of the screen after `bytes`, without trailing spaces or trailing empty rows. */
export function finalScreen(bytes: string): string {
  const rows: string[][] = [[]];
  let row = 0;
  let column = 0;
  let saved: [number, number] = [0, 0];
  const down = () => {
    row++;
    if (row === rows.length) rows.push([]);
  };
  for (let at = 0; at < bytes.length; at++) {
    const char = bytes[at];
    if (char === "\n") {
      down();
      column = 0;
    } else if (char === "\r") {
      column = 0;
    } else if (char === "\x1b") {
      const rest = bytes.slice(at + 1);
      const csi = /^\[([0-9;]*)([A-Za-z])/.exec(rest);
      if (rest[0] === "7") saved = [row, column];
      else if (rest[0] === "8") [row, column] = saved;
      else if (rest[0] === "D") down();
      else if (rest[0] === "M") row = Math.max(0, row - 1);
      else if (csi?.[2] === "m") {
        // Colours do not change what the screen shows.
      } else if (csi?.[2] === "K" && (csi[1] === "" || csi[1] === "0")) {
        rows[row].length = Math.min(rows[row].length, column);
      } else if (csi?.[2] === "K" && csi[1] === "2") {
        rows[row] = [];
      } else {
        throw new Error(
          `The screen model does not know ${JSON.stringify(`\x1b${rest.slice(0, 8)}`)}`,
        );
      }
      at += csi ? csi[0].length : 1;
    } else if (char < " " && char !== "\t") {
      throw new Error(`The screen model does not know ${JSON.stringify(char)}`);
    } else {
      while (rows[row].length < column) rows[row].push(" ");
      rows[row][column++] = char;
    }
  }
  const lines = rows.map((cells) => cells.join("").trimEnd());
  while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  return lines.join("\n");
}

/** The texts a progress line drew in `bytes` (on the row below the cursor), in order, without colour. */
export function drawnLines(bytes: string): string[] {
  return bytes.split("\x1b7\x1bD\r").slice(1)
    .filter((rest) => !rest.startsWith("\x1b[2K"))
    .map((rest) =>
      rest.slice(0, rest.indexOf("\x1b[K")).replaceAll("\x1b[2m", "").replaceAll("\x1b[0m", "")
    );
}
