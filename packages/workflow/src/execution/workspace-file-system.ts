/**
 * The engine's `FileSystemProvider` over a run's Workspace: `<File>` and
 * `<Glob>` under `xmd workflow` read and write the Workspace, never the host
 * disk. The engine's logical paths (relative, normalized, never above the
 * root) become absolute Workspace paths.
 *
 * Invariants: a documented refusal (`FileSystemError`) leaves the Workspace
 * exactly as it was: each call is one savepoint, except a write into an
 * existing folder, which refuses before it writes anything (WS-29) and so
 * takes none (a savepoint would copy each page it changes into SQLite's
 * statement journal); a refusal names
 * the logical path in the words the host's provider uses
 * (`fileSystemRefusal`), so a document fails, and journals, the same way under
 * `xmd run` and `xmd workflow`.
 *
 * @module
 */
import { FileSystemError, type FileSystemProvider } from "@xmd/core";
import { compileGlob, fileSystemRefusal, type MissingKind } from "@xmd/core/internal";
import { compareUtf8, type Workspace } from "../workspace/workspace.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/** Absolute Workspace path of an engine logical path (`.` is `/`). */
export function workspacePath(logical: string): string {
  return logical === "." ? "/" : `/${logical}`;
}

/** `<File>` and `<Glob>` against a Workspace. */
export class WorkspaceFileSystem implements FileSystemProvider {
  readonly #workspace: Workspace;

  /** A provider over `workspace`. */
  constructor(workspace: Workspace) {
    this.#workspace = workspace;
  }

  /** Reads a UTF-8 text file. */
  readText(path: string): Promise<string> {
    return this.#op(() => {
      const bytes = this.#as(
        "read",
        path,
        "file",
        () => this.#workspace.readFile(workspacePath(path)),
      );
      try {
        return decoder.decode(bytes);
      } catch {
        throw new FileSystemError(
          "EINVAL",
          path,
          `Cannot read "${path}" as text: it is not valid UTF-8 (EINVAL)`,
        );
      }
    });
  }

  /** Writes a UTF-8 text file, creating its parent directories. */
  writeText(path: string, content: string): Promise<void> {
    try {
      this.#as("write", path, "file", () => {
        const absolute = workspacePath(path);
        const data = encoder.encode(content);
        try {
          // No savepoint: `writeFile` refuses before it writes anything (WS-29).
          this.#workspace.writeFile(absolute, data);
        } catch (error) {
          // Only a missing directory on the way is created, then the write is made again: the
          // usual write into an existing folder resolves its path once. Folders and the file
          // are created in one savepoint, so a refusal of either leaves neither.
          const parent = absolute.slice(0, absolute.lastIndexOf("/")) || "/";
          if (!(error instanceof FileSystemError) || error.posix !== "ENOENT" || parent === "/") {
            throw error;
          }
          this.#workspace.sql.transaction(() => {
            this.#workspace.mkdir(parent, { recursive: true });
            this.#workspace.writeFile(absolute, data);
          });
        }
      });
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Lists regular files under `cwd` matching `include` and not `exclude`, sorted. */
  glob(cwd: string, include: readonly string[], exclude: readonly string[]): Promise<string[]> {
    return this.#op(() => {
      const includes = include.map(compileGlob);
      const excludes = exclude.map(compileGlob);
      const root = workspacePath(cwd);
      if (this.#as("list", cwd, "directory", () => this.#workspace.stat(root)).kind !== "dir") {
        throw fileSystemRefusal("ENOTDIR", "list", cwd, "directory");
      }
      const found: string[] = [];
      // A work list of directories, not recursion: the result is sorted anyway.
      const pending = [{ dir: root, prefix: "" }];
      for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
        const { dir, prefix } = next;
        const listed = cwd === "." ? prefix || "." : prefix ? `${cwd}/${prefix}` : cwd;
        for (
          const name of this.#as("list", listed, "directory", () => this.#workspace.readdir(dir))
        ) {
          const absolute = dir === "/" ? `/${name}` : `${dir}/${name}`;
          const relative = prefix ? `${prefix}/${name}` : name;
          const stat = this.#as("list", listed, "directory", () => this.#workspace.lstat(absolute));
          if (stat.kind === "dir") pending.push({ dir: absolute, prefix: relative });
          else if (stat.kind === "file" || this.#isFileLink(absolute)) {
            if (
              includes.some((match) => match(relative)) &&
              !excludes.some((match) => match(relative))
            ) {
              found.push(relative);
            }
          }
        }
      }
      return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : compareUtf8(a, b)));
    });
  }

  #isFileLink(path: string): boolean {
    try {
      return this.#workspace.stat(path).kind === "file";
    } catch (error) {
      if (error instanceof FileSystemError) return false;
      throw error;
    }
  }

  /** Runs a Workspace call, rewording its refusal as the host's about the logical `path`. */
  #as<T>(action: string, path: string, missing: MissingKind, call: () => T): T {
    try {
      return call();
    } catch (error) {
      if (!(error instanceof FileSystemError)) throw error;
      throw fileSystemRefusal(error.posix, action, path, missing, { cause: error });
    }
  }

  #op<T>(action: () => T): Promise<T> {
    try {
      return Promise.resolve(this.#workspace.sql.transaction(action));
    } catch (error) {
      return Promise.reject(error);
    }
  }
}
