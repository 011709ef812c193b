import assert from "node:assert/strict";
import type { Root } from "mdast";
import { DocumentError } from "./document-error.ts";
import { documentLibraries, loadDocumentLibraries } from "./document-libraries.ts";
import { parsePlainProseShort, shortenPlainProse } from "./plain-prose.ts";
import { parseDocument } from "./parse-document.ts";

await loadDocumentLibraries();

/** The parse as written: the same parser and extensions `parseDocument` uses. */
function parseAsWritten(text: string): Root {
  const { frontmatter, frontmatterFromMarkdown, fromMarkdown, mdxFromMarkdown, mdxjs } =
    documentLibraries();
  return fromMarkdown(text, {
    extensions: [frontmatter(["yaml"]), mdxjs()],
    mdastExtensions: [frontmatterFromMarkdown(["yaml"]), mdxFromMarkdown()],
  });
}

/** `parseJoined` with the number of times it called the parser. */
function parseCounted(text: string): { tree: Root; parses: number } {
  let parses = 0;
  const tree = parsePlainProseShort(text, (source) => {
    parses++;
    return parseAsWritten(source);
  });
  return { tree, parses };
}

/** The result of `parse`, or the message it threw. */
function outcome(parse: () => Root): Root | string {
  try {
    return parse();
  } catch (error) {
    return `threw: ${error}`;
  }
}

const PROSE = "alpha beta gamma\ndelta, epsilon (zeta).\nEta theta iota: kappa?\nLambda mu";

/** Lines whose neighbours a join must not change, each of them tried around plain prose. */
const TRAPS = [
  "# Heading",
  "Setext heading\n===",
  "---",
  "- item one\nlazy continuation",
  "1. first\nsecond line",
  "> quoted text\nlazy line",
  "```sh exec\necho hi\nls -la\n```",
  "~~~\nplain words\nmore words\n~~~",
  "  ```\n  indented fence\n  body line\n  ```",
  '<File path="a">\nalpha beta\ngamma\n</File>',
  '<File\npath="p"\nas\nx\n/>',
  "{\nfoo\nin\nbar\n}",
  '<Let as="y" value={\nfoo\nin\nbar\n} />',
  "text {x} more\nplain after",
  "a *b\nc d* e",
  "`code\nspan` end",
  '[link](/u "title\nmore title\nend")',
  "[ref]: /url\n[ref]",
  "[alpha beta\ngamma delta\nepsilon]\n\n[alpha beta gamma delta epsilon]: /u",
  "[a]: /u\n\n[alpha\nbeta gamma\nzeta]",
  "- [alpha beta a zeta]: /u\n\n[alpha\nbeta gamma\nzeta]",
  "hard break  \nnext line",
  "backslash break\\\nnext line",
  "import foo from 'bar'\nexport default x",
  "after\nimport foo from 'bar'",
  "crlf line\r\nnext line\r\nthird",
  "lone cr\rnext line",
  "\tTabbed\nplain",
  "    indented\n    more",
  "a {1 +\nb}",
  "x\n\nHello {props.name\nmore words\n",
  "<If condition={true}>\n\ny\nz\n",
];

Deno.test("MDX-90 parse: shortened plain prose gives the tree of the document as written", () => {
  const documents = [
    PROSE,
    `---\ntitle: Foo\nauthor: Bar Baz\n---\n\n${PROSE}\n`,
    ...TRAPS.flatMap((trap) => [
      `${PROSE}\n${trap}\n${PROSE}\n`,
      `${PROSE}\n\n${trap}\n\n${PROSE}`,
      `${trap}\n${PROSE}`,
    ]),
  ];
  // Seeded random documents of the same lines, so a failure reproduces.
  let seed = 90;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const lines = [...TRAPS, ...PROSE.split("\n"), "", "", ""];
  for (let index = 0; index < 300; index++) {
    const count = 2 + Math.floor(random() * 12);
    documents.push(
      Array.from({ length: count }, () => lines[Math.floor(random() * lines.length)]).join("\n"),
    );
  }
  for (const text of documents) {
    assert.deepEqual(
      outcome(() => parseCounted(text).tree),
      outcome(() => parseAsWritten(text)),
      JSON.stringify(text),
    );
  }
});

Deno.test("MDX-90 parse: a document of wrapped prose is parsed once, shortened", () => {
  const text = [
    "# Title",
    "",
    PROSE,
    "",
    '<File path="a.txt">',
    PROSE,
    "</File>",
    "",
    "```sh exec",
    "echo hi there",
    "ls",
    "```",
  ].join("\n");
  const short = shortenPlainProse(text);
  // Each prose paragraph: three line breaks joined, its lines' words after the first shortened;
  // the code block's lines stay as written.
  assert.equal(
    short.text,
    [
      "# Title",
      "",
      "alpha a delta, a (a). Eta a: a? Lambda a",
      "",
      '<File path="a.txt">',
      "alpha a delta, a (a). Eta a: a? Lambda a",
      "</File>",
      "",
      "```sh exec",
      "echo hi there",
      "ls",
      "```",
    ].join("\n"),
  );
  const { tree, parses } = parseCounted(text);
  assert.equal(parses, 1);
  assert.deepEqual(tree, parseAsWritten(text));
});

/** Wrapped prose paragraphs: `paragraphs` of four lines each, a blank line after each. */
function wrappedProse(paragraphs: number): string {
  return `${PROSE}\n\n`.repeat(paragraphs);
}

function refusal(text: string): DocumentError {
  try {
    parseDocument(text, "doc.md");
  } catch (error) {
    if (error instanceof DocumentError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

Deno.test("MDX-91 parse: positions after shortened prose are those of the document as written", () => {
  const before = wrappedProse(200); // 1,000 lines
  const at = (line: number, column: number) => ({ file: "doc.md", line, column });
  assert.deepEqual(refusal(`${before}See <Foo_Bar /> here.\n`).position, at(1001, 5));
  assert.deepEqual(refusal(`${before}${PROSE}\nHello {a = 1}\n`).position, at(1005, 8));
  // An expression over several lines: its own tree's lines are the document's.
  assert.deepEqual(refusal(`${before}{[\n  1,\n  a = 2\n]}\n`).position, at(1003, 3));
  assert.deepEqual(
    refusal(`${before}<File path="a" mode="x">\n${PROSE}\n</File>\n`).position,
    at(1001, 16),
  );
  assert.deepEqual(refusal(`${before}\`\`\`sh exec\necho {a = 1}\n\`\`\`\n`).position, at(1002, 7));
  // A refusal by the markdown parser itself, after shortened prose.
  assert.deepEqual(refusal(`${before}<If condition={true}>\n\n${PROSE}\n`).position, at(1001, 1));

  const document = parseDocument(
    `${before}<File path="a.txt">\n${PROSE}\n</File>\n\n${PROSE}\n\n\`\`\`sh exec\necho {x}\n\`\`\`\n`,
    "doc.md",
  );
  const file = document.parts.find((part) => part.kind === "element");
  assert.ok(file?.kind === "element");
  assert.deepEqual(file.element.position, at(1001, 1));
  assert.deepEqual(file.element.attributes.get("path")?.position, at(1001, 7));
  const code = document.parts.find((part) => part.kind === "code");
  assert.ok(code?.kind === "code");
  assert.deepEqual(code.code.position, at(1013, 1));
  // The prose renders as written, line breaks included.
  assert.deepEqual(file.element.children, [{ kind: "text", text: PROSE }]);
});
