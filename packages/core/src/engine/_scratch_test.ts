import { createWorld, load, run } from "./_test-providers.ts";
Deno.test("x", async () => {
  const doc = 'Before.\n\n<Elicit as="approval" schema={{ type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }}>\nq\n</Elicit>\n';
  const world = createWorld({ answers: { approval: { ok: "sure-thing" } } });
  try {
    const r = await run(await load(doc), world.providers);
    console.log(JSON.stringify(r));
  } catch (e) { console.log("THROWN", e, Object.getPrototypeOf(Object.getPrototypeOf(e)).constructor.name); }
});
