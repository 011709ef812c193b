import assert from "node:assert/strict";
import { parse } from "acorn";
import type { Program } from "estree";
import { fromMarkdown } from "mdast-util-from-markdown";
import { mdxFromMarkdown } from "mdast-util-mdx";
import { mdxjs } from "micromark-extension-mdxjs";
import { DocumentError } from "../document/document-error.ts";
import type { JsonValue } from "../json/json-value.ts";
import { type CompiledExpression, compileEstree, compileSource, type Scope } from "./mod.ts";

const SECRET = "s3cr3t-value";

const bindings: Record<string, JsonValue> = {
  props: {
    name: "Ada",
    count: 5,
    flag: true,
    nul: null,
    list: [1, 2, 3],
    nested: [1, [2, [3, [4]]]],
    words: ["a", "b", "c"],
    obj: { a: 1, b: "two" },
    key: "b",
    protoKey: "__proto__",
    ctorKey: "constructor",
    protoName: "prototype",
    index: 1,
    secret: SECRET,
    padded: "  hi  ",
    many: Array.from({ length: 100_000 }, (_, i) => i),
    half: "a".repeat(600_000),
  },
  meta: { title: "Doc" },
  approval: { ok: true },
  // JSON.parse makes "__proto__" an own data property, as a bound value can have.
  parsed: JSON.parse('{"__proto__": {"polluted": true}, "x": 1}'),
};
const scope: Scope = (name) => Object.hasOwn(bindings, name) ? bindings[name] : undefined;

const AT = { file: "doc.md", line: 1, column: 1 };

function run(source: string, within: Scope = scope): JsonValue {
  return compileSource(source, AT).evaluate(within);
}

/** The estree programs of a document's expressions, in document order. */
function programs(markdown: string): Program[] {
  const tree = fromMarkdown(markdown, {
    extensions: [mdxjs()],
    mdastExtensions: [mdxFromMarkdown()],
  });
  const found: Program[] = [];
  const walk = (node: unknown): void => {
    if (typeof node !== "object" || node === null) return;
    const record = node as Record<string, unknown>;
    const data = record.data as { estree?: Program } | undefined;
    if (data?.estree) found.push(data.estree);
    for (const value of Object.values(record)) {
      if (Array.isArray(value)) value.forEach(walk);
      else if (typeof value === "object" && value !== null && value !== data) walk(value);
    }
  };
  walk(tree);
  return found;
}

/** Compiles the one expression of `See {expression}` on line 3, starting at column 6. */
function compileInDocument(expression: string): CompiledExpression {
  const [program] = programs(`# Title\n\nSee {${expression}}\n`);
  return compileEstree(program, "doc.md");
}

function assertRefused(
  action: () => unknown,
  line: number,
  column: number,
  reason: RegExp,
): DocumentError {
  let caught: unknown;
  try {
    action();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof DocumentError, `expected a DocumentError, got ${caught}`);
  assert.match(caught.reason, reason);
  assert.deepEqual(caught.position, { file: "doc.md", line, column }, caught.message);
  assert.ok(!caught.message.includes(SECRET), "a message echoed a bound value");
  return caught;
}

/** Asserts `expression` in a document is refused at compile time at the start of `at` within it. */
function assertRefusedInDocument(expression: string, at: string, reason: RegExp): void {
  assert.ok(expression.includes(at), `${at} not in ${expression}`);
  assertRefused(() => compileInDocument(expression), 3, 6 + expression.indexOf(at), reason);
}

/** Asserts evaluating `source` (compiled at 1:1) fails at the start of `at` within it. */
function assertFails(source: string, at: string, reason: RegExp): void {
  const expression = compileSource(source, AT);
  assert.ok(source.includes(at), `${at} not in ${source}`);
  assertRefused(() => expression.evaluate(scope), 1, 1 + source.indexOf(at), reason);
}

Deno.test("literals evaluate to their JSON values; undefined becomes null", () => {
  assert.equal(run('"text"'), "text");
  assert.equal(run("'single'"), "single");
  assert.equal(run("42"), 42);
  assert.equal(run("-1.5"), -1.5);
  assert.equal(run("true"), true);
  assert.equal(run("false"), false);
  assert.equal(run("null"), null);
  assert.equal(run("undefined"), null);
});

