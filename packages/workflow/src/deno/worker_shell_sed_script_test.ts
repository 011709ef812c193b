import assert from "node:assert/strict";
import { sedArgsForJustBash, sedScriptForJustBash } from "./worker-shell-sed-script.ts";

Deno.test("WS-138: a script with no a, i or c text and no escaped backslash in a replacement is left as it is", () => {
  const scripts = [
    "s/a/b/g",
    "1d;$d",
    "/x/,/y/{s/a/b/;p}",
    "y/abc/xyz/",
    String.raw`y/\\/x/`,
    String.raw`:a;N;$!ba;s/\n/ /g`,
    "s|a/b|c|",
    "0~2d",
    "/re/I,+2!d",
    "s/[/]/x/",
    "r file.txt",
    "w out.txt",
    "s/x/y/w out",
    "$!N",
    "l 20",
    "q5",
    "e echo hi",
    "# comment\ns/a/b/",
    String.raw`\,a/b,d`,
    String.raw`s/a\/b/c/`,
    "b end;s/a/b/;:end",
  ];
  for (const script of scripts) {
    assert.deepEqual(sedScriptForJustBash(script), {
      script,
      endsWithNewline: false,
      convertsCase: false,
    }, script);
  }
});

Deno.test("WS-138: texts and escaped backslashes are spelled as just-bash reads GNU's meaning", () => {
  const cases: [string, string, boolean][] = [
    [String.raw`1i\header`, "1i\\\nheader", false],
    ["1i header", "1i\\\nheader", false],
    [String.raw`$a\  two`, "$a\\\n  two", false],
    [String.raw`a\x\ny`, "a\\\nx\\ny", false],
    [String.raw`1a\a\\b`, "1a\\\na\\b", false],
    ["$a\\", "${}", true],
    ["1!a\\", "1!{}", false],
    ["2c\\", "2d", false],
    [String.raw`s/"/\\"/g`, String.raw`s/"/\\\\"/g`, false],
    [String.raw`s/a/\\n/;1i\h`, "s/a/\\\\\\\\n/;1i\\\nh", false],
    // A text just-bash cannot be given keeps its spelling.
    ["a\\x\\\\", "a\\x\\\\", false],
    [String.raw`a\hi\x41`, String.raw`a\hi\x41`, false],
  ];
  for (const [script, spelled, ends] of cases) {
    assert.deepEqual(
      sedScriptForJustBash(script),
      { script: spelled, endsWithNewline: ends, convertsCase: false },
      script,
    );
  }
});

Deno.test("WS-138: every -e is joined as GNU joins them, and a script from a file is not read", () => {
  assert.deepEqual(
    sedArgsForJustBash(["-n", "-e", String.raw`s/"/\\"/`, "-e", "1i\\", "-e", "hdr", "f"]),
    {
      args: ["-n", "-e", String.raw`s/"/\\\\"/` + "\n1i\\\nhdr", "f"],
      endsWithNewline: false,
      convertsCase: false,
    },
  );
  assert.deepEqual(sedArgsForJustBash(["-i", "$a\\", "f"]), {
    args: ["-i", "${}", "f"],
    endsWithNewline: true,
    convertsCase: false,
  });
  const unchanged = ["-f", "script.sed", "-e", String.raw`1i\x`, "f"];
  assert.deepEqual(sedArgsForJustBash(unchanged), {
    args: unchanged,
    endsWithNewline: false,
    convertsCase: false,
  });
  assert.deepEqual(sedArgsForJustBash(["-n", "p", "f"]), {
    args: ["-n", "p", "f"],
    endsWithNewline: false,
    convertsCase: false,
  });
});
