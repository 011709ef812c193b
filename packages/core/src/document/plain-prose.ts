/**
 * Plain prose parsed short. The markdown parser's cost is mostly per line
 * (container and paragraph-continuation checks try every block construct at
 * each line start) and then per character, so a document of wrapped prose
 * costs far more than what it holds. A line of plain words (ASCII letters,
 * digits, spaces and `.,;:?!'"()-`, starting with a letter, not ending in a
 * space) outside the frontmatter and fenced code is shortened before
 * parsing: the line break between two such lines becomes a space, and after
 * its first word each run of words and single spaces becomes one letter.
 * The tree is then mapped back onto the document as written.
 *
 * Invariant: {@linkcode parsePlainProseShort} returns the tree `parse(text)`
 * returns. Every edit stands one character for a known original range, so
 * every offset maps back exactly; lines and columns, in the markdown tree,
 * its attributes and the expressions' trees, are recomputed from the mapped
 * offsets against the document's own lines. The shortened parse is kept only
 * when it proves it changed nothing but text: every edit lies inside a
 * `text` node whose value is exactly its source slice, and which then gets
 * the original slice as its value; and, when runs were shortened, the
 * document defines no link reference (whose labels compare words). Otherwise
 * (an edit inside code, frontmatter, an expression, a tag or a link title,
 * or a parse that throws) the document is parsed as written, so every
 * diagnostic is that of the parse as written.
 *
 * Why this equals the parse as written: an edited line holds no character of
 * an inline construct and keeps its first word, so it starts and is
 * classified as before; a line starting with a letter cannot interrupt a
 * paragraph (`import` and `export` never do), so a joined pair was one
 * paragraph's soft break; and an edit keeps the character classes at both of
 * its ends (a space for a line break, a letter for a run starting and ending
 * with one), which is all that emphasis and the line's neighbours look at.
 *
 * @module
 */
import type { Root } from "mdast";

const PLAIN_LINE = /^[A-Za-z](?:[A-Za-z0-9 .,;:?!'"()-]*[A-Za-z0-9.,;:?!'"()-])?$/;
/** After a plain line's first word: words joined by single spaces, shortened to one letter. */
const RUN = /[A-Za-z0-9]+(?: [A-Za-z0-9]+)+|[A-Za-z0-9]{2,}/g;
const FIRST_WORD = /^[A-Za-z]+/;
/** A fenced code block's opening or closing line, possibly inside quotes or a list item. */
const FENCE = /^[ \t>]*(?:[-*+][ \t]+|\d+[.)][ \t]+)*[ \t]*(`{3,}|~{3,})/;
/** A line that may start a link reference definition. */
const DEFINITION = /^[ \t>]*\[[^\]\n]*\]:/m;
const LINE_ENDING = /\r\n|\r|\n/g;

/** One character of the shortened text standing for `length` characters of the original at `from`. */
export interface Edit {
  /** Its offset in the shortened text. */
  at: number;
  /** The offset of what it stands for in the original. */
  from: number;
  /** How many characters of the original it stands for (1 for a line break). */
  length: number;
}

/** The document with its plain prose shortened, and each edit, ascending. */
export interface ShortText {
  /** The shortened document. */
  text: string;
  /** Its edits, in ascending order. */
  edits: Edit[];
}

/** Shortens the plain prose of `text` (see the module doc). */
export function shortenPlainProse(text: string): ShortText {
  const lines = text.split("\n");
  const shortenRuns = !DEFINITION.test(text);
  const pieces: string[] = [];
  const edits: Edit[] = [];
  let offset = 0; // in the original
  let shift = 0; // original offset minus shortened offset
  let index = 0;
  if (lines[0] === "---") {
    // Frontmatter: YAML, where neither a line break nor a word is prose.
    const close = lines.indexOf("---", 1);
    for (; index <= close; index++) {
      pieces.push(lines[index]);
      if (index < lines.length - 1) pieces.push("\n");
      offset += lines[index].length + 1;
    }
  }
  let fence: string | undefined;
  let previousPlain = false;
  for (; index < lines.length; index++) {
    const line = lines[index];
    const last = index === lines.length - 1;
    const marker = line.includes("`") || line.includes("~") ? FENCE.exec(line)?.[1] : undefined;
    let plain = false;
    if (marker !== undefined && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
    } else {
      plain = fence === undefined && PLAIN_LINE.test(line);
    }
    if (plain && previousPlain) {
      // The line break before this line, pushed as "\n" with the previous line, becomes a space.
      pieces[pieces.length - 1] = " ";
      edits.push({ at: offset - 1 - shift, from: offset - 1, length: 1 });
    }
    if (plain && shortenRuns) {
      const head = FIRST_WORD.exec(line)![0].length;
      pieces.push(line.slice(0, head));
      let cursor = head;
      RUN.lastIndex = head;
      for (let match = RUN.exec(line); match !== null; match = RUN.exec(line)) {
        const start = match.index;
        const length = match[0].length;
        pieces.push(line.slice(cursor, start), "a");
        edits.push({ at: offset + start - shift, from: offset + start, length });
        shift += length - 1;
        cursor = start + length;
      }
      pieces.push(line.slice(cursor));
    } else {
      pieces.push(line);
    }
    if (!last) pieces.push("\n");
    previousPlain = plain;
    offset += line.length + 1;
  }
  if (edits.length === 0) return { text, edits };
  return { text: pieces.join(""), edits };
}

