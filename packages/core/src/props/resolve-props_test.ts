import assert from "node:assert/strict";
import { parseFrontmatter } from "./frontmatter.ts";
import { PropsError } from "./props-error.ts";
import { type PropsSources, resolveProps } from "./resolve-props.ts";
import { loadDocumentLibraries } from "../document/document-libraries.ts";
import { loadYamlLibrary } from "./yaml-library.ts";

// These tests call the parser and validators directly, which loadProgram loads before it parses.
await loadDocumentLibraries();
// And the yaml package, which loadProgram loads for frontmatter the plain reader declines.
await loadYamlLibrary();

const { props: spec } = parseFrontmatter(
  `required: [version]
props:
  version: { type: string, pattern: "^\\\\d+\\\\.\\\\d+\\\\.\\\\d+$" }
  dryRun: { type: boolean, default: false }
  count: { type: integer, minimum: 1 }
  ratio: { type: number }
  targets: { type: array, items: { type: string } }
  ports: { type: array, items: { type: integer } }
  config: { type: object, properties: { region: { type: string, default: eu } } }
  level: { type: string, enum: [patch, minor, major] }
`,
  "doc.md",
  2,
);

const version = { XMD_PROPS_VERSION: "1.0.0" };

function resolve(sources: Partial<PropsSources>) {
  return resolveProps(spec, { options: new Map(), env: {}, ...sources });
}

function refusal(sources: Partial<PropsSources>): PropsError {
  try {
    resolve(sources);
  } catch (error) {
    assert.ok(error instanceof PropsError, `expected a PropsError, got ${error}`);
    assert.equal(error.name, "PropsError");
    return error;
  }
  assert.fail("expected a refusal");
}

Deno.test("resolveProps applies defaults to props not given", () => {
  assert.deepEqual(resolve({ env: version }), { version: "1.0.0", dryRun: false });
});

Deno.test("resolveProps: an option beats --props", () => {
  const props = resolve({
    options: new Map([["props-version", ["1.0.0"]]]),
    propsJson: '{"version": "2.0.0"}',
  });
  assert.equal(props.version, "1.0.0");
});

Deno.test("resolveProps: --props beats the variable", () => {
  const props = resolve({ propsJson: '{"version": "2.0.0"}', env: { XMD_PROPS_VERSION: "3.0.0" } });
  assert.equal(props.version, "2.0.0");
});

Deno.test("resolveProps: the variable beats XMD_PROPS", () => {
  const props = resolve({ env: { XMD_PROPS_VERSION: "3.0.0", XMD_PROPS: '{"version": "4.0.0"}' } });
  assert.equal(props.version, "3.0.0");
});

Deno.test("resolveProps: XMD_PROPS beats the default", () => {
  const props = resolve({ env: { ...version, XMD_PROPS: '{"dryRun": true}' } });
  assert.equal(props.dryRun, true);
});

Deno.test("resolveProps parses numbers strictly", () => {
  const ok = (text: string) =>
    resolve({ env: version, options: new Map([["props-ratio", [text]]]) }).ratio;
  assert.equal(ok("1e3"), 1000);
  assert.equal(ok("-0.5"), -0.5);
  assert.equal(ok(".5"), 0.5);
  for (const text of ["12abc", "", "0x10", "Infinity", "1e400", "1,5"]) {
    const error = refusal({ env: version, options: new Map([["props-ratio", [text]]]) });
    assert.equal(error.message, 'Invalid prop "ratio" from --props-ratio: must be a number', text);
  }
});

Deno.test("resolveProps parses integers, leaving fractions to the schema", () => {
  assert.equal(resolve({ env: { ...version, XMD_PROPS_COUNT: "1e3" } }).count, 1000);
  assert.equal(
    refusal({ env: { ...version, XMD_PROPS_COUNT: "2x" } }).message,
    'Invalid prop "count" from XMD_PROPS_COUNT: must be an integer',
  );
  assert.equal(
    refusal({ env: { ...version, XMD_PROPS_COUNT: "1.5" } }).message,
    'Invalid prop "count" from XMD_PROPS_COUNT: must be integer',
  );
  assert.equal(
    refusal({ env: { ...version, XMD_PROPS_COUNT: "0" } }).message,
    'Invalid prop "count" from XMD_PROPS_COUNT: must be >= 1',
  );
});

Deno.test("resolveProps parses booleans", () => {
  const cases: [string, boolean][] = [
    ["true", true],
    ["false", false],
    ["1", true],
    ["0", false],
    ["yes", true],
    ["no", false],
    ["TRUE", true],
    ["No", false],
  ];
  for (const [text, value] of cases) {
    assert.equal(resolve({ env: { ...version, XMD_PROPS_DRY_RUN: text } }).dryRun, value, text);
  }
  assert.equal(
    refusal({ env: version, options: new Map([["props-dry-run", ["maybe"]]]) }).message,
    'Invalid prop "dryRun" from --props-dry-run: must be true, false, 1, 0, yes or no',
  );
});

Deno.test("resolveProps takes arrays from repeated options", () => {
  const props = resolve({
    env: version,
    options: new Map([["props-targets", ["a,b", "c"]], ["props-ports", ["80", "443"]]]),
  });
  assert.deepEqual(props.targets, ["a,b", "c"]);
  assert.deepEqual(props.ports, [80, 443]);
  assert.equal(
    refusal({ env: version, options: new Map([["props-ports", ["80", "http"]]]) }).message,
    'Invalid prop "ports" from --props-ports: item 2 must be an integer',
  );
});

