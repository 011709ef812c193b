import assert from "node:assert/strict";
import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";
import { CASE_END, caseMarker, convertCaseInBytes } from "./worker-shell-sed-case.ts";

/**
 * GNU sed's case conversions in a replacement (WS-159), with what GNU bash
 * 5.2 and GNU sed write (stdout and stderr together) and the status.
 */
const CASES: BashCase[] = [
  ["echo hello | sed 's/h/\\U&/'", "Hello\n", 0],
  ["echo hello world | sed -E 's/(\\w+) (\\w+)/\\u\\1 \\U\\2\\E!/'", "Hello WORLD!\n", 0],
  ["echo 'HELLO World' | sed 's/.*/\\L&/'", "hello world\n", 0],
  ["echo 'hello world' | sed -E 's/\\b(.)/\\u\\1/g'", "Hello World\n", 0],
  ["echo 'hello world' | sed 's/\\(.*\\)/\\U\\1/'", "HELLO WORLD\n", 0],
  ["echo 'HELLO' | sed -E 's/(.)(.*)/\\1\\L\\2/'", "Hello\n", 0],
  ["echo 'hello' | sed 's/.*/\\u\\L&/'", "hello\n", 0],
  ["echo 'ab' | sed 's/a/\\Ux/; s/b/y/'", "Xy\n", 0],
  ["printf 'foo bar\\n' > f; sed -i 's/foo/\\U&/' f; cat f", "FOO bar\n", 0],
  ["printf 'foo\\n' > f; sed -i.bak 's/foo/\\u&/' f; cat f f.bak", "Foo\nfoo\n", 0],
  ["echo '\u00e9lan' | sed 's/.*/\\U&/'", "\u00c9LAN\n", 0],
  ["echo 'a-b' | sed 's/-/\\\\U/'", "a\\Ub\n", 0],
  ["echo abc | sed 's/b/[\\E]/'", "a[]c\n", 0],
  ["echo 'x' | sed -e 's/x/\\Uy/' -e 's/$/z/'", "Yz\n", 0],
  ["printf 'a\\nb\\n' | sed 's/.*/\\U&/;n'", "A\nb\n", 0],
  ["echo 'hELLO' | sed 's/.*/\\L\\u&/'", "Hello\n", 0],
  ["echo 'Hello' | sed 's/.*/\\U\\l&/'", "hELLO\n", 0],
  ["echo 'Hello' | sed 's/.*/\\l\\U&/'", "HELLO\n", 0],
  ["echo 'abc' | sed 's/\\(b\\)/\\u\\E\\1/'", "abc\n", 0],
  ["echo 'ab cd' | sed -E 's/(a)(b)/\\u\\1\\U\\2/'", "AB cd\n", 0],
];

Deno.test("worker shell: sed's \\U, \\L, \\u, \\l and \\E convert case as GNU sed's do", async () => {
  await assertBashCases(CASES, { fresh: true });
});

Deno.test("worker shell: a case conversion leaves the bytes outside it as they were", () => {
  const encoder = new TextEncoder();
  const marked = encoder.encode(`a${caseMarker("U")}b${CASE_END}c`);
  const bytes = new Uint8Array([0xff, ...marked, 0xfe]);
  assert.deepEqual([...convertCaseInBytes(bytes)], [0xff, 0x61, 0x42, 0x63, 0xfe]);
  // Without a marker the very same bytes come back.
  const plain = new Uint8Array([0xff, 0x61]);
  assert.equal(convertCaseInBytes(plain), plain);
});
