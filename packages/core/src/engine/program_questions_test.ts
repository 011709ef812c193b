import assert from "node:assert/strict";
import { formatPosition } from "../document/source-position.ts";
import { load } from "./_test-providers.ts";
import { programQuestions } from "./program-questions.ts";

/** The questions as `name@line:column reachable|unreachable once|repeated schema|-`. */
async function questions(
  text: string,
  components: Record<string, string> = {},
  props = {},
): Promise<string[]> {
  const program = await load(text, components);
  return programQuestions(program, props).map((question) =>
    [
      `${question.name}@${formatPosition(question.position)}`,
      question.reachable ? "reachable" : "unreachable",
      question.once ? "once" : "repeated",
      question.problems ? "schema" : "-",
    ].join(" ")
  );
}

const BOOLEAN = 'schema={{ type: "boolean" }}';

Deno.test("MDX-71: every <Elicit> of the root and its components is listed before running", async () => {
  assert.deepEqual(
    await questions(
      `<Elicit as="a" ${BOOLEAN}>A?</Elicit>\n\n<Ask />\n\n<Each items={[1, 2]} as="i">\n<Elicit as="b" ${BOOLEAN}>B?</Elicit>\n</Each>\n`,
      { "Ask.md": '<Elicit as="c" schema={{ enum: [1] }}>C?</Elicit>\n' },
    ),
    [
      "a@doc.md:1:1 reachable once schema",
      "c@Ask.md:1:1 reachable repeated schema",
      "b@doc.md:6:1 reachable repeated schema",
    ],
  );
});

Deno.test("MDX-71: an <If> the root's props decide leaves its other branch unreachable", async () => {
  const text =
    `<If condition={props.ask && meta.kind === "release"}>\n<Elicit as="a" ${BOOLEAN}>A?</Elicit>\n</If>\n<Else>\n<Elicit as="b" ${BOOLEAN}>B?</Elicit>\n</Else>\n`;
  const withMeta = `---\nkind: release\nprops:\n  ask: { type: boolean }\n---\n\n${text}`;
  assert.deepEqual(await questions(withMeta, {}, { ask: true }), [
    "a@doc.md:8:1 reachable once schema",
    "b@doc.md:11:1 unreachable once schema",
  ]);
  assert.deepEqual(await questions(withMeta, {}, { ask: false }), [
    "a@doc.md:8:1 unreachable once schema",
    "b@doc.md:11:1 reachable once schema",
  ]);
});

Deno.test("MDX-71: an <If> on a value known only while running keeps both branches", async () => {
  const text =
    `<Let as="x" value={1} />\n\n<If condition={x}>\n<Elicit as="a" ${BOOLEAN}>A?</Elicit>\n</If>\n<Else>\n<Elicit as="b" ${BOOLEAN}>B?</Elicit>\n</Else>\n`;
  assert.deepEqual(await questions(text), [
    "a@doc.md:4:1 reachable once schema",
    "b@doc.md:7:1 reachable once schema",
  ]);
  // A component's props are its caller's values, known only while running.
  assert.deepEqual(
    await questions("<Ask go={true} />\n", {
      "Ask.md":
        `---\nprops:\n  go: { type: boolean }\n---\n\n<If condition={props.go}>\n<Elicit as="a" ${BOOLEAN}>A?</Elicit>\n</If>\n`,
    }),
    ["a@Ask.md:7:1 reachable repeated schema"],
  );
});

Deno.test("MDX-71: a schema is known before running only when it reads nothing a run binds", async () => {
  const text =
    `---\nprops:\n  choices: { type: array }\n---\n\n<Let as="s" value={{ type: "string" }} />\n\n` +
    `<Elicit as="a" schema={{ enum: props.choices }}>A?</Elicit>\n\n` +
    `<Elicit as="b" schema={s}>B?</Elicit>\n\n` +
    `<Elicit as="c" schema={{ type: 7 }}>C?</Elicit>\n`;
  assert.deepEqual(await questions(text, {}, { choices: ["x"] }), [
    "a@doc.md:8:1 reachable once schema",
    "b@doc.md:10:1 reachable once -",
    // An invalid schema is the run's checked failure when it gets there.
    "c@doc.md:12:1 reachable once -",
  ]);
  const program = await load(text);
  const [a] = programQuestions(program, { choices: ["x"] });
  assert.deepEqual(a.problems!("x"), []);
  assert.equal(a.problems!("y").length, 1);
});

Deno.test("MDX-71: a component's <Content /> may repeat the caller's questions", async () => {
  assert.deepEqual(
    await questions(`<Twice>\n<Elicit as="a" ${BOOLEAN}>A?</Elicit>\n</Twice>\n`, {
      "Twice.md": "<Content />\n\n<Content />\n",
    }),
    ["a@doc.md:2:1 reachable repeated schema"],
  );
});
