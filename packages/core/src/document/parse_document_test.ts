import assert from "node:assert/strict";
import { DocumentError } from "./document-error.ts";
import { loadProgram } from "./load-program.ts";
import { parseDocument, type ParseOptions } from "./parse-document.ts";
import { loadDocumentLibraries } from "./document-libraries.ts";
import { loadYamlLibrary } from "../props/yaml-library.ts";

// These tests call the parser and validators directly, which loadProgram loads before it parses.
await loadDocumentLibraries();
// And the yaml package, which loadProgram loads for frontmatter the plain reader declines.
await loadYamlLibrary();

/** Asserts that `action` throws a DocumentError at `file:line:column` whose reason matches. */
function assertRefusal(
  action: () => unknown,
  at: `${string}:${number}:${number}`,
  reason: RegExp,
): DocumentError {
  let caught: unknown;
  try {
    action();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof DocumentError, `expected a DocumentError, got ${caught}`);
  const [file, line, column] = at.split(":");
  assert.deepEqual(caught.position, { file, line: Number(line), column: Number(column) });
  assert.equal(caught.message, `${at}: ${caught.reason}`);
  assert.match(caught.reason, reason);
  return caught;
}

function refuses(
  text: string,
  at: `${string}:${number}:${number}`,
  reason: RegExp,
  options?: ParseOptions,
): DocumentError {
  return assertRefusal(() => parseDocument(text, "doc.md", options), at, reason);
}

Deno.test("parse: an unknown element name is refused", () => {
  refuses(
    "# Title\n\nSee <Foo_Bar /> here.\n",
    "doc.md:3:5",
    /^Unknown element <Foo_Bar>: use a built-in \(Let, If, Else, Each, File, Dir, Glob, Elicit, Fail, Content\)/,
  );
});

Deno.test("parse: an unknown attribute of a built-in is refused at the attribute", () => {
  refuses(
    '# T\n\n<File path="a" mode="x">x</File>\n',
    "doc.md:3:16",
    /^Unknown attribute mode on <File>: it accepts path, as$/,
  );
  refuses(
    "x\n\n  <Else when={1}>y</Else>\n",
    "doc.md:3:9",
    /^Unknown attribute when on <Else>: it accepts none$/,
  );
});

Deno.test("parse: a missing required attribute is refused at the element", () => {
  refuses('para\n\n<Each as="x">y</Each>\n', "doc.md:3:1", /^<Each> needs the attribute items$/);
  refuses('<Glob include="*" />\n', "doc.md:1:1", /^<Glob> needs the attribute as$/);
});

Deno.test("parse: a literal where an expression is needed, and the reverse, are refused", () => {
  refuses(
    '<If condition="true">x</If>\n',
    "doc.md:1:5",
    /^Attribute condition on <If> takes an expression: write condition=\{…\}$/,
  );
  refuses(
    "text\n\n<Let as={name} value={1} />\n",
    "doc.md:3:6",
    /^Attribute as on <Let> takes a literal name: write as="x"$/,
  );
  refuses('<Let as="a-b" value={1} />\n', "doc.md:1:6", /^Invalid as="a-b" on <Let>/);
});

Deno.test("parse: an unknown code block modifier is refused; plain blocks accept any meta", () => {
  refuses(
    "x\n\n```sh exec sudo\nls\n```\n",
    "doc.md:3:1",
    /^Unknown code block modifier "sudo": exec blocks accept silent, timeout=<duration> and as="name"$/,
  );
  const plain = parseDocument('```sh sudo title="x"\nls\n```\n', "doc.md");
  assert.deepEqual(plain.parts, [{ kind: "text", text: '```sh sudo title="x"\nls\n```' }]);
});

Deno.test("parse: a bad timeout is refused", () => {
  for (const timeout of ["5years", "0s", "-1s", "ms", "1.5"]) {
    refuses(
      `x\n\n\`\`\`sh exec timeout=${timeout}\nls\n\`\`\`\n`,
      "doc.md:3:1",
      /^Invalid timeout: write a positive duration such as timeout=500ms, timeout=30s or timeout=5min$/,
    );
  }
  const ok = parseDocument("```sh exec timeout=1.5min\nls\n```\n", "doc.md");
  assert.equal(ok.parts[0].kind === "code" && ok.parts[0].code.timeoutMs, 90_000);
});

