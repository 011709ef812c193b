import assert from "node:assert/strict";
import { parseWithYamlLibrary } from "./_yaml-library-tree.ts";
import { readPlainYaml } from "./_yaml-subset.ts";
import { loadYamlLibrary } from "./yaml-library.ts";
import type { YamlNode } from "./yaml-tree.ts";

await loadYamlLibrary();

/** A node as both parsers must agree on it: kind, value, start (unless empty), tag, items. */
function shape(node: YamlNode | null, seen = new Set<YamlNode>()): unknown {
  if (node === null) return null;
  const placed = {
    kind: node.kind,
    start: node.empty ? "empty" : node.start,
    tag: node.foreignTag ?? null,
  };
  if (seen.has(node)) return { ...placed, recursive: true };
  seen.add(node);
  switch (node.kind) {
    case "scalar":
      // Object.is semantics, so -0 and 0 differ as they do in the value.
      return { ...placed, value: Object.is(node.value, -0) ? "-0" : node.value };
    case "alias":
      return { ...placed, target: shape(node.target(), seen) };
    case "seq":
      return { ...placed, items: node.items.map((item) => shape(item, seen)) };
    case "map":
      return {
        ...placed,
        items: node.items.map((pair) => [shape(pair.key, seen), shape(pair.value, seen)]),
      };
  }
}

function assertSameTree(text: string): boolean {
  const plain = readPlainYaml(text);
  if (plain === undefined) return false;
  const library = parseWithYamlLibrary(text);
  assert.ok(library.ok, `the plain reader accepted what yaml refuses: ${JSON.stringify(text)}`);
  assert.ok(plain.ok);
  // An empty document is null for one and an empty null scalar for the other: both read as empty.
  const empty = (contents: YamlNode | null) =>
    contents === null || (contents.kind === "scalar" && contents.value === null && contents.empty);
  if (empty(plain.contents) && empty(library.contents)) return true;
  assert.deepEqual(shape(plain.contents), shape(library.contents), JSON.stringify(text));
  return true;
}

// Seeded, so a failure reproduces.
let seed = 111;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];

const keys = [
  "title",
  "name",
  "type",
  "default",
  "description",
  "props",
  "a",
  "b-c",
  "x_y",
  "enum",
  "null",
  "true",
  "Key",
  "name",
];
/** Values the plain reader reads (so the trees are compared on each of them). */
const readable = [
  "world",
  "Who to greet",
  "42",
  "-3",
  "+5",
  "0",
  "-0",
  "007",
  "1.5",
  ".5",
  "1.",
  "1e3",
  "-2.5E-3",
  "1.2.3",
  "2024-01-01",
  "12345678901234567890",
  "~",
  "null",
  "Null",
  "NULL",
  "true",
  "False",
  "yes",
  "no",
  "'it''s'",
  "''",
  '""',
  '"quoted"',
  "'a: b'",
  "a:b",
  "C#",
  "a #comment",
  "x#y",
  "a]b",
  "a, b",
  "é ü",
  "^\\d+$",
  "trailing   ",
  "[a, b]",
  "[]",
  "{}",
  "{ type: string }",
  "{type: string, enum: [a, b]}",
  "{a: {b: c}}",
  "[a, [b, c]]",
  "[ 1, -2, 3.5, true, null, ~ ]",
  "[\"a\", 'b']",
  '"a" # c',
  "[a, b] # c",
];
/** Values it declines, or that are YAML errors. */
const others = [
  '"esc\\n"',
  "a: b",
  "x: y: z",
  "end:",
  "0x1F",
  "0o17",
  ".inf",
  "-.inf",
  ".nan",
  "[a, ]",
  "&anchor v",
  "*anchor",
  "!!str 5",
  "!!binary aGk=",
  "|",
  ">",
  "- x",
  "-x",
  "-",
  "@x",
  "`x",
  "%x",
  "? x",
  ":x",
  "'a'#c",
  "{a: 1}x",
  "[a:b]",
  "{a: 1, a: 2}",
  '{"a": 1}',
  "[a, b",
  '"unterminated',
];

