import { parseFrontmatter } from "./mod.ts";
const cases = [
  'title: "unterminated\n',
  "a: [1,\n",
  "a: 1\na: 2\n",
  "a: {b: 1\n",
  "  a: 1\n b: 2\n",
];
for (const c of cases) {
  try {
    parseFrontmatter(c, "d.md", 2);
    console.log("ok?");
  } catch (e) {
    console.log(JSON.stringify(c), (e as Error).message);
  }
}
