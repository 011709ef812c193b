/**
 * The plain-frontmatter reader: YAML made only of block maps with plain keys,
 * block lists of one-line values, and one-line values (plain, single- or
 * double-quoted without escapes, and flow lists and maps of those), read
 * without the `yaml` package, whose load costs as much as the markdown
 * parser's (MDX-111).
 *
 * Invariant: it either declines (`undefined`) or gives the tree the `yaml`
 * package gives for the same text (`yaml-tree.ts`): kinds, values resolved by
 * the YAML 1.2 core schema, start offsets and empty nodes. Anything it is not
 * sure of (tabs, carriage returns, anchors, aliases, tags, block scalars,
 * escapes, multi-line values, documents markers, octal, hexadecimal and
 * non-finite numbers, non-string or repeated keys, any YAML error) is
 * declined, and the `yaml` package reads it instead.
 *
 * @module
 */
import type { YamlNode, YamlPair, YamlParse, YamlScalar } from "./yaml-tree.ts";

interface MapBlock {
  readonly kind: "map";
  readonly indent: number;
  readonly items: YamlPair[];
  readonly keys: Set<string>;
}

interface SeqBlock {
  readonly kind: "seq";
  readonly indent: number;
  readonly items: (YamlNode | null)[];
}

type Block = MapBlock | SeqBlock;

/** A `key:` with nothing after it, whose value is the block below it, if any. */
interface Pending {
  readonly pair: { key: YamlNode; value: YamlNode | null };
  readonly indent: number;
  readonly offset: number;
}

// Declining is not an error (the text is simply not plain): a marker unwinds
// the reader to `readPlainYaml`, which returns undefined for it.
const DECLINED = Symbol("declined");

const decline = (): never => {
  throw DECLINED;
};

const KEY = /[A-Za-z_][A-Za-z0-9_-]*/y;
const MAX_FLOW_DEPTH = 32;

/** The tree of `text`, or `undefined` when it is not plain frontmatter. */
export function readPlainYaml(text: string): YamlParse | undefined {
  if (/[\t\r\uFEFF]/.test(text)) return undefined;
  try {
    return { ok: true, contents: readLines(text) };
  } catch (error) {
    if (error === DECLINED) return undefined;
    throw error;
  }
}

