import assert from "node:assert/strict";
import { canonicalJson } from "./canonical-json.ts";

Deno.test("canonicalJson sorts keys at every depth and keeps array order", () => {
  assert.equal(
    canonicalJson({ b: [3, { z: 1, a: null }], a: "x", c: { y: true, x: 1.5 } }),
    '{"a":"x","b":[3,{"a":null,"z":1}],"c":{"x":1.5,"y":true}}',
  );
  assert.equal(canonicalJson({ b: 1, a: 2 }), canonicalJson({ a: 2, b: 1 }));
  assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
  assert.equal(canonicalJson('quote " and \n'), JSON.stringify('quote " and \n'));
});