/** A document generator: `plain` documents use only what the plain reader reads. */
function generator(plain: boolean) {
  const value = () => plain || random() < 0.7 ? pick(readable) : pick(others);
  const separator = () => plain ? pick([": ", ":  "]) : pick([": ", ":", " : ", ":\t"]);
  const map = (indent: number, depth: number, lines: string[]): void => {
    const count = 1 + Math.floor(random() * 4);
    const used = new Set<string>();
    for (let entry = 0; entry < count; entry++) {
      const pad = " ".repeat(indent);
      if (random() < 0.08) lines.push(`${pad}# a comment`);
      if (random() < 0.05) lines.push("");
      let key = pick(plain ? keys.slice(0, 10) : keys);
      if (plain && used.has(key)) key = `${key}${entry}`;
      used.add(key);
      const roll = random();
      if (depth < 3 && roll < 0.25) {
        lines.push(`${pad}${key}:${random() < 0.1 ? " # why" : ""}`);
        map(indent + pick([2, 2, 4, 1]), depth + 1, lines);
      } else if (depth < 3 && roll < 0.4) {
        lines.push(`${pad}${key}:`);
        seq(indent + pick([0, 2, 2]), depth + 1, lines);
      } else if (roll < 0.45) {
        lines.push(`${pad}${key}:`);
      } else {
        lines.push(`${pad}${key}${separator()}${value()}`);
        if (!plain && random() < 0.03) lines.push(`${pad}  continued`);
      }
    }
  };
  const seq = (indent: number, depth: number, lines: string[]): void => {
    const count = 1 + Math.floor(random() * 3);
    for (let item = 0; item < count; item++) {
      const pad = " ".repeat(indent);
      if (!plain && depth < 3 && random() < 0.1) {
        lines.push(`${pad}- ${pick(keys)}: ${value()}`);
      } else lines.push(`${pad}- ${value()}`);
    }
  };
  const lines: string[] = [];
  if (!plain && random() < 0.05) lines.push(pick(["---", "%YAML 1.2", "  a: 1", "- top"]));
  map(0, 0, lines);
  if (!plain && random() < 0.03) lines.push("a: 1\tb");
  const newline = !plain && random() < 0.03 ? "\r\n" : "\n";
  return lines.join(newline) + (random() < 0.5 ? "\n" : "");
}

Deno.test("MDX-111: the plain frontmatter reader gives yaml's tree for every text it reads, and declines the rest", () => {
  for (let round = 0; round < 2000; round++) {
    const text = generator(true);
    assert.ok(assertSameTree(text), `declined ${JSON.stringify(text)}`);
  }
  let accepted = 0;
  const total = 3000;
  for (let round = 0; round < total; round++) {
    if (assertSameTree(generator(false))) accepted++;
  }
  // Both paths were exercised many times.
  assert.ok(accepted > total * 0.05 && accepted < total * 0.9, `${accepted} of ${total} accepted`);
});

Deno.test("MDX-111: plain frontmatter as documents write it is read without the yaml package", () => {
  const plain = [
    "title: Hello\nprops:\n  name:\n    type: string\n    default: world\n    description: Who to greet",
    "title: Release\nrequired: [version]\nprops:\n  version:\n    type: string\n",
    "props:\n  count: { type: integer, minimum: 1, default: 3 }\n  mode:\n    type: string\n    enum: [fast, slow]\n",
    "props:\n  tags:\n    type: array\n    items: { type: string }\n    default: []\n  dryRun:\n    type: boolean\n    default: false\n",
    "# a comment\nauthor: 'Ada Lovelace'\nversion: 1.4.0\nlist:\n- a\n- \"b\"\nnested:\n  deeper:\n    deepest: ~\n",
    "",
    "# only a comment\n",
  ];
  for (const text of plain) {
    assert.notEqual(readPlainYaml(text), undefined, JSON.stringify(text));
    assertSameTree(text);
  }
});
