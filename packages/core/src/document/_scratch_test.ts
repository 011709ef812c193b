import { parseDocument } from "./parse-document.ts";
import { load } from "../engine/_test-providers.ts";
const cases: [string, string, boolean?][] = [
  ["unknown element", "# T\n\n<Fiel path=\"a\">x</Fiel>\n"],
  ["lowercase elem", "# T\n\n<foo>x</foo>\n"],
  ["unknown element lower-dash", "text <my-el /> x\n"],
  ["unknown attr", "# T\n\n<File path=\"a\" mode=\"x\">x</File>\n"],
  ["missing attr", "para\n\n<Each as=\"x\">y</Each>\n"],
  ["literal for expr", "<If condition=\"true\">x</If>\n"],
  ["unknown modifier", "x\n\n```sh exec sudo\nls\n```\n"],
  ["bad timeout", "x\n\n```sh exec timeout=5years\nls\n```\n"],
  ["unterminated fence", "x\n\n```sh exec\nls\n"],
  ["unclosed element", "x\n\n<If condition={true}>\n\ny\n"],
  ["malformed expr", "x {1 +} y\n"],
  ["malformed expr2", "x\n\nHello {props.name\n"],
  ["assignment", "x\n\nHello {a = 1}\n"],
  ["assignment attr", "<Let as=\"y\" value={a = 1} />\n"],
  ["else alone", "x\n\n<Else>y</Else>\n"],
  ["content outside", "x\n\n<Content />\n"],
  ["reserved as", "<Let as=\"props\" value={1} />\n"],
  ["reserved exec as", "```sh exec as=\"meta\"\nls\n```\n"],
  ["new", "{new Date()}\n"],
  ["global", "{globalThis}\n"],
];
Deno.test("x", () => {
  for (const [n, t, c] of cases) {
    try { parseDocument(t, "doc.md", { component: c }); console.log(n, "=> OK"); }
    catch (e) { console.log(n, "=>", (e as Error).name, (e as Error).message); }
  }
});
Deno.test("targets", async () => {
  const doc = "Preamble {props.a}\n\n# A\n\nA text\n\n## B\n\nB text\n\n### C\n\nC text\n\n## D\n\nD text\n\n# E\n\n## B\n\nE/B text\n";
  for (const t of ["A/B", "B", "E/B", "A/B/C", "D", "A", "Z", "A/Z", "A//B"]) {
    try { const d = parseDocument(doc, "doc.md", { target: t }); console.log(t, JSON.stringify(d.parts.map((p) => p.kind === "text" ? p.text : p.kind))); }
    catch (e) { console.log(t, "=>", (e as Error).name, (e as Error).message); }
  }
});
Deno.test("load", async () => {
  const cases: [string, string, Record<string,string>][] = [
    ["unknown comp", "x\n\n<Nope />\n", {}],
    ["cycle", "x\n\n<A />\n", {"A.md": "a\n\n<B />\n", "B.md": "b\n\n  <A />\n"}],
    ["self cycle", "<A />\n", {"A.md": "<A />\n"}],
    ["unknown prop", "x\n\n<G nme=\"x\" />\n", {"G.md": "---\nprops:\n  name:\n    type: string\n---\nHi\n"}],
    ["wrong type", "x\n\n<G count=\"many\" />\n", {"G.md": "---\nprops:\n  count:\n    type: number\n---\nHi\n"}],
    ["missing req", "x\n\n<G />\n", {"G.md": "---\nprops:\n  name:\n    type: string\nrequired: [name]\n---\nHi\n"}],
    ["dotted", "<Git.Commit />\n", {"components/Git/Commit.md": "commit\n"}],
  ];
  for (const [n, t, c] of cases) {
    try { const p = await load(t, c); console.log(n, "=> OK", [...p.sources.keys()]); }
    catch (e) { console.log(n, "=>", (e as Error).name, (e as Error).message); }
  }
});
