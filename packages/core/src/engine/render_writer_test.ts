import assert from "node:assert/strict";
import { CaptureWriter, RenderWriter } from "./render-writer.ts";

function writer() {
  const written: string[] = [];
  return { written, writer: new RenderWriter((text) => written.push(text)) };
}

Deno.test("MDX-10: a shell line ends as it is written; the output is the same text as before", () => {
  const { written, writer: out } = writer();
  out.write("# Title\n\n");
  out.raw("computing\n");
  // Shown whole while the block still runs.
  assert.equal(written.join(""), "# Title\n\ncomputing\n");
  out.raw("\n");
  out.raw("done\n\n");
  out.write("\n\nafter\n");
  out.end();
  assert.equal(written.join(""), "# Title\n\ncomputing\n\ndone\n\nafter\n");

  // Nothing after it: still exactly one newline at the end.
  const alone = writer();
  alone.writer.raw("x\n\n\n");
  alone.writer.end();
  assert.equal(alone.written.join(""), "x\n");

  // Loop iterations keep their separator, one newline or a blank line.
  for (const [separator, expected] of [[1, "one\ntwo\n"], [2, "one\n\ntwo\n"]] as const) {
    const each = writer();
    each.writer.raw("one\n\n");
    each.writer.separate(separator);
    each.writer.raw("two\n");
    each.writer.end();
    assert.equal(each.written.join(""), expected);
  }
});

Deno.test("MDX-12: captured shell output writes no newline before one is sure to follow", () => {
  const captured = new CaptureWriter(() => new Error("too long"));
  captured.raw("content\n");
  assert.equal(captured.text, "content");
  captured.raw("more\n");
  assert.equal(captured.text, "content\nmore");
});
