/**
 * Frontmatter YAML as a tree of nodes with source offsets, whichever parser
 * read it: the plain-frontmatter reader (`_yaml-subset.ts`) or the `yaml`
 * package (`_yaml-library-tree.ts`). Invariant: both give the same tree for
 * any text the first accepts (kinds, values, start offsets, which nodes are
 * empty), so what a document means and where its refusals point do not
 * depend on which parser read it (MDX-111).
 *
 * @module
 */
import type { SourcePosition } from "../document/source-position.ts";

/** A node's place in the YAML text. */
interface Placed {
  /** Offset of its first character in the YAML text. */
  readonly start: number;
  /** Whether it has no source text (the implicit null of `key:`). */
  readonly empty: boolean;
  /** A tag outside JSON's (`!!binary`, `!custom`), which the node is refused for. */
  readonly foreignTag?: string;
}

/** A scalar; `value` is whatever its YAML type resolves to (JSON or not). */
export interface YamlScalar extends Placed {
  readonly kind: "scalar";
  readonly value: unknown;
}

/** A key and its value; either may be absent (`? key`, `: value`). */
export interface YamlPair {
  readonly key: YamlNode | null;
  readonly value: YamlNode | null;
}

/** A mapping, its pairs in source order. */
export interface YamlMap extends Placed {
  readonly kind: "map";
  readonly items: readonly YamlPair[];
}

/** A sequence. */
export interface YamlSeq extends Placed {
  readonly kind: "seq";
  readonly items: readonly (YamlNode | null)[];
}

/** An alias (`*name`); `target` is the node its anchor names. */
export interface YamlAlias extends Placed {
  readonly kind: "alias";
  readonly target: () => YamlNode | null;
}

/** Any node. */
export type YamlNode = YamlScalar | YamlMap | YamlSeq | YamlAlias;

/** A parse's outcome: the first error's message and offset, or the document's contents. */
export type YamlParse =
  | { readonly ok: true; readonly contents: YamlNode | null }
  | { readonly ok: false; readonly message: string; readonly offset: number };

/** A parsed YAML text and where it sits in its document. */
export interface YamlSource {
  /** The YAML text. */
  readonly text: string;
  /** Offsets at which each line of the text starts. */
  readonly lineStarts: readonly number[];
  /** The document's path. */
  readonly file: string;
  /** The document line of the YAML text's first line. */
  readonly startLine: number;
}

/** The source of `text` (lines end at `\n`, as the `yaml` package counts them). */
export function yamlSource(text: string, file: string, startLine: number): YamlSource {
  const lineStarts = [0];
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
    lineStarts.push(at + 1);
  }
  return { text, lineStarts, file, startLine };
}

/** The document position of `offset` in the YAML text. */
export function positionAt(source: YamlSource, offset: number): SourcePosition {
  const starts = source.lineStarts;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle] <= offset) low = middle;
    else high = middle - 1;
  }
  return { file: source.file, line: source.startLine + low, column: offset - starts[low] + 1 };
}

/**
 * The document position where `node` starts, or `fallback` for a node with no
 * source text (the implicit null of `key:`), which is better reported at its key.
 */
export function positionOf(
  source: YamlSource,
  node: YamlNode | null,
  fallback: SourcePosition,
): SourcePosition {
  return node === null || node.empty ? fallback : positionAt(source, node.start);
}