function readLines(text: string): YamlNode | null {
  let root: YamlNode | null = null;
  const stack: Block[] = [];
  let pending: Pending | undefined;
  const open = (kind: "map" | "seq", indent: number, start: number): Block => {
    const block: Block = kind === "map"
      ? { kind, indent, items: [], keys: new Set() }
      : { kind, indent, items: [] };
    const node: YamlNode = { kind, start, empty: false, items: block.items } as YamlNode;
    if (pending !== undefined) pending.pair.value = node;
    else if (root === null && stack.length === 0) root = node;
    else decline();
    pending = undefined;
    stack.push(block);
    return block;
  };
  let lineStart = 0;
  while (lineStart <= text.length) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    let at = lineStart;
    while (at < lineEnd && text[at] === " ") at++;
    const indent = at - lineStart;
    if (at < lineEnd && text[at] !== "#") {
      if (indent === 0 && /^(?:---|\.\.\.)/.test(text.slice(at, at + 3))) decline();
      const entry = text[at] === "-" && (at + 1 === lineEnd || text[at + 1] === " ")
        ? "seq"
        : "map";
      if (pending !== undefined) {
        if (indent > pending.indent || (indent === pending.indent && entry === "seq")) {
          open(entry, indent, at);
        } else {
          pending.pair.value = emptyNull(pending.offset);
          pending = undefined;
        }
      }
      while (stack.length > 0 && stack.at(-1)!.indent > indent) stack.pop();
      // A list under a key at the key's own indent ends at the next key.
      if (entry === "map" && stack.at(-1)?.kind === "seq" && stack.at(-1)!.indent === indent) {
        stack.pop();
      }
      let block = stack.at(-1);
      if (block === undefined) {
        if (root !== null || indent !== 0) decline();
        block = open(entry, indent, at);
      }
      if (block.indent !== indent || block.kind !== entry) decline();
      if (block.kind === "map") {
        readMapEntry(text, at, lineEnd, block, (waiting) => pending = waiting);
      } else block.items.push(readSeqEntry(text, at, lineEnd));
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  if (pending !== undefined) {
    (pending as Pending).pair.value = emptyNull((pending as Pending).offset);
  }
  return root;
}

function readMapEntry(
  text: string,
  at: number,
  lineEnd: number,
  block: MapBlock,
  wait: (pending: Pending) => void,
): void {
  KEY.lastIndex = at;
  if (!KEY.test(text) || KEY.lastIndex > lineEnd) decline();
  const keyEnd = KEY.lastIndex;
  const name = text.slice(at, keyEnd);
  if (text[keyEnd] !== ":" || resolvePlain(name) !== name || block.keys.has(name)) decline();
  block.keys.add(name);
  const key: YamlScalar = { kind: "scalar", start: at, empty: false, value: name };
  const after = keyEnd + 1;
  if (after < lineEnd && text[after] !== " ") decline();
  const valueAt = skipSpaces(text, after, lineEnd);
  if (valueAt === lineEnd || text[valueAt] === "#") {
    const pair = { key, value: null as YamlNode | null };
    block.items.push(pair);
    wait({ pair, indent: block.indent, offset: after });
    return;
  }
  block.items.push({ key, value: readLineValue(text, valueAt, lineEnd) });
}

function readSeqEntry(text: string, at: number, lineEnd: number): YamlNode {
  const valueAt = skipSpaces(text, at + 1, lineEnd);
  if (valueAt === lineEnd || text[valueAt] === "#") decline();
  return readLineValue(text, valueAt, lineEnd);
}

/** A value that ends on its line, then nothing but spaces and a comment. */
function readLineValue(text: string, at: number, lineEnd: number): YamlNode {
  const first = text[at];
  let node: YamlNode;
  let end: number;
  if (first === "[" || first === "{" || first === '"' || first === "'") {
    [node, end] = readFlow(text, at, lineEnd, 0);
  } else {
    if ("&*!|>%@`?:,[]{}#".includes(first) || lonelyDash(text, at)) decline();
    const comment = text.slice(at, lineEnd).search(/ #/);
    end = comment === -1 ? lineEnd : at + comment;
    const plain = text.slice(at, end).trimEnd();
    if (plain.includes(": ") || plain.endsWith(":")) decline();
    node = { kind: "scalar", start: at, empty: false, value: resolvePlain(plain) };
  }
  const rest = skipSpaces(text, end, lineEnd);
  if (rest < lineEnd && (text[rest] !== "#" || rest === end)) decline();
  return node;
}

/** A flow value or a quoted scalar starting at `at`, and the offset after it. */
function readFlow(text: string, at: number, lineEnd: number, depth: number): [YamlNode, number] {
  if (depth > MAX_FLOW_DEPTH) decline();
  const first = text[at];
  if (first === '"') {
    const close = text.indexOf('"', at + 1);
    if (close === -1 || close > lineEnd) decline();
    const value = text.slice(at + 1, close);
    if (value.includes("\\")) decline();
    return [{ kind: "scalar", start: at, empty: false, value }, close + 1];
  }
  if (first === "'") {
    let value = "";
    let cursor = at + 1;
    for (;;) {
      const quote = text.indexOf("'", cursor);
      if (quote === -1 || quote >= lineEnd) decline();
      value += text.slice(cursor, quote);
      if (text[quote + 1] !== "'") {
        return [{ kind: "scalar", start: at, empty: false, value }, quote + 1];
      }
      value += "'";
      cursor = quote + 2;
    }
  }
  if (first === "[") {
    const items: YamlNode[] = [];
    let cursor = skipSpaces(text, at + 1, lineEnd);
    if (text[cursor] !== "]") {
      for (;;) {
        const [item, end] = readFlowItem(text, cursor, lineEnd, depth);
        items.push(item);
        cursor = skipSpaces(text, end, lineEnd);
        if (text[cursor] === "]") break;
        if (text[cursor] !== ",") decline();
        cursor = skipSpaces(text, cursor + 1, lineEnd);
      }
    }
    return [{ kind: "seq", start: at, empty: false, items }, cursor + 1];
  }
  if (first === "{") {
    const items: YamlPair[] = [];
    const keys = new Set<string>();
    let cursor = skipSpaces(text, at + 1, lineEnd);
    if (text[cursor] !== "}") {
      for (;;) {
        KEY.lastIndex = cursor;
        if (!KEY.test(text) || KEY.lastIndex > lineEnd) decline();
        const name = text.slice(cursor, KEY.lastIndex);
        if (text[KEY.lastIndex] !== ":" || text[KEY.lastIndex + 1] !== " ") decline();
        if (resolvePlain(name) !== name || keys.has(name)) decline();
        keys.add(name);
        const key: YamlScalar = { kind: "scalar", start: cursor, empty: false, value: name };
        const [value, end] = readFlowItem(
          text,
          skipSpaces(text, KEY.lastIndex + 1, lineEnd),
          lineEnd,
          depth,
        );
        items.push({ key, value });
        cursor = skipSpaces(text, end, lineEnd);
        if (text[cursor] === "}") break;
        if (text[cursor] !== ",") decline();
        cursor = skipSpaces(text, cursor + 1, lineEnd);
      }
    }
    return [{ kind: "map", start: at, empty: false, items }, cursor + 1];
  }
  return decline();
}

/** An item of a flow list or a value of a flow map: a nested flow value, a quoted or plain scalar. */
function readFlowItem(
  text: string,
  at: number,
  lineEnd: number,
  depth: number,
): [YamlNode, number] {
  const first = text[at];
  if (first === "[" || first === "{" || first === '"' || first === "'") {
    const [node, end] = readFlow(text, at, lineEnd, depth + 1);
    // After a quoted scalar or a nested collection: a separator, a closing bracket or spaces.
    if (end < lineEnd && !" ,]}".includes(text[end])) decline();
    return [node, end];
  }
  if (at >= lineEnd || "&*!|>%@`?:,[]{}#".includes(first) || lonelyDash(text, at)) decline();
  let end = at;
  while (end < lineEnd && !",[]{}".includes(text[end])) {
    if (text[end] === "#" && text[end - 1] === " ") decline();
    if (text[end] === ":") decline();
    end++;
  }
  const plain = text.slice(at, end).trimEnd();
  return [{ kind: "scalar", start: at, empty: false, value: resolvePlain(plain) }, end];
}

/** A plain scalar's value under the YAML 1.2 core schema; declines the forms it does not resolve. */
function resolvePlain(plain: string): unknown {
  if (/^(?:~|[Nn]ull|NULL)?$/.test(plain)) return null;
  if (/^(?:[Tt]rue|TRUE)$/.test(plain)) return true;
  if (/^(?:[Ff]alse|FALSE)$/.test(plain)) return false;
  if (/^[-+]?[0-9]+$/.test(plain)) return parseInt(plain, 10);
  if (
    /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/.test(plain) ||
    /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/.test(plain)
  ) {
    return parseFloat(plain);
  }
  if (/^0o[0-7]+$|^0x[0-9a-fA-F]+$|^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$/.test(plain)) {
    return decline();
  }
  return plain;
}

/** A `-` not starting a word or number (`- x`, `-` alone, `-,`), which YAML may read as a list. */
function lonelyDash(text: string, at: number): boolean {
  return text[at] === "-" && !/[0-9A-Za-z.]/.test(text[at + 1] ?? "");
}

function emptyNull(offset: number): YamlScalar {
  return { kind: "scalar", start: offset, empty: true, value: null };
}

function skipSpaces(text: string, at: number, end: number): number {
  while (at < end && text[at] === " ") at++;
  return at;
}
