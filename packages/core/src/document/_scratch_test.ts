import { parseDocument } from "./parse-document.ts";
const cases: [string, string, boolean?][] = [
  ["blockquote exec", "> ```sh exec\n> ls\n> ```\n"],
  ["blockquote plain", "> ```js\n> ls\n>```\n\nafter\n"],
  ["blockquote unterminated", "> ```sh exec\n> ls\n\nafter\n"],
  ["blockquote unterminated2", "> ```sh exec\n> ls\n> > ```\n"],
  ["list bq", "- > ```sh exec\n  > echo {x}\n  > ```\n"],
  ["nested bq", "> > ```sh exec\n> > ls\n> > ```\n"],
  ["nested bq unterminated", "> > ```sh exec\n> > ls\n> ```\n"],
];
Deno.test("x", () => {
  for (const [n, t, c] of cases) {
    try {
      const d = parseDocument(t, "doc.md", { component: c });
      console.log(
        n,
        "=> OK",
        JSON.stringify(
          d.parts.map((p) =>
            p.kind === "text" ? p.text : p.kind === "code" ? p.code.script : p.kind
          ),
        ),
      );
    } catch (e) {
      console.log(n, "=>", (e as Error).name, (e as Error).message);
    }
  }
});