Deno.test("template literals join text and values", () => {
  assert.equal(
    run("`Hi ${props.name}, ${props.count + 1} ${props.flag} ${null}`"),
    "Hi Ada, 6 true null",
  );
  assert.equal(run("`plain`"), "plain");
});

Deno.test("array and object literals build JSON, with spread and computed keys", () => {
  assert.deepEqual(run("[1, 'a', ...props.list, [true]]"), [1, "a", 1, 2, 3, [true]]);
  assert.deepEqual(
    run("{ a: 1, ...props.obj, [props.key]: 3, 'q r': 4, 5: 6, [1 + 1]: 7, meta }"),
    { a: 1, b: 3, "q r": 4, 5: 6, 2: 7, meta: { title: "Doc" } },
  );
  assert.deepEqual(run("{ ...null, ...undefined }"), {});
});

Deno.test("undefined elements become null and undefined properties are left out", () => {
  assert.deepEqual(run("[props.missing, undefined]"), [null, null]);
  const value = run("{ a: props.missing, b: 1, ...props.obj, c: undefined }");
  assert.deepEqual(value, { b: "two", a: 1 });
  assert.deepEqual(run("{ b: 1, b: undefined }"), {});
});

Deno.test("member access reads own data, length, indices, and yields undefined when missing", () => {
  assert.equal(run("props.name"), "Ada");
  assert.equal(run("props.obj['b']"), "two");
  assert.equal(run("props.obj[props.key]"), "two");
  assert.equal(run("props.list[0]"), 1);
  assert.equal(run("props.list[props.index]"), 2);
  assert.equal(run("props.list.length"), 3);
  assert.equal(run("props.name.length"), 3);
  assert.equal(run("props.name[0]"), "A");
  assert.equal(run("props.list[10]"), null);
  assert.equal(run("props.missing"), null);
  assert.equal(run("props.count.length"), null);
  assert.equal(run("props.list['1']"), 2);
  assert.equal(run("props.list[1.5]"), null);
});

Deno.test("inherited members are undefined: there is nothing to reach through a prototype", () => {
  assert.equal(run("({}).toString"), null);
  assert.equal(run("props.obj.hasOwnProperty"), null);
  assert.equal(run("props.name.toUpperCase"), null);
  assert.equal(run("[].map"), null);
  assert.equal(run("props.obj.valueOf ?? 'none'"), "none");
});

Deno.test("optional chaining short-circuits the whole chain", () => {
  assert.equal(run("props.missing?.deep.deeper[0]"), null);
  assert.equal(run("props.nul?.x"), null);
  assert.equal(run("props.obj?.a"), 1);
  assert.equal(run("props.missing?.trim()"), null);
  assert.equal(run("props.missing?.[props.key]"), null);
  assert.equal(run("props.count.trim?.()"), null);
  assert.equal(run("props.name.trim?.()"), "Ada");
  assert.equal(run("(props.missing?.a) ?? 'default'"), "default");
  assertFails("(props.missing?.a).b", "b", /^Cannot read property "b" of undefined/);
});

Deno.test("unary operators", () => {
  assert.equal(run("!props.flag"), false);
  assert.equal(run("!props.missing"), true);
  assert.equal(run("-props.count"), -5);
  assert.equal(run("+'42'"), 42);
  assert.equal(run("typeof props.name"), "string");
  assert.equal(run("typeof props.list"), "object");
  assert.equal(run("typeof props.nul"), "object");
  assert.equal(run("typeof props.count"), "number");
  assert.equal(run("typeof props.flag"), "boolean");
  assert.equal(run("typeof props.missing"), "undefined");
  assert.equal(run("typeof undefined"), "undefined");
  // As in JavaScript, typeof tests whether a name is bound without failing.
  assert.equal(run("typeof approval"), "object");
  assert.equal(run("typeof notBound"), "undefined");
});

