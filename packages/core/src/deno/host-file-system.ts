/**
 * The `<File>` and `<Glob>` effects of `xmd run`, against the caller's real
 * filesystem.
 *
 * Invariant: every path is taken relative to the root given at construction
 * and never leaves it, and every refusal the engine can act on surfaces as a
 * `FileSystemError` with its POSIX code and the logical path; other errors
 * (out of memory, interrupted) propagate unchanged.
 *
 * A read or write and its checks use Deno's synchronous file calls: each
 * asynchronous one waits a turn of the event loop (about 0.15 ms on the
 * bench's machine), and a new file took six of them (its checks, `mkdir -p`,
 * the write), which made `xmd run` of 220 `<File>`s about 30% slower. `xmd
 * run` runs one effect at a time and keeps no signal handler that the loop
 * would have to serve meanwhile.
 *
 * @module
 */
import { dirnameOf as dirname } from "./posix-path.ts";
import type { FileSystemProvider } from "../engine/providers.ts";
import { compileGlob } from "../glob/mod.ts";
import { MAX_PATH_BYTES, utf8Length } from "../engine/path-limits.ts";
import { fileSystemRefusal } from "../engine/file-system-refusal.ts";
import { assertContained, staysInside } from "./_contained-path.ts";
import { fromDenoError } from "./_deno-file-system-error.ts";
import { resolveHostPath } from "./_host-path.ts";

/**
 * A {@linkcode FileSystemProvider} over a host directory.
 *
 * `glob` lists regular files, and symbolic links that resolve to regular
 * files inside the root, walking into real directories only: a symbolic link
 * to a directory is neither followed nor listed, so a link cycle cannot make a
 * listing endless. A read, write or listing whose path leads out of the root
 * through a symbolic link is refused (`EACCES`).
 * Nothing else is skipped — dotfiles and `.git` included — so exclude them by
 * pattern.
 *
 * @example Writing then reading a file
 * ```ts
 * import assert from "node:assert/strict";
 * import { HostFileSystem } from "./host-file-system.ts";
 * const root = await Deno.makeTempDir();
 * const fs = new HostFileSystem(root);
 * await fs.writeText("release/VERSION", "1.4.0");
 * assert.equal(await fs.readText("release/VERSION"), "1.4.0");
 * assert.deepEqual(await fs.glob(".", ["**\/*"], []), ["release/VERSION"]);
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export class HostFileSystem implements FileSystemProvider {
  readonly #root: string;

  /** Serves paths relative to `root`, a host directory path. */
  constructor(root: string) {
    this.#root = root;
  }

  /** Reads a UTF-8 text file; rejects with a `FileSystemError` (`ENOENT`, `EISDIR`, `ENOTDIR`, `EACCES`, `ELOOP`). */
  readText(path: string): Promise<string> {
    return Promise.try(() => this.#read(path));
  }

  #read(path: string): string {
    const hostPath = resolveHostPath(this.#root, path, "read");
    assertContained(this.#root, hostPath, "read", path);
    try {
      return Deno.readTextFileSync(hostPath);
    } catch (error) {
      throw fromDenoError(error, "read", path);
    }
  }

  /**
   * Writes a UTF-8 text file, creating its parent directories; rejects with a
   * `FileSystemError` (`EISDIR`, `ENOTDIR` when a file stands where a parent
   * directory is needed, `EACCES`, `ENAMETOOLONG` before creating anything
   * when the host path would reach Linux's `PATH_MAX`).
   */
  writeText(path: string, content: string): Promise<void> {
    return Promise.try(() => this.#write(path, content));
  }

  #write(path: string, content: string): void {
    const hostPath = resolveHostPath(this.#root, path, "write");
    // The host would refuse it only after `mkdir -p` had made the parents that fit.
    if (utf8Length(hostPath) >= MAX_PATH_BYTES) {
      throw fileSystemRefusal("ENAMETOOLONG", "write", path);
    }
    assertContained(this.#root, hostPath, "write", path);
    try {
      Deno.mkdirSync(dirname(hostPath), { recursive: true });
    } catch (error) {
      // `mkdir -p` of a parent that is a file says EEXIST; creating under a file is ENOTDIR, as
      // `open(O_CREAT)` and a Workspace say.
      if (!(error instanceof Deno.errors.AlreadyExists)) throw fromDenoError(error, "write", path);
      throw fileSystemRefusal("ENOTDIR", "write", path, "file", { cause: error });
    }
    try {
      Deno.writeTextFileSync(hostPath, content);
    } catch (error) {
      throw fromDenoError(error, "write", path);
    }
  }

  /**
   * Lists the files under `cwd` whose path relative to `cwd` matches any
   * `include` glob and no `exclude` glob, sorted by UTF-16 code units. Rejects
   * with a `GlobPatternError` for a bad pattern, and with a `FileSystemError`
   * when `cwd` is missing (`ENOENT`), not a directory (`ENOTDIR`) or a
   * directory cannot be read (`EACCES`).
   */
  async glob(
    cwd: string,
    include: readonly string[],
    exclude: readonly string[],
  ): Promise<string[]> {
    const includes = include.map(compileGlob);
    const excludes = exclude.map(compileGlob);
    const hostCwd = resolveHostPath(this.#root, cwd, "list");
    assertContained(this.#root, hostCwd, "list", cwd, "directory");
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(hostCwd);
    } catch (error) {
      throw fromDenoError(error, "list", cwd, "directory");
    }
    if (!info.isDirectory) {
      throw fileSystemRefusal("ENOTDIR", "list", cwd, "directory");
    }
    const found: string[] = [];
    for await (const path of this.#walk(cwd, hostCwd, "")) {
      if (includes.some((matches) => matches(path)) && !excludes.some((matches) => matches(path))) {
        found.push(path);
      }
    }
    return found.sort();
  }

  /** Yields the listable files under `hostDir`, as paths relative to the glob's `cwd`. */
  async *#walk(cwd: string, hostDir: string, prefix: string): AsyncGenerator<string> {
    const entries: Deno.DirEntry[] = [];
    try {
      for await (const entry of Deno.readDir(hostDir)) entries.push(entry);
    } catch (error) {
      throw fromDenoError(error, "list", logicalPath(cwd, prefix || "."), "directory");
    }
    for (const entry of entries) {
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      const hostPath = `${hostDir}/${entry.name}`;
      if (entry.isDirectory) yield* this.#walk(cwd, hostPath, path);
      else if (entry.isFile) yield path;
      else if (
        entry.isSymlink && staysInside(this.#root, hostPath) &&
        await resolvesToFile(hostPath, logicalPath(cwd, path))
      ) {
        yield path;
      }
    }
  }
}

/** Whether the symbolic link at `hostPath` ends at a regular file; dangling and looping links do not. */
async function resolvesToFile(hostPath: string, path: string): Promise<boolean> {
  try {
    return (await Deno.stat(hostPath)).isFile;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.FilesystemLoop) {
      return false;
    }
    throw fromDenoError(error, "list", path);
  }
}

/** The provider-relative path of `path`, which is relative to the glob's `cwd`. */
function logicalPath(cwd: string, path: string): string {
  if (cwd === ".") return path;
  return path === "." ? cwd : `${cwd}/${path}`;
}