/**
 * `parse(text)`, computed from the shortened document when that gives the
 * same tree (see the module doc), else by parsing `text` as written.
 */
export function parsePlainProseShort(text: string, parse: (text: string) => Root): Root {
  const short = shortenPlainProse(text);
  if (short.edits.length === 0) return parse(text);
  let tree: Root;
  try {
    tree = parse(short.text);
  } catch {
    // The diagnostic a user sees must come from the document as written.
    return parse(text);
  }
  const toOriginal = originalOffsets(short.edits);
  if (!restoreText(tree, text, short, toOriginal)) return parse(text);
  relocate(tree, toOriginal, lineStarts(text));
  return tree;
}

/** Maps an offset of the shortened text to the original's. */
function originalOffsets(edits: readonly Edit[]): (offset: number) => number {
  return (offset) => {
    // The last edit wholly before `offset`: after it the two texts are the same up to `offset`.
    let low = -1;
    let high = edits.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (edits[middle].at + 1 <= offset) low = middle;
      else high = middle - 1;
    }
    if (low < 0) return offset;
    const edit = edits[low];
    return edit.from + edit.length + (offset - edit.at - 1);
  };
}

interface TextNode {
  type: "text";
  value: string;
  position?: { start: { offset?: number }; end: { offset?: number } };
}

/** Gives each edited text node its original value; false when an edit lies outside text. */
function restoreText(
  tree: Root,
  text: string,
  short: ShortText,
  toOriginal: (offset: number) => number,
): boolean {
  const texts: TextNode[] = [];
  const pending: unknown[] = [tree];
  const shortenedRuns = short.edits.some((edit) => edit.length > 1);
  while (pending.length > 0) {
    const node = pending.pop() as { type: string; children?: unknown[] };
    if (node.type === "text") texts.push(node as TextNode);
    if (node.type === "definition" && shortenedRuns) return false;
    // Pushed last first, so text nodes come out in document order.
    const children = node.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
  }
  const { edits } = short;
  let next = 0;
  for (const node of texts) {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return false;
    if (next < edits.length && edits[next].at < start) return false;
    if (next === edits.length || edits[next].at >= end) continue;
    while (next < edits.length && edits[next].at < end) next++;
    if (node.value !== short.text.slice(start, end)) return false;
    node.value = text.slice(toOriginal(start), toOriginal(end));
  }
  return next === edits.length;
}

/** The offset at which each line of `text` starts, as the markdown parser counts lines. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (const match of text.matchAll(LINE_ENDING)) starts.push(match.index + match[0].length);
  return starts;
}

type Point = { line: number; column: number; offset?: number };

/**
 * Maps every offset back to the original and recomputes its line and column:
 * unist points (1-based columns) in `position`; in the expression trees,
 * ESTree `start`, `end`, `range` and `loc` points (0-based columns), which
 * carry their offset too.
 */
function relocate(tree: Root, toOriginal: (offset: number) => number, starts: number[]): void {
  const lineOf = (offset: number) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle] <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  const moved = (point: Point, base: number): Point => {
    if (point.offset === undefined) return point;
    const offset = toOriginal(point.offset);
    const line = lineOf(offset);
    return { ...point, line: line + 1, column: offset - starts[line] + base, offset };
  };
  const pending: unknown[] = [tree];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    const node = value as Record<string, unknown>;
    if ("loc" in node && typeof node.start === "number") {
      // An ESTree node (or comment): offsets of its own beside `loc`.
      node.start = toOriginal(node.start);
      if (typeof node.end === "number") node.end = toOriginal(node.end);
      if (Array.isArray(node.range)) node.range = node.range.map(toOriginal);
    }
    for (const key in node) {
      const field = node[key] as { start?: Point; end?: Point } | null;
      if ((key === "position" || key === "loc") && field?.start && field.end) {
        const base = key === "position" ? 1 : 0;
        node[key] = { ...field, start: moved(field.start, base), end: moved(field.end, base) };
      } else if (field !== null && typeof field === "object") {
        pending.push(field);
      }
    }
  }
}
