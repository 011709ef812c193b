import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { type ArgumentOption, readArguments } from "./argument-reader.ts";

const OPTIONS: Record<string, ArgumentOption> = {
  help: { type: "boolean", short: "h" },
  json: { type: "boolean" },
  status: { type: "string" },
  at: { type: "string" },
  o: { type: "string" },
  x: { type: "boolean" },
  output: { type: "string", short: "p" },
};

/** Every command line of up to three arguments from pieces that exercise the grammar. */
function commandLines(): string[][] {
  const pieces = [
    "run",
    "-",
    "--",
    "-h",
    "-hx",
    "-xh",
    "-hp",
    "-ph",
    "-pvalue",
    "-ovalue",
    "-q",
    "-5",
    "--json",
    "--json=1",
    "--status",
    "--status=",
    "--status=a=b",
    "--at",
    "--at=-2",
    "--josn",
    "--josn=x",
    "---x",
    "--=x",
    "--=x=y",
    "--help",
    "--constructor",
    "--__proto__",
    "-o",
    "--output",
  ];
  const lines: string[][] = [[]];
  let level: string[][] = [[]];
  for (let length = 0; length < 3; length++) {
    level = level.flatMap((line) => pieces.map((piece) => [...line, piece]));
    lines.push(...level);
  }
  return lines;
}

/** What `parseArgs` makes of `args`: its values and positionals, or the refused option. */
function expected(args: string[]) {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
    return { values: { ...values }, positionals };
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      return { refused: "unknown-option", option: /'(-{1,2}[^']*)'/.exec(message)![1] };
    }
    assert.equal(code, "ERR_PARSE_ARGS_INVALID_OPTION_VALUE", message);
    return { refused: "invalid-value", option: /--([\w-]+)/.exec(message)![1] };
  }
}

Deno.test("WF-50: the argument grammar reads every command line as node:util's parseArgs does, and refuses the same ones for the same option", () => {
  const lines = commandLines();
  assert.ok(lines.length > 20_000);
  for (const args of lines) {
    const read = readArguments(args, OPTIONS);
    const actual = "refused" in read
      ? read
      : { values: { ...read.values }, positionals: read.positionals };
    assert.deepEqual(actual, expected(args), JSON.stringify(args));
  }
});