Deno.test("binary operators", () => {
  const cases: [string, JsonValue][] = [
    ["1 + 2", 3],
    ["'a' + 1", "a1"],
    ["1 + 'a'", "1a"],
    ["'a' + null + true", "anulltrue"],
    ["7 - 2", 5],
    ["3 * 4", 12],
    ["7 / 2", 3.5],
    ["7 % 3", 1],
    ["2 ** 10", 1024],
    ["1 == 1", true],
    ["null == undefined", true],
    ["1 != 2", true],
    ["1 === 1", true],
    ["'1' === 1", false],
    ["1 !== 1", false],
    ["props.obj === props.obj", true],
    ["1 < 2", true],
    ["2 <= 2", true],
    ["'b' > 'a'", true],
    ["1 >= 2", false],
  ];
  for (const [source, expected] of cases) assert.deepEqual(run(source), expected, source);
});

Deno.test("logical and conditional operators short-circuit", () => {
  assert.equal(run("props.flag && 'yes'"), "yes");
  assert.equal(run("props.nul && notBound"), null);
  assert.equal(run("props.flag || notBound"), true);
  assert.equal(run("props.missing || 'fallback'"), "fallback");
  assert.equal(run("props.nul ?? 'fallback'"), "fallback");
  assert.equal(run("0 ?? 'fallback'"), 0);
  assert.equal(run("props.flag ? 'on' : notBound"), "on");
  assert.equal(run("props.list.length > 5 ? 'many' : 'few'"), "few");
});

Deno.test("string methods", () => {
  const cases: [string, JsonValue][] = [
    ["props.name.toUpperCase()", "ADA"],
    ["props.name.toLowerCase()", "ada"],
    ["props.padded.trim()", "hi"],
    ["props.padded.trimStart()", "hi  "],
    ["props.padded.trimEnd()", "  hi"],
    ["props.name.startsWith('A')", true],
    ["props.name.startsWith('d', 1)", true],
    ["props.name.endsWith('a')", true],
    ["props.name.includes('d')", true],
    ["props.name.indexOf('a')", 2],
    ["'abab'.lastIndexOf('a')", 2],
    ["props.name.slice(1)", "da"],
    ["props.name.slice(-2, -1)", "d"],
    ["props.name.substring(1, 2)", "d"],
    ["'a,b,c'.split(',')", ["a", "b", "c"]],
    ["'a,b,c'.split(',', 2)", ["a", "b"]],
    ["'a-a'.replace('a', 'b')", "b-a"],
    ["'a-a'.replaceAll('a', 'b')", "b-b"],
    ["'5'.padStart(3, '0')", "005"],
    ["'5'.padEnd(3)", "5  "],
    ["'ab'.repeat(2)", "abab"],
    ["props.name.at(-1)", "a"],
    ["props.name.at(10)", null],
    ["'a'.concat('b', 'c')", "abc"],
    ["props.name.slice(undefined, 2)", "Ad"],
  ];
  for (const [source, expected] of cases) assert.deepEqual(run(source), expected, source);
});

Deno.test("replacements are literal text, never $ patterns", () => {
  assert.equal(run("'price'.replace('price', '$&$1')"), "$&$1");
  assert.equal(run("'a-a'.replaceAll('a', '$$')"), "$$-$$");
  assert.equal(run("'ab'.replaceAll('', '-')"), "-a-b-");
});

Deno.test("array and number methods", () => {
  const cases: [string, JsonValue][] = [
    ["props.list.includes(2)", true],
    ["props.words.includes('z')", false],
    ["props.list.indexOf(3)", 2],
    ["[1, 2, 1].lastIndexOf(1)", 2],
    ["props.words.join('-')", "a-b-c"],
    ["props.list.join()", "1,2,3"],
    ["[null, true, 'x'].join('')", "truex"],
    ["props.list.slice(1)", [2, 3]],
    ["props.list.at(-1)", 3],
    ["props.list.concat([4], 5)", [1, 2, 3, 4, 5]],
    ["props.nested.flat()", [1, 2, [3, [4]]]],
    ["props.nested.flat(10)", [1, 2, 3, 4]],
    ["props.count.toFixed(2)", "5.00"],
    ["(1.5).toFixed()", "2"],
    ["props.words.slice(0, 2).join('+').toUpperCase()", "A+B"],
  ];
  for (const [source, expected] of cases) assert.deepEqual(run(source), expected, source);
});

