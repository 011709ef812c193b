/**
 * The install step's rewrite of the CLI's chunks (`_eager-compile.ts`): a
 * rewritten module computes what the original does, and V8 compiles its
 * functions with it instead of on their first calls.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { testFolder } from "../../../core/src/deno/_test-temp-folder.ts";
import { compileWithModule } from "./_eager-compile.ts";
import { chunksOnCycles } from "./_bundle-cli.ts";

/** A module that leans on what the rewrite must keep: hoisting, names, exports, methods, reassignment. */
const MODULE = `
// Called before its declaration, at the top level and in a function's body.
export const early = twice(21);
const nested = (() => { const value = inner(2); function inner(n) { return n + 1; } return value; })();
export function twice(n) { return n * 2; }
function helper() { return "helper"; }
async function later() { return 1; }
function* counted() { yield 1; yield 2; }
let replaced = 0;
function reassigned() { return "first"; }
reassigned = () => "second";
function destructured() { return "first"; }
[destructured] = [() => "second"];
// A state machine's step, returned before its declaration; another function's \`step\` is its own.
function machine() { return step; function step() { return "step"; } }
function other() { let step = 0; step++; return step; }
if (early) { function inBlock() { return "block"; } replaced = inBlock(); }
const arrow = (n) => n + 1;
const object = {
  method() { return this.value; },
  value: 7,
  get getter() { return 8; },
  plain: function () { return 9; },
  [\`key\${1}\`]: () => 10,
};
class Counter { static made = () => "made"; count() { return [1, 2].map((n) => n + 1); } }
export default function () { return "default"; }
export const result = {
  early, nested, helper: helper(), replaced, reassigned: reassigned(), arrow: arrow(1),
  destructured: destructured(), machine: machine()(), other: other(),
  names: [twice.name, helper.name, later.name, counted.name, arrow.name, object.plain.name,
    object.key1.name, Counter.made.name, inner2()],
  method: object.method(), getter: object.getter, plain: object.plain(), key: object.key1(),
  methodHasPrototype: "prototype" in object.method,
  counted: [...counted()], count: new Counter().count(), made: Counter.made(),
  source: helper.toString(),
};
function inner2() { return typeof later() === "object" ? "async" : "sync"; }
`;

async function evaluate(folder: string, name: string, source: string) {
  const path = join(folder, name);
  await Deno.writeTextFile(path, source);
  const module = await import(`file://${path}`);
  return { result: module.result, default: module.default(), twice: module.twice(5) };
}

Deno.test("the rewrite of a chunk computes what the chunk computes: hoisted declarations, names, exports, methods and reassigned functions", async () => {
  const folder = await testFolder("xmd-eager-");
  const rewritten = compileWithModule(MODULE);
  // It did rewrite (so a no-op cannot pass): declarations and expressions alike.
  assert.ok(rewritten.hoisted >= 6, `${rewritten.hoisted} declarations`);
  assert.ok(rewritten.wrapped >= 5, `${rewritten.wrapped} expressions`);
  assert.match(rewritten.text, /var twice = \(function twice\(n\)/);
  // Left as they are: a reassigned declaration, a block's, methods and `export default`.
  assert.match(rewritten.text, /var step = \(function step\(\)/);
  assert.match(rewritten.text, /\nfunction reassigned\(\)/);
  assert.match(rewritten.text, /\nfunction destructured\(\)/);
  assert.match(rewritten.text, /\{ function inBlock\(\)/);
  assert.match(rewritten.text, /method\(\) \{ return this.value; \}/);
  assert.match(rewritten.text, /export default function \(\)/);
  assert.deepEqual(
    await evaluate(folder, "rewritten.mjs", rewritten.text),
    await evaluate(folder, "original.mjs", MODULE),
  );
});

Deno.test("the rewrite reports a module's static imports, and a chunk on an import cycle is found", () => {
  const { imports } = compileWithModule(
    'import { a } from "./a.js";\nimport "./b.js";\nexport * from "./c.js";\nexport { d } from "./d.js";\nexport const e = () => import("./e.js");\n',
  );
  assert.deepEqual(imports, ["./a.js", "./b.js", "./c.js", "./d.js"]);
  const graph = new Map([
    ["main.js", ["a.js"]],
    ["a.js", ["b.js"]],
    ["b.js", ["c.js", "a.js"]],
    ["c.js", []],
  ]);
  assert.deepEqual([...chunksOnCycles(graph)].sort(), ["a.js", "b.js"]);
  assert.deepEqual([...chunksOnCycles(new Map([["main.js", ["a.js"]], ["a.js", []]]))], []);
});

/** The functions of `file` V8 compiled after the module's own compile (lazily), by name. */
async function compiledLazily(file: string): Promise<string[]> {
  const log = `${file}.log`;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-config",
      "--no-code-cache",
      `--v8-flags=--log-function-events,--logfile=${log},--no-logfile-per-isolate`,
      file,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const lines = (await Deno.readTextFile(log)).split("\n");
  const script = lines.map((line) => line.split(","))
    .find((fields) => fields[0] === "script-details" && fields[2] === `file://${file}`)?.[1];
  assert.ok(script !== undefined, `no script of ${file} in V8's log`);
  // `function,parse-function,<script>,…,<name>`: a function parsed and compiled on its first call.
  return lines.map((line) => line.split(","))
    .filter((fields) =>
      fields[0] === "function" && fields[1] === "parse-function" && fields[2] === script
    )
    .map((fields) => fields.at(-1)!);
}

Deno.test("V8 compiles a rewritten chunk's functions with the chunk, not on their first calls", async () => {
  const folder = await testFolder("xmd-eager-v8-");
  const source = [
    "function parse(text) { return text.split(',').map((part) => part.trim()); }",
    "const schema = { check: (value) => value.length > 0 };",
    "export const parsed = parse('a, b').filter(schema.check);",
    "",
  ].join("\n");
  const original = join(folder, "original.mjs");
  const rewritten = join(folder, "rewritten.mjs");
  await Deno.writeTextFile(original, source);
  await Deno.writeTextFile(rewritten, compileWithModule(source).text);
  // The original's are compiled when called (so the log is read right and the case is real).
  assert.deepEqual((await compiledLazily(original)).sort(), ["", "check", "parse"]);
  assert.deepEqual(await compiledLazily(rewritten), []);
});
