import assert from "node:assert/strict";
import { posix } from "node:path";
import { basenameOf, dirnameOf, isAbsolutePath, joinPath, resolvePath } from "./posix-path.ts";

/** Every path of up to four pieces, each a name, `.`, `..`, or an empty piece (a doubled `/`). */
function paths(): string[] {
  const pieces = ["a", "bc", ".", "..", "", ".x"];
  const found = new Set<string>(["", "/", "//", "///"]);
  let level = [""];
  for (let length = 0; length < 4; length++) {
    level = level.flatMap((path) => pieces.map((piece) => `${path}/${piece}`));
    for (const path of level) {
      found.add(path);
      found.add(path.slice(1));
      found.add(`${path}/`);
      found.add(`${path.slice(1)}/`);
    }
  }
  return [...found];
}

Deno.test("the inspection commands' host paths are node:path's POSIX paths", () => {
  const all = paths();
  assert.ok(all.length > 1000);
  for (const path of all) {
    assert.equal(isAbsolutePath(path), posix.isAbsolute(path), `isAbsolute ${path}`);
    assert.equal(basenameOf(path), posix.basename(path), `basename ${path}`);
    assert.equal(dirnameOf(path), posix.dirname(path), `dirname ${path}`);
    assert.equal(joinPath(path), posix.join(path), `join ${path}`);
    assert.equal(resolvePath(path), posix.resolve(path), `resolve ${path}`);
  }
  for (const left of all.slice(0, 400)) {
    for (const right of ["", "b", "/b", "../b", "b/", "./b/..", ".xmd/runs"]) {
      assert.equal(joinPath(left, right), posix.join(left, right), `join ${left} ${right}`);
      assert.equal(
        resolvePath(left, right),
        posix.resolve(left, right),
        `resolve ${left} ${right}`,
      );
    }
  }
  assert.equal(joinPath("/home/ada", ".xmd", "runs"), "/home/ada/.xmd/runs");
  assert.equal(joinPath(), posix.join());
  assert.equal(resolvePath(), posix.resolve());
});