Deno.test("identifiers lists the free names once, in order of first use", () => {
  const expression = compileSource(
    "props.a && approval.ok ? props.b[meta.k] : { x: undefined, props }",
    AT,
  );
  assert.deepEqual(expression.identifiers, ["props", "approval", "meta"]);
  assert.deepEqual(compileSource("'x'.toUpperCase()", AT).identifiers, []);
});

Deno.test("a compiled expression is evaluated against each scope it is given", () => {
  const expression = compileSource("props.n * 2", AT);
  assert.equal(expression.evaluate(() => ({ n: 1 })), 2);
  assert.equal(expression.evaluate(() => ({ n: 21 })), 42);
  assert.equal(expression.source, "props.n * 2");
  assert.deepEqual(expression.position, AT);
});

Deno.test("compileEstree compiles expressions of text and attributes from the MDX parser", () => {
  const [text, attribute] = programs(
    "Hi {props.name}!\n\n<X y={[meta.title,\n  props.count]} />\n",
  );
  const first = compileEstree(text, "doc.md");
  assert.equal(first.evaluate(scope), "Ada");
  assert.equal(first.source, "");
  assert.deepEqual(first.position, { file: "doc.md", line: 1, column: 5 });
  const second = compileEstree(attribute, "doc.md");
  assert.deepEqual(second.evaluate(scope), ["Doc", 5]);
  assert.deepEqual(second.identifiers, ["meta", "props"]);
  assert.equal(compileInDocument("props.name /* why */").evaluate(scope), "Ada");
});

Deno.test("compileEstree refuses empty and comment-only expressions", () => {
  assertRefused(() => compileInDocument(""), 3, 6, /^Expression is empty/);
  assertRefused(() => compileInDocument("  "), 3, 6, /^Expression is empty/);
  assertRefused(() => compileInDocument("/* note */"), 3, 6, /^Expression contains only a comment/);
});

Deno.test("compileEstree refuses statements and several statements", () => {
  const program = (source: string) =>
    parse(source, {
      ecmaVersion: "latest",
      sourceType: "module",
      locations: true,
    }) as unknown as Program;
  assertRefused(
    () => compileEstree(program("let x = 1"), "doc.md"),
    1,
    1,
    /^Statements and declarations are not allowed/,
  );
  assertRefused(() => compileEstree(program("a;\n  b"), "doc.md"), 2, 3, /^Only one expression/);
  assertRefused(() => compileEstree(program("if (a) b"), "doc.md"), 1, 1, /^Statements/);
});

