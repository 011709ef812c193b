import assert from "node:assert/strict";

const LOAD_PROGRAM = new URL("./load-program.ts", import.meta.url).href;
const SCHEMA_LIBRARY = new URL("./schema-library.ts", import.meta.url).href;
const PROPS = new URL("../props/resolve-props.ts", import.meta.url).href;

/**
 * Loads `text` as a program in a fresh Deno process, resolves its props, and
 * reports whether Ajv was loaded by then (module state is per process, so the
 * test's own imports cannot answer for it).
 */
async function ajvLoadedAfter(text: string): Promise<string> {
  const script = `
    import { loadProgram } from ${JSON.stringify(LOAD_PROGRAM)};
    import { schemaLibrary } from ${JSON.stringify(SCHEMA_LIBRARY)};
    import { resolveProps } from ${JSON.stringify(PROPS)};
    const program = await loadProgram({ file: "doc.md", text: ${JSON.stringify(text)} }, () =>
      Promise.resolve(undefined));
    const props = resolveProps(program.root.props, { options: new Map(), env: {} });
    let loaded = true;
    try { schemaLibrary(); } catch { loaded = false; }
    console.log(JSON.stringify({ props, loaded }));
  `;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--lock=dev.lock", script],
    cwd: new URL("../../../../", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return new TextDecoder().decode(stdout).trim();
}

const FRONTMATTER = "---\nprops:\n  name:\n    type: string\n    default: world\n" +
  "  count:\n    type: integer\n    minimum: 1\n    default: 2\n---\n\n";

Deno.test("MDX-110: a document with props and no <Elicit> is loaded and its props validated without Ajv", async () => {
  const result = JSON.parse(await ajvLoadedAfter(`${FRONTMATTER}# Hello, {props.name}!\n`));
  assert.deepEqual(result.props, { name: "world", count: 2 });
  assert.equal(result.loaded, false);
});

Deno.test("MDX-81: a program holding an <Elicit> loads Ajv with it, for its answer schema", async () => {
  const result = JSON.parse(
    await ajvLoadedAfter(
      `${FRONTMATTER}<Elicit as="ok" schema={{ type: "boolean" }}>Go?</Elicit>\n`,
    ),
  );
  assert.equal(result.loaded, true);
});