Deno.test("resolveProps takes arrays from a variable as JSON or a comma-separated list", () => {
  const env = (targets: string) => resolve({ env: { ...version, XMD_PROPS_TARGETS: targets } });
  assert.deepEqual(env("a, b,c").targets, ["a", "b", "c"]);
  assert.deepEqual(env('["a,b", "c"]').targets, ["a,b", "c"]);
  assert.deepEqual(env("").targets, []);
  assert.deepEqual(resolve({ env: { ...version, XMD_PROPS_PORTS: "80, 443" } }).ports, [80, 443]);
  assert.equal(
    refusal({ env: { ...version, XMD_PROPS_TARGETS: '["a",' } }).message,
    'Invalid prop "targets" from XMD_PROPS_TARGETS: must be a JSON array or a comma-separated list',
  );
  assert.equal(
    refusal({ env: { ...version, XMD_PROPS_TARGETS: "[1]" } }).message,
    'Invalid prop "targets" from XMD_PROPS_TARGETS: /0 must be string',
  );
});

Deno.test("resolveProps refuses a scalar option given twice", () => {
  assert.equal(
    refusal({ options: new Map([["props-version", ["1.0.0", "2.0.0"]]]) }).message,
    'Invalid prop "version" from --props-version: must be given once',
  );
});

Deno.test("resolveProps refuses unknown options, listing the known ones", () => {
  const error = refusal({ env: version, options: new Map([["props-nope", ["x"]]]) });
  assert.equal(
    error.message,
    "Unknown option --props-nope: the document's props options are --props-version, --props-dry-run, --props-count, --props-ratio, --props-targets, --props-ports, --props-level",
  );
  assert.match(
    refusal({ env: version, options: new Map([["props-config", ["{}"]]]) }).message,
    /^Unknown option --props-config: /,
  );
  assert.equal(
    (() => {
      try {
        resolveProps([], { options: new Map([["props-x", ["1"]]]), env: {} });
      } catch (error) {
        return (error as Error).message;
      }
    })(),
    "Unknown option --props-x: the document takes no props",
  );
});

Deno.test("resolveProps refuses unknown keys in --props and XMD_PROPS", () => {
  const known = "known props are version, dryRun, count, ratio, targets, ports, config, level";
  assert.equal(
    refusal({ env: version, propsJson: '{"nope": 1}' }).message,
    `Unknown prop "nope" in --props: ${known}`,
  );
  assert.equal(
    refusal({ env: { ...version, XMD_PROPS: '{"nope": 1}' } }).message,
    `Unknown prop "nope" in XMD_PROPS: ${known}`,
  );
});

Deno.test("resolveProps refuses invalid JSON without quoting it", () => {
  const secret = "{hunter2";
  const error = refusal({ env: version, propsJson: secret });
  assert.equal(error.message, "Cannot read --props: it is not valid JSON");
  assert.equal(error.cause, undefined);
  assert.equal(
    refusal({ env: { ...version, XMD_PROPS: "[1]" } }).message,
    "Cannot read XMD_PROPS: it must be a JSON object of props",
  );
});

Deno.test("resolveProps names the prop, source and expectation, never the value", () => {
  const secret = "s3cr3t-token";
  const error = refusal({ options: new Map([["props-version", [secret]]]) });
  assert.equal(
    error.message,
    'Invalid prop "version" from --props-version: must match pattern "^\\d+\\.\\d+\\.\\d+$"',
  );
  assert.deepEqual(error.issues, [{
    prop: "version",
    source: "--props-version",
    message: error.message,
  }]);
  const level = refusal({ env: { ...version, XMD_PROPS: `{"level": "${secret}"}` } });
  assert.equal(
    level.message,
    'Invalid prop "level" from XMD_PROPS: must be one of "patch", "minor", "major"',
  );
  assert.ok(!level.message.includes(secret));
});

Deno.test("resolveProps reports nested problems with their path", () => {
  assert.equal(
    refusal({ env: version, propsJson: '{"config": {"region": 3}}' }).message,
    'Invalid prop "config" from --props: /region must be string',
  );
  assert.deepEqual(resolve({ env: version, propsJson: '{"config": {}}' }).config, {
    region: "eu",
  });
});

Deno.test("resolveProps says how to give a missing required prop", () => {
  assert.equal(
    refusal({}).message,
    'Missing required prop "version": pass --props-version, set XMD_PROPS_VERSION, or include it in --props or XMD_PROPS',
  );
});

Deno.test("resolveProps reports every problem at once", () => {
  const error = refusal({
    options: new Map([["props-count", ["x"]]]),
    env: { XMD_PROPS_RATIO: "y", XMD_PROPS: '{"level": "huge"}' },
  });
  assert.deepEqual(error.issues.map((issue) => [issue.prop, issue.source]), [
    ["count", "--props-count"],
    ["ratio", "XMD_PROPS_RATIO"],
    ["version", undefined],
    ["level", "XMD_PROPS"],
  ]);
});

Deno.test("resolveProps ignores variables for unknown props", () => {
  assert.deepEqual(resolve({ env: { ...version, XMD_PROPS_NOPE: "1", XMD_PROPS_CONFIG: "{}" } }), {
    version: "1.0.0",
    dryRun: false,
  });
});