Deno.test("every refused construct is refused where it is written", () => {
  const cases: [string, string, RegExp][] = [
    ["/ab+/g", "/ab+/g", /^Regular expressions are not allowed/],
    ["10n", "10n", /^BigInt literals are not allowed/],
    ["props.x + 1e999", "1e999", /^Number literal is too large/],
    ["props.f`x`", "props.f`x`", /^Tagged templates are not allowed/],
    ["{ get a() { return 1 } }", "get", /^Getters, setters and methods/],
    ["{ set a(v) {} }", "set", /^Getters, setters and methods/],
    ["{ a() { return 1 } }", "a()", /^Getters, setters and methods/],
    ["{ __proto__: null }", "__proto__", /^Key "__proto__" is not allowed/],
    ["{ 'constructor': 1 }", "'constructor'", /^Key "constructor" is not allowed/],
    ["{ prototype: 1 }", "prototype", /^Key "prototype" is not allowed/],
    ["[1, , 2]", "[1", /^Array holes are not allowed/],
    ["props.a = 1", "props.a = 1", /^Assignment is not allowed/],
    ["props.a += 1", "props.a += 1", /^Assignment is not allowed/],
    ["props.a++", "props.a++", /^Increment and decrement/],
    ["--props.a", "--props.a", /^Increment and decrement/],
    ["new Date()", "new Date()", /^"new" is not allowed/],
    ["delete props.a", "delete", /^"delete" is not allowed/],
    ["void 0", "void", /^"void" is not allowed/],
    ["'a' in props", "'a' in props", /^"in" is not allowed/],
    ["props instanceof Object", "props", /^"instanceof" is not allowed/],
    ["1 | 2", "1 | 2", /^Bitwise operators are not allowed/],
    ["1 << 2", "1 << 2", /^Bitwise operators are not allowed/],
    ["~1", "~1", /^Bitwise operators are not allowed/],
    ["props.a, props.b", "props.a", /^The comma operator is not allowed/],
    ["x => x", "x => x", /^Functions are not allowed/],
    ["function () { return 1 }", "function", /^Functions are not allowed/],
    ["class {}", "class", /^Classes are not allowed/],
    ["this", "this", /^"this" is not allowed/],
    ["this.x", "this", /^"this" is not allowed/],
    ["import('x')", "import", /^import\(\) is not allowed/],
    ["import.meta", "import", /^import.meta and new.target are not allowed/],
    ["await props", "await", /^"await" is not allowed/],
    ["<b>hi</b>", "<b>", /^JSX is not allowed inside an expression/],
    ["props.a && (1, 2)", "1, 2", /^The comma operator/],
    ["foo()", "foo", /^Only method calls such as name.trim\(\) are allowed/],
    ["props.name['trim']()", "'trim'", /^Methods must be called by name with a dot/],
    [
      "props.list.map(x => x)",
      "map",
      /^Method "map" is not allowed: the allowed methods are at, concat/,
    ],
    ["props.name.toString()", "toString", /^Method "toString" is not allowed/],
    ["props.name.trim(...props.list)", "...", /^Spread arguments are not allowed/],
    [
      "props.name.trim(1)",
      "props.name.trim(1)",
      /^Cannot call "trim" with 1 argument: it takes no arguments/,
    ],
    ["props.name.at()", "props", /^Cannot call "at" with 0 arguments: it takes 1 argument/],
    [
      "props.list.slice(1, 2, 3)",
      "props",
      /^Cannot call "slice" with 3 arguments: it takes 0 to 2/,
    ],
    ["props.name.replace('a')", "props", /^Cannot call "replace" with 1 argument: it takes 2/],
    ["props.__proto__", "__proto__", /^Property "__proto__" is not allowed/],
    ["props['__proto__']", "'__proto__'", /^Property "__proto__" is not allowed/],
    ["props.obj['constructor']", "'constructor'", /^Property "constructor" is not allowed/],
    ["''.constructor", "constructor", /^Property "constructor" is not allowed/],
    ["[].constructor", "constructor", /^Property "constructor" is not allowed/],
    ["({}).constructor", "constructor", /^Property "constructor" is not allowed/],
    ["props?.prototype", "prototype", /^Property "prototype" is not allowed/],
    ["constructor", "constructor", /^Name "constructor" is not allowed/],
    ["typeof __proto__", "__proto__", /^Name "__proto__" is not allowed/],
  ];
  for (const [expression, at, reason] of cases) assertRefusedInDocument(expression, at, reason);
});

Deno.test("a refusal inside a multi-line attribute names its own line and column", () => {
  const [program] = programs("<X y={[\n  props.a,\n    props.b++\n]} />\n");
  assertRefused(() => compileEstree(program, "doc.md"), 3, 5, /^Increment and decrement/);
});

Deno.test("unknown names fail at evaluation, naming what is in scope", () => {
  const error = assertRefused(() => run("props.flag && Math.max"), 1, 15, /^Unknown name "Math"/);
  assert.equal(
    error.reason,
    'Unknown name "Math": bindings in scope are props, meta and names bound with as="…"',
  );
  for (const global of ["globalThis", "JSON", "Object", "NaN", "Infinity", "window", "Deno"]) {
    assertRefused(() => run(global), 1, 1, new RegExp(`^Unknown name "${global}"`));
  }
});

