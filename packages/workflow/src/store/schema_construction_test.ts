/**
 * The schemas of the journal's events, the run record and store, and the
 * Workspace are built on their first use, not when their modules load
 * (MDX-131), and a lazily built schema parses as the schema it builds. Only
 * `node:assert` is imported statically: zod's construction counter is set
 * before any module that declares a schema loads.
 */
import assert from "node:assert/strict";

Deno.test("MDX-131: loading the store, the journal's events and the Workspace builds no zod schema; a run's first read builds only what it parses", async () => {
  const z = await import("zod");
  let built = 0;
  const previous = z.config().postProcessor;
  z.config({ postProcessor: () => built++ });
  try {
    // What `xmd workflow list` and `status` load to read a run.
    const { RunStore } = await import("./run-store.ts");
    const { initializeSchema } = await import("./schema.ts");
    const { NodeSqliteSeam } = await import("../deno/node-sqlite-seam.ts");
    await import("../workspace/object-store.ts");
    await import("../workspace/publish-root.ts");
    await import("../workspace/verify-root.ts");
    await import("../workspace/hard-links.ts");
    await import("../contracts/run-record.ts");
    await import("@xmd/core/protocol");
    assert.equal(built, 0, "no schema is built when the modules load");

    const { DatabaseSync } = await import("node:sqlite");
    const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
    seam.transaction(() => initializeSchema(seam));
    const store = new RunStore(seam, "a test run");
    const execution = store.create({
      id: "lazy",
      document: "doc.md",
      target: null,
      definitionHash: "a".repeat(64),
      props: {},
      propsHash: "b".repeat(64),
      sources: [{ label: "doc.md", text: "# Doc\n", root: true }],
    }, (text) => text.length.toString(16).padStart(64, "0"));
    store.append(execution, {
      type: "close",
      coroutineId: "root",
      result: { status: "ok", value: null },
    });
    const beforeRead = built;
    assert.equal(store.record().id, "lazy");
    const readRow = built - beforeRead;
    assert.ok(readRow > 0, "the run row's schema is built by the read that parses it");
    const again = built;
    assert.equal(store.record().id, "lazy");
    assert.equal(built, again, "a schema is built once");
  } finally {
    z.config({ postProcessor: previous });
  }
});

Deno.test("MDX-131: a lazily built schema parses, refuses and composes as the schema it builds", async () => {
  const z = await import("zod");
  const { lazySchema } = await import("@xmd/core/protocol");
  let builds = 0;
  const eager = z.object({ n: z.number().int(), tag: z.string().regex(/^[a-z]+$/) }).strict();
  const lazy = lazySchema(() => {
    builds++;
    return z.object({ n: z.number().int(), tag: z.string().regex(/^[a-z]+$/) }).strict();
  });
  assert.equal(builds, 0, "declaring it builds nothing");
  for (
    const value of [{ n: 1, tag: "ok" }, { n: 1.5, tag: "ok" }, { n: 1, tag: "NO" }, { n: 1 }, null]
  ) {
    assert.deepEqual(lazy.safeParse(value), eager.safeParse(value));
  }
  assert.deepEqual(lazy.parse({ n: 2, tag: "x" }), { n: 2, tag: "x" });
  const thrown = (parse: () => unknown) => {
    try {
      parse();
    } catch (error) {
      return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
    return "nothing thrown";
  };
  assert.equal(
    thrown(() => lazy.parse({ n: "2", tag: "x" })),
    thrown(() => eager.parse({ n: "2", tag: "x" })),
  );
  assert.match(thrown(() => lazy.parse({ n: "2", tag: "x" })), /^ZodError: /);
  assert.ok(lazy instanceof z.ZodObject);
  const composed = z.object({ inner: lazy, list: z.array(lazy).optional() });
  assert.deepEqual(
    composed.safeParse({ inner: { n: 1, tag: "a" }, list: [{ n: 2, tag: "b" }] }),
    z.object({ inner: eager, list: z.array(eager).optional() })
      .safeParse({ inner: { n: 1, tag: "a" }, list: [{ n: 2, tag: "b" }] }),
  );
  assert.equal(composed.safeParse({ inner: { n: 1, tag: "a", extra: 1 } }).success, false);
  assert.equal(builds, 1, "built once, on first use");
});