Deno.test("parse: an unterminated code fence is refused at its opening", () => {
  refuses(
    "x\n\n```sh exec\nls\n",
    "doc.md:3:1",
    /^Unterminated code block: close it with ``` on a line of its own$/,
  );
  refuses("x\n\n~~~~js\nfoo\n~~~\n", "doc.md:3:1", /^Unterminated code block: close it with ~~~~/);
});

Deno.test("parse: fences inside blockquotes are closed by a quoted fence", () => {
  const quoted = parseDocument("> ```sh exec\n> echo {props.x}\n> ```\n\nafter\n", "doc.md");
  const code = quoted.parts.find((part) => part.kind === "code");
  assert.ok(code && code.kind === "code");
  assert.equal(code.code.position.line, 1);
  const expression = code.code.script[1];
  assert.ok(typeof expression !== "string");
  assert.deepEqual(expression.position, { file: "doc.md", line: 2, column: 9 });
  parseDocument("> > ```js\n> > plain\n> > ```\n", "doc.md");
  refuses("> ```sh exec\n> ls\n\nafter\n", "doc.md:1:3", /^Unterminated code block/);
  refuses("> > ```sh exec\n> > ls\n> ```\n", "doc.md:1:5", /^Unterminated code block/);
});

Deno.test("parse: an unclosed element is refused at the element", () => {
  refuses(
    "x\n\n<If condition={true}>\n\ny\n",
    "doc.md:3:1",
    /^Expected a closing tag for `<If>`/,
  );
});

Deno.test("MDX-62 parse: a malformed expression is refused where it breaks, naming no parser library", () => {
  refuses(
    "x {1 +} y\n",
    "doc.md:1:7",
    /^Invalid expression syntax: Unexpected token: write one JavaScript expression between the braces$/,
  );
  refuses(
    "<If condition={1 +}>x</If>\n",
    "doc.md:1:19",
    /^Invalid expression syntax: Unexpected token/,
  );
  refuses(
    "import a from\n",
    "doc.md:2:1",
    /^Invalid import or export syntax: Unexpected token: a document cannot use import or export/,
  );
  refuses("x\n\nHello {props.name\n", "doc.md:3:18", /^Unexpected end of file in expression/);
  refuses(
    "<If condition={true}>\n  ```sh exec\n  echo {a = 1}\n  ```\n</If>\n",
    "doc.md:3:9",
    /^Assignment is not allowed in an expression/,
  );
});

Deno.test("parse: braces in exec blocks that are not one expression stay shell text", () => {
  const script = "awk '{print $1}' {1..3} x{a,b} {a +} ${HOME} { x; } \\{n} {n}";
  const doc = parseDocument("```sh exec\n" + script + "\n```\n", "doc.md");
  const code = doc.parts.find((part) => part.kind === "code");
  assert.ok(code?.kind === "code");
  const pieces = code.code.script;
  assert.equal(pieces.length, 2);
  assert.equal(pieces[0], "awk '{print $1}' {1..3} x{a,b} {a +} ${HOME} { x; } {n} ");
  assert.notEqual(typeof pieces[1], "string");
});

Deno.test("parse: assignment and other disallowed expressions are refused", () => {
  const assignment = /^Assignment is not allowed in an expression/;
  refuses("x\n\nHello {a = 1}\n", "doc.md:3:8", assignment);
  refuses('<Let as="y" value={a = 1} />\n', "doc.md:1:20", assignment);
  refuses(
    "<If condition={1}>\n  <If condition={2}>\n    {a += 2}\n  </If>\n</If>\n",
    "doc.md:3:6",
    assignment,
  );
  refuses("```sh exec\necho {a = 1}\n```\n", "doc.md:2:7", assignment);
  refuses("{new Date()}\n", "doc.md:1:2", /^"new" is not allowed in an expression/);
});

Deno.test("parse: <Else> must directly follow an <If>", () => {
  const reason = /^<Else> must directly follow an <If>$/;
  refuses("x\n\n<Else>y</Else>\n", "doc.md:3:1", reason);
  refuses("<If condition={1}>a</If>\n\ntext\n\n<Else>b</Else>\n", "doc.md:5:1", reason);
  refuses("<If condition={1}>a</If>\n<Else>b</Else>\n<Else>c</Else>\n", "doc.md:3:1", reason);
});

Deno.test("parse: <Content /> is refused outside a component and accepted inside one", () => {
  refuses(
    "x\n\n<Content />\n",
    "doc.md:3:1",
    /^<Content \/> is only allowed inside a markdown component$/,
  );
  const component = parseDocument("<Content />\n", "Greeting.md", { component: true });
  assert.equal(component.parts[0].kind === "element" && component.parts[0].element.name, "Content");
});

Deno.test("parse: binding the reserved names props and meta is refused", () => {
  refuses('<Let as="props" value={1} />\n', "doc.md:1:6", /^Cannot bind "props": it is reserved$/);
  refuses(
    'x\n\n<File path="a" as="meta" />\n',
    "doc.md:3:16",
    /^Cannot bind "meta": it is reserved$/,
  );
  refuses(
    '```sh exec as="props"\nls\n```\n',
    "doc.md:1:1",
    /^Cannot bind "props": it is reserved$/,
  );
});

const TARGETED = "Preamble\n\n# A\n\n## B\n\nB text\n\n# E\n\n## B\n\nE/B text\n";

Deno.test("parse: a target matching zero or several headings is refused", () => {
  refuses(TARGETED, "doc.md:1:1", /^Target "#Z" matches no heading/, { target: "Z" });
  refuses(TARGETED, "doc.md:1:1", /^Target "#E\/C" matches no heading/, { target: "E/C" });
  refuses(
    TARGETED,
    "doc.md:11:1",
    /^Target "#B" matches 2 headings \(lines 5, 11\): name a longer path$/,
    { target: "B" },
  );
  refuses(TARGETED, "doc.md:1:1", /^Invalid target "#A\/\/B"/, { target: "A//B" });
  const selected = parseDocument(TARGETED, "doc.md", { target: "E/B" });
  assert.deepEqual(selected.parts.map((part) => part.kind === "text" && part.text), [
    "Preamble",
    "\n\n",
    "# E",
    "\n\n",
    "## B\n\nE/B text",
  ]);
});

Deno.test("parse: import/export and fragments are refused", () => {
  refuses("import x from 'y'\n\nhi\n", "doc.md:1:1", /^Cannot use import or export in a document/);
  refuses("x <>a</> y\n", "doc.md:1:3", /^Cannot use a fragment/);
});

/** Loads a program whose components come from `files`, recording what was read. */
async function loadWith(text: string, files: Record<string, string>) {
  const reads: string[] = [];
  const promise = loadProgram({ file: "doc.md", text }, (label) => {
    reads.push(label);
    return Promise.resolve(files[label]);
  });
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  return { caught, reads };
}

async function loadRefuses(
  text: string,
  files: Record<string, string>,
  at: `${string}:${number}:${number}`,
  reason: RegExp,
): Promise<string[]> {
  const { caught, reads } = await loadWith(text, files);
  assertRefusal(
    () => {
      if (caught) throw caught;
    },
    at,
    reason,
  );
  return reads;
}

Deno.test("loadProgram: an unknown component is refused at its first use, naming both candidates", async () => {
  const reads = await loadRefuses(
    "x\n\n<Nope />\n\n<Nope />\n",
    {},
    "doc.md:3:1",
    /^Unknown component <Nope>: create Nope\.md or components\/Nope\.md beside the document/,
  );
  assert.deepEqual(reads, ["Nope.md", "components/Nope.md"]);
  await loadRefuses(
    "<Git.Commit />\n",
    { "Git/Commit.txt": "" },
    "doc.md:1:1",
    /^Unknown component <Git\.Commit>: create Git\/Commit\.md or components\/Git\/Commit\.md/,
  );
});

Deno.test("loadProgram: a component cycle is refused where it closes", async () => {
  await loadRefuses(
    "x\n\n<A />\n",
    { "A.md": "a\n\n<B />\n", "components/B.md": "b\n\n  <A />\n" },
    "components/B.md:3:3",
    /^Component cycle A → B → A: a component cannot invoke itself/,
  );
  await loadRefuses("<A />\n", { "A.md": "<A />\n" }, "A.md:1:1", /^Component cycle A → A/);
});

const G =
  "---\nprops:\n  name:\n    type: string\n  count:\n    type: number\n    default: 1\nrequired: [name]\n---\n\nHi\n";

Deno.test("loadProgram: an unknown prop is refused at the attribute", async () => {
  await loadRefuses(
    'x\n\n<G nme="x" />\n',
    { "G.md": G },
    "doc.md:3:4",
    /^Unknown prop nme for <G>: it accepts name, count$/,
  );
});

Deno.test("loadProgram: a literal of the wrong type for a number prop is refused", async () => {
  await loadRefuses(
    'x\n\n<G name="a" count="many" />\n',
    { "G.md": G },
    "doc.md:3:1",
    /^Invalid prop "count" for <G>: must be number$/,
  );
  await loadRefuses(
    "x\n\n<G count={2} />\n",
    { "G.md": G },
    "doc.md:3:1",
    /^<G> needs the prop name$/,
  );
  const { caught } = await loadWith('<G name="a" count={"many"} />\n', { "G.md": G });
  assert.equal(caught, undefined, "expression props are checked when they are evaluated");
});

Deno.test("loadProgram: a program retains every source it resolved, root first", async () => {
  const program = await loadProgram(
    { file: "doc.md", text: '<G name="a" />\n\n<Git.Commit />\n' },
    (label) => Promise.resolve({ "G.md": G, "components/Git/Commit.md": "commit\n" }[label]),
  );
  assert.deepEqual([...program.sources.keys()], ["doc.md", "G.md", "components/Git/Commit.md"]);
  assert.deepEqual([...program.components.keys()], ["G", "Git.Commit"]);
});