Deno.test("reading a member of null or undefined without ?. fails where the member is named", () => {
  assertFails("props.nul.x", "x", /^Cannot read property "x" of null/);
  assertFails("props.missing.x", "x", /^Cannot read property "x" of undefined/);
  assertFails(
    "props.nul[props.secret]",
    "props.secret",
    /^Cannot read a computed property of null/,
  );
  assertFails("props.missing.trim()", "trim", /^Cannot call "trim" on undefined/);
});

Deno.test("computed access refuses prototype names at run time", () => {
  assertFails("props.obj[props.protoKey]", "props.protoKey", /^Cannot read property "__proto__"/);
  assertFails("props.name[props.ctorKey]", "props.ctorKey", /^Cannot read property "constructor"/);
  assertFails(
    "props.list[props.protoName]",
    "props.protoName",
    /^Cannot read property "prototype"/,
  );
  assertFails("{ [props.protoKey]: 1 }", "props.protoKey", /^Cannot use key "__proto__"/);
  assertFails(
    "props.obj[props.flag]",
    "props.flag",
    /^Cannot read a property with a boolean as key/,
  );
  assertFails("{ [props.list]: 1 }", "props.list", /^Cannot use an array as an object key/);
});

Deno.test("spreading an own __proto__ property copies data and never sets a prototype", () => {
  const value = run("{ ...parsed }") as Record<string, JsonValue>;
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.deepEqual(Object.keys(value), ["__proto__", "x"]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("methods refuse receivers and arguments of the wrong type", () => {
  assertFails(
    "props.count.trim()",
    "trim",
    /^Cannot call "trim" on a number: it is a method of strings$/,
  );
  assertFails(
    "props.obj.includes(1)",
    "includes",
    /^Cannot call "includes" on an object: it is a method of strings and arrays$/,
  );
  assertFails(
    "props.name.split(1)",
    "split",
    /^Cannot call "split": argument 1 must be a string, got a number/,
  );
  assertFails("props.name.replace('a', 1)", "replace", /argument 2 must be a string, got a number/);
  assertFails(
    "props.name.includes(props.list)",
    "includes",
    /argument 1 must be a string, got an array/,
  );
  assertFails(
    "props.list.includes(undefined)",
    "includes",
    /argument 1 must be a JSON value, got undefined/,
  );
  assertFails(
    "props.list.concat(props.missing)",
    "concat",
    /argument 1 must be a JSON value, got undefined/,
  );
  assertFails(
    "props.list.flat(11)",
    "flat",
    /^Cannot call "flat": the depth must be an integer from 0 to 10/,
  );
  assertFails(
    "props.count.toFixed(101)",
    "toFixed",
    /the number of digits must be an integer from 0 to 100/,
  );
  assertFails("props.name.repeat(-1)", "repeat", /the count must not be negative/);
  assertFails("props.nested.join()", "join", /^Cannot call "join": element 2 is an array/);
});

Deno.test("method results are bounded before anything large is built", () => {
  assertFails(
    "'x'.repeat(1e9)",
    "repeat",
    /^Cannot call "repeat": the result would be longer than 1048576 characters/,
  );
  assertFails("'x'.repeat(1048577)", "repeat", /longer than 1048576/);
  assert.equal(run("'x'.repeat(1048576).length"), 1_048_576);
  assertFails("'ab'.padStart(2000000)", "padStart", /longer than 1048576/);
  assertFails("props.half.replaceAll('a', 'aa')", "replaceAll", /longer than 1048576/);
  assertFails("props.half.concat(props.half)", "concat", /longer than 1048576/);
  assertFails("[props.half, props.half].join()", "join", /longer than 1048576/);
  assertFails(
    "props.many.concat([1])",
    "concat",
    /^Cannot call "concat": the result would have more than 100000 elements/,
  );
  assert.equal(run("props.many.concat().length"), 100_000);
  assertFails("'a'.repeat(200000).split('')", "split", /more than 100000 elements/);
});

Deno.test("numbers that JSON cannot hold are refused where they are computed", () => {
  assertFails("1 / 0", "1 / 0", /^Cannot apply "\/": the result is not a finite number/);
  assertFails("0 / 0", "0", /not a finite number/);
  assertFails("props.count ** 1000", "props", /^Cannot apply "\*\*"/);
  assertFails("1e308 + 1e308", "1e308", /^Cannot apply "\+"/);
  assertFails("+'abc'", "+", /^Cannot apply unary "\+": the result is not a finite number/);
  assertFails("[1, props.count / 0]", "props", /not a finite number/);
});

Deno.test("operators refuse operands whose JavaScript coercion a document never means", () => {
  assertFails(
    "'a' - 1",
    "'a'",
    /^Cannot apply "-" to a string and a number: both operands must be numbers/,
  );
  assertFails("true + 1", "true", /^Cannot apply "\+" to a boolean and a number/);
  assertFails("props.list < 2", "props", /^Cannot compare an array with a number using "<"/);
  assertFails("'a' < 1", "'a'", /compare two numbers or two strings/);
  assertFails("-props.list", "-", /^Cannot apply unary "-" to an array/);
  assertFails("`${props.list}`", "props", /^Cannot convert an array to text: use .join/);
  assertFails("`${props.obj}`", "props", /^Cannot convert an object to text/);
  assertFails("'a' + props.missing", "'a'", /^Cannot convert undefined to text/);
  assertFails("[...props.name]", "...", /^Cannot spread a string into an array/);
  assertFails("{ ...props.list }", "...", /^Cannot spread an array into an object/);
});

Deno.test("messages never contain bound values", () => {
  for (
    const source of [
      "props.secret - 1",
      "props.secret.repeat(2000000)",
      "props.nul[props.secret]",
      "props.obj[props.secret].x",
      "props.list.concat(props.secret).join(1)",
      "{ [props.nul]: props.secret }",
      "props.secret < 1",
      "+props.secret",
    ]
  ) {
    const expression = compileSource(source, AT);
    assert.throws(() => expression.evaluate(scope), (error: unknown) => {
      assert.ok(error instanceof DocumentError, source);
      assert.ok(!error.message.includes(SECRET), error.message);
      return true;
    });
  }
});

Deno.test("compileSource places nodes and syntax errors absolutely in the document", () => {
  const start = { file: "doc.md", line: 5, column: 10 };
  assertRefused(() => compileSource("a +\n  b++", start), 6, 3, /^Increment and decrement/);
  assertRefused(() => compileSource("a +\r\n  b++", start), 6, 3, /^Increment and decrement/);
  assertRefused(() => compileSource("a + b++", start), 5, 14, /^Increment and decrement/);
  assertRefused(
    () => compileSource("a +\n  )", start),
    6,
    3,
    /^Invalid expression syntax: Unexpected token$/,
  );
  assertRefused(() => compileSource("a + )", start), 5, 14, /^Invalid expression syntax/);
  assertRefused(
    () => compileSource("a /* never closed", start),
    5,
    12,
    /^Invalid expression syntax: Unterminated comment/,
  );
  assertRefused(
    () => compileSource("a\n\n  b", start),
    7,
    3,
    /^Unexpected code after the expression/,
  );
  assertRefused(() => compileSource("a; b", start), 5, 11, /^Unexpected code after the expression/);
  assertRefused(() => compileSource("", start), 5, 10, /^Expression is empty/);
  assertRefused(
    () => compileSource("  // note", start),
    5,
    10,
    /^Expression contains only a comment/,
  );
  assertRefused(() => compileSource("<b/>", start), 5, 10, /^Invalid expression syntax/);
  const multiline = compileSource("props\n  .missing\n  .x", start);
  assert.deepEqual(multiline.position, start);
  assertRefused(() => multiline.evaluate(scope), 7, 4, /^Cannot read property "x" of undefined/);
  assertRefused(
    () => compileSource("1 +\n\n  nope", start).evaluate(scope),
    7,
    3,
    /^Unknown name "nope"/,
  );
  assert.deepEqual(compileSource("  {a: 1}  ", start).evaluate(scope), { a: 1 });
  assert.deepEqual(compileSource("  props.name", start).position, { ...start, column: 12 });
});
