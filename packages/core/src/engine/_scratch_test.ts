import { createWorld, load, run } from "./_test-providers.ts";
async function show(text: string, opts: Parameters<typeof createWorld>[0] = {}, comps: Record<string,string> = {}, props = {}) {
  const w = createWorld(opts);
  try {
    const r = await run(await load(text, comps), w.providers, { props });
    console.log("=====\n" + text + "\n--- out:", JSON.stringify(r.stdout), "\nchunks", JSON.stringify(r.chunks), "\nerr", JSON.stringify(r.stderr), "\noutcome", JSON.stringify(r.outcome), "\nevents", JSON.stringify(r.events), "\nfiles", JSON.stringify([...w.fs.files]), "\ncalls", JSON.stringify(w.log.calls));
  } catch (e) { console.log("=====\n" + text + "\nTHROWN", e); }
}
const example = `---
props:
  version:
    type: string
    pattern: "^\\\\d+\\\\.\\\\d+\\\\.\\\\d+$"
    description: The version to release
  dryRun:
    type: boolean
    default: false
---

# Release {props.version}

<File path="release/VERSION">{props.version}</File>

\`\`\`sh exec
mkdir -p release
echo "built at $(date -u +%F)" > release/BUILD
ls release
\`\`\`

<Elicit as="approval" schema={{ type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }}>
Publish version {props.version}?
</Elicit>

<If condition={approval.ok && !props.dryRun}>
  <File path="release/PUBLISHED">yes</File>
  Published {props.version}.
</If>
<Else>
  Not published.
</Else>
`;
Deno.test("x", async () => {
  console.log(example);
  await show(example, {shellFallback: () => ({stdout: ["BUILD\n", "VERSION\n"]}), answers: {approval: {ok: true}}}, {}, {version: "1.4.0", dryRun: false});
  await show('Status: <If condition={props.ok}>good</If><Else>bad</Else>.\n\n- a {/* c */}\n- b\n', {}, {}, {ok: false});
  await show('<File path="m.txt">\n  line1\n    indented\n  line3\n\n\n\n  after blanks\n</File>\n', {});
  await show('<Let as="x" value={1} />\n<Each items={[10]} as="x">\n  <Let as="y" value={x} />\n  in {x} {y}\n</Each>\n\nout {x}\n', {});
  await show('- one\n- <File path="a">x</File>two\n\n> quote {1}\n', {});
});
