import assert from "node:assert/strict";
import { parseFrontmatter } from "./frontmatter.ts";
import { formatPropsHelp } from "./props-help.ts";
import { loadDocumentLibraries } from "../document/document-libraries.ts";
import { loadYamlLibrary } from "./yaml-library.ts";

// These tests call the parser and validators directly, which loadProgram loads before it parses.
await loadDocumentLibraries();
// And the yaml package, which loadProgram loads for frontmatter the plain reader declines.
await loadYamlLibrary();

Deno.test("formatPropsHelp aligns one line per prop", () => {
  const { props } = parseFrontmatter(
    `required: [version]
props:
  version:
    type: string
    description: The version to release
  dryRun:
    type: boolean
    default: false
  targets:
    type: array
    items: { type: string }
    description: Hosts
  bump: { type: string, enum: [patch, minor], default: patch }
  config: { type: object }
`,
    "doc.md",
    2,
  );
  assert.equal(
    formatPropsHelp(props),
    [
      "  --props-version=<string>     (required) The version to release  [env XMD_PROPS_VERSION]",
      "  --props-dry-run[=<boolean>]  default: false  [env XMD_PROPS_DRY_RUN]",
      "  --props-targets=<string>...  Hosts  [env XMD_PROPS_TARGETS]",
      '  --props-bump=<patch|minor>   default: "patch"  [env XMD_PROPS_BUMP]',
      "  config (object, in --props)",
      "  --props=<json>               all props as one JSON object  [env XMD_PROPS]",
    ].join("\n"),
  );
});

Deno.test("formatPropsHelp says when the document takes no props", () => {
  assert.equal(formatPropsHelp([]), "This document takes no props.");
});
