import assert from "node:assert/strict";
import { compileGlob, GlobPatternError } from "./glob-pattern.ts";

function matches(pattern: string, paths: readonly string[]): string[] {
  return paths.filter(compileGlob(pattern));
}

Deno.test("compileGlob: literal paths match exactly", () => {
  assert.deepEqual(matches("a/b.txt", ["a/b.txt", "a/b.txtx", "xa/b.txt", "a/b/txt"]), [
    "a/b.txt",
  ]);
});

Deno.test("compileGlob: * stays within one segment and matches empty", () => {
  assert.deepEqual(matches("*.ts", ["a.ts", ".ts", "b/a.ts", "a.tsx"]), ["a.ts", ".ts"]);
  assert.deepEqual(matches("a*", ["a", "abc", "a/b"]), ["a", "abc"]);
  assert.deepEqual(matches("a/*/c", ["a/b/c", "a/c", "a/b/b/c"]), ["a/b/c"]);
});

Deno.test("compileGlob: * and ** match dotfiles", () => {
  assert.deepEqual(matches("*", [".env", "a", ".git/config"]), [".env", "a"]);
  assert.deepEqual(matches("**/*", [".env", ".git/config", "a/.b"]), [
    ".env",
    ".git/config",
    "a/.b",
  ]);
});

Deno.test("compileGlob: ? matches exactly one non-slash character", () => {
  assert.deepEqual(matches("a?c", ["abc", "ac", "abbc", "a/c"]), ["abc"]);
  assert.deepEqual(matches("?", ["é", "😀", "ab"]), ["é", "😀"]);
});

Deno.test("compileGlob: ** as a whole segment matches zero or more segments", () => {
  const paths = ["a.md", "x/a.md", "x/y/a.md", "a.mdx"];
  assert.deepEqual(matches("**/a.md", paths), ["a.md", "x/a.md", "x/y/a.md"]);
  assert.deepEqual(matches("x/**/a.md", paths), ["x/a.md", "x/y/a.md"]);
  assert.deepEqual(matches("x/**", ["x", "x/a", "x/a/b", "xy/a"]), ["x", "x/a", "x/a/b"]);
  assert.deepEqual(matches("**", ["a", "a/b", ".c/d"]), ["a", "a/b", ".c/d"]);
  assert.deepEqual(matches("**/**/a", ["a", "b/a", "b/c/a"]), ["a", "b/a", "b/c/a"]);
  assert.deepEqual(matches("a/**/**", ["a", "a/b"]), ["a", "a/b"]);
});

Deno.test("compileGlob: ** inside a segment means *", () => {
  assert.deepEqual(matches("a**b", ["ab", "axxb", "a/b", "ax/yb"]), ["ab", "axxb"]);
});

Deno.test("compileGlob: classes, ranges and negation", () => {
  assert.deepEqual(matches("[abc].txt", ["a.txt", "d.txt", "ab.txt"]), ["a.txt"]);
  assert.deepEqual(matches("file[0-9]", ["file0", "file9", "filea"]), ["file0", "file9"]);
  assert.deepEqual(matches("[!a]", ["a", "b", "/"]), ["b"]);
  assert.deepEqual(matches("[^a]", ["a", "b"]), ["b"]);
  assert.deepEqual(matches("[]a]", ["]", "a", "b"]), ["]", "a"]);
  assert.deepEqual(matches("[!]]", ["]", "a"]), ["a"]);
  assert.deepEqual(matches("[a-]", ["a", "-", "b"]), ["a", "-"]);
  assert.deepEqual(matches("[\\]x]", ["]", "x", "\\"]), ["]", "x"]);
  assert.deepEqual(matches("[*?{]", ["*", "?", "{", "a"]), ["*", "?", "{"]);
});

Deno.test("compileGlob: negated classes never match a slash", () => {
  assert.deepEqual(matches("a[!b]c", ["a/c", "axc"]), ["axc"]);
});

Deno.test("compileGlob: braces alternate, nest and may span segments", () => {
  assert.deepEqual(matches("*.{ts,tsx}", ["a.ts", "a.tsx", "a.js"]), ["a.ts", "a.tsx"]);
  assert.deepEqual(matches("{a,b{c,d}}", ["a", "bc", "bd", "b"]), ["a", "bc", "bd"]);
  assert.deepEqual(matches("{src/**,test}/*.ts", ["src/a.ts", "src/x/a.ts", "test/a.ts"]), [
    "src/a.ts",
    "src/x/a.ts",
    "test/a.ts",
  ]);
  assert.deepEqual(matches("a{,.bak}", ["a", "a.bak", "a.b"]), ["a", "a.bak"]);
  assert.deepEqual(matches("{a}", ["a", "{a}"]), ["a"]);
  assert.deepEqual(matches("a,b", ["a,b", "a"]), ["a,b"]);
});

Deno.test("compileGlob: backslash escapes metacharacters", () => {
  assert.deepEqual(matches("\\*.txt", ["*.txt", "a.txt"]), ["*.txt"]);
  assert.deepEqual(matches("\\{a,b\\}", ["{a,b}", "a"]), ["{a,b}"]);
  assert.deepEqual(matches("a\\[1\\]", ["a[1]", "a1"]), ["a[1]"]);
  assert.deepEqual(matches("\\?", ["?", "a"]), ["?"]);
});

Deno.test("compileGlob: regular expression syntax is literal", () => {
  assert.deepEqual(matches("a.b+(c)|$^", ["a.b+(c)|$^", "axb+(c)|$^", "abbc"]), ["a.b+(c)|$^"]);
});

Deno.test("compileGlob: refuses patterns that cannot match a relative path", () => {
  const refused: [string, RegExp][] = [
    ["", /empty/],
    ["/etc/*", /absolute/],
    ["../a", /"\.\." segment/],
    ["a/../b", /"\.\." segment/],
    ["{..,a}/b", /"\.\." segment/],
    ["./a", /"\." segment/],
    ["a//b", /empty segment/],
    ["a/", /empty segment/],
    ["{a,b", /unbalanced "\{" at column 1/],
    ["a}", /unbalanced "\}" at column 2/],
    ["{a,{b}", /unbalanced "\{"/],
    ["[ab", /unbalanced "\[" at column 1/],
    ["x[]", /unbalanced "\["/],
    ["a]", /unbalanced "\]" at column 2/],
    ["[a-", /unbalanced "\["/],
    ["[z-a]", /reversed/],
    ["[a/]", /contains "\/"/],
    ["[.-0]", /range ".-0" at column 1 contains "\/"/],
    ["a\\", /ends with "\\"/],
  ];
  for (const [pattern, reason] of refused) {
    assert.throws(
      () => compileGlob(pattern),
      (error: unknown) => {
        assert.ok(error instanceof GlobPatternError, pattern);
        assert.equal(error.name, "GlobPatternError");
        assert.equal(error.pattern, pattern);
        assert.ok(error.message.startsWith(`Cannot compile glob "${pattern}": `), error.message);
        assert.match(error.reason, reason);
        return true;
      },
    );
  }
});

Deno.test("compileGlob: refuses a brace explosion", () => {
  assert.throws(() => compileGlob("{a,b}".repeat(11)), /more than 1024 alternatives/);
  assert.equal(compileGlob("{a,b}".repeat(10))("ab".repeat(5)), true);
});
