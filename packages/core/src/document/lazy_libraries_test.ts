import assert from "node:assert/strict";

const LOAD_PROGRAM = new URL("./load-program.ts", import.meta.url).href;
const SCHEMA_LIBRARY = new URL("./schema-library.ts", import.meta.url).href;
const YAML_LIBRARY = new URL("../props/yaml-library.ts", import.meta.url).href;
const PROPS = new URL("../props/resolve-props.ts", import.meta.url).href;

/**
 * Loads `text` as a program in a fresh Deno process, resolves its props, and
 * reports which of Ajv and the yaml package were loaded by then (module state
 * is per process, so the test's own imports cannot answer for it).
 */
async function loadedAfter(
  text: string,
): Promise<{ props: unknown; meta: unknown; ajv: boolean; yaml: boolean }> {
  const script = `
    import { loadProgram } from ${JSON.stringify(LOAD_PROGRAM)};
    import { schemaLibrary } from ${JSON.stringify(SCHEMA_LIBRARY)};
    import { yamlLibrary } from ${JSON.stringify(YAML_LIBRARY)};
    import { resolveProps } from ${JSON.stringify(PROPS)};
    const program = await loadProgram({ file: "doc.md", text: ${JSON.stringify(text)} }, () =>
      Promise.resolve(undefined));
    const props = resolveProps(program.root.props, { options: new Map(), env: {} });
    const loaded = (library) => { try { library(); return true; } catch { return false; } };
    console.log(JSON.stringify({
      props,
      meta: program.root.meta,
      ajv: loaded(schemaLibrary),
      yaml: loaded(yamlLibrary),
    }));
  `;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--lock=dev.lock", script],
    cwd: new URL("../../../../", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return JSON.parse(new TextDecoder().decode(stdout));
}

const FRONTMATTER = "---\ntitle: Hello\nprops:\n  name:\n    type: string\n    default: world\n" +
  "  count:\n    type: integer\n    minimum: 1\n    default: 2\n---\n\n";

Deno.test("MDX-110, MDX-111: a document with plain frontmatter and no <Elicit> is loaded and its props validated without Ajv or the yaml package", async () => {
  const result = await loadedAfter(`${FRONTMATTER}# Hello, {props.name}!\n`);
  assert.deepEqual(result.props, { name: "world", count: 2 });
  assert.deepEqual(result.meta, { title: "Hello" });
  assert.equal(result.ajv, false);
  assert.equal(result.yaml, false);
});

Deno.test("MDX-81: a program holding an <Elicit> loads Ajv with it, for its answer schema", async () => {
  const result = await loadedAfter(
    `${FRONTMATTER}<Elicit as="ok" schema={{ type: "boolean" }}>Go?</Elicit>\n`,
  );
  assert.equal(result.ajv, true);
});

Deno.test("MDX-111: frontmatter beyond the plain reader is read by the yaml package, with the same meaning", async () => {
  // An anchor and its alias, and a block scalar: only the yaml package reads them.
  const result = await loadedAfter(
    "---\nbase: &b { type: string, default: x }\nnote: |\n  two\n  lines\nsame: *b\nprops:\n  name: { type: string, default: x }\n---\n\nHi\n",
  );
  assert.equal(result.yaml, true);
  assert.deepEqual(result.props, { name: "x" });
  const base = { type: "string", default: "x" };
  assert.deepEqual(result.meta, { base, note: "two\nlines\n", same: base });
});

Deno.test("MDX-111: frontmatter whose lines end in a lone carriage return is read by the yaml package", async () => {
  // The plain reader declines carriage returns; the markdown parser takes them as line ends.
  const result = await loadedAfter("---\rlist: [a, &x b, *x]\r---\r\rHi\r");
  assert.deepEqual(result.meta, { list: ["a", "b", "b"] });
  assert.equal(result.yaml, true);
});
