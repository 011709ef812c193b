/**
 * The bytes a byte-reading command (`cmp`, `od`, `xxd`, `hexdump`) reads from
 * one operand: standard input for `-`, else the Workspace file. A folder is
 * refused with `EISDIR` in the error's message, which
 * `worker-shell-errno-words.ts` turns into GNU's words.
 *
 * @module
 */
import {
  latin1FromBytes,
  type ResolvedCommandContext,
  // The interpreter runs with no configuration file, so its import names the exact version.
  // deno-lint-ignore no-import-prefix
} from "npm:just-bash@3.4.2";

/** The bytes of operand `file` (`-` is standard input). */
export async function inputBytes(ctx: ResolvedCommandContext, file: string): Promise<Uint8Array> {
  if (file === "-") {
    return Uint8Array.from(latin1FromBytes(ctx.stdin), (char) => char.charCodeAt(0));
  }
  const path = ctx.fs.resolvePath(ctx.cwd, file);
  if ((await ctx.fs.stat(path)).isDirectory) throw new Error("EISDIR");
  return await ctx.fs.readFileBuffer(path);
}

/** The bytes of every operand in turn (standard input when there is none), and each refusal. */
export async function concatenatedInputs(
  ctx: ResolvedCommandContext,
  files: readonly string[],
  refused: (file: string, error: unknown) => void,
): Promise<Uint8Array | undefined> {
  const parts: Uint8Array[] = [];
  for (const file of files.length === 0 ? ["-"] : files) {
    try {
      parts.push(await inputBytes(ctx, file));
    } catch (error) {
      refused(file, error);
    }
  }
  if (parts.length === 0) return undefined;
  const all = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return all;
}

/**
 * Operand `file` as a string of one character per byte (latin1), for a
 * command that cuts bytes and writes them back (`head`, `cut`): standard
 * input for `-`, else the Workspace file as it reads.
 */
export async function inputLatin1(ctx: ResolvedCommandContext, file: string): Promise<string> {
  if (file === "-") return latin1FromBytes(ctx.stdin);
  const buffer = await ctx.fs.readFileBuffer(ctx.fs.resolvePath(ctx.cwd, file));
  let bytes = "";
  for (let at = 0; at < buffer.length; at += 0x8000) {
    bytes += String.fromCharCode(...buffer.subarray(at, at + 0x8000));
  }
  return bytes;
}
