/**
 * A journal stored as JSON Lines: one event per line, appended and synced
 * before `append` resolves. Reading parses every line with zod and refuses a
 * malformed one by its line number, never echoing its content.
 *
 * @module
 */
import type { DurableStream } from "../journal/durable-stream.ts";
import { type JournalEvent, JournalEventSchema } from "../journal/events.ts";
import { JournalFormatError, JournalWriteError } from "../journal/journal-errors.ts";
import { fromDenoError } from "./_deno-file-system-error.ts";

const encoder = new TextEncoder();

/** A `DurableStream` over a JSON Lines file (created on first append). */
export class JsonlStream implements DurableStream, Disposable {
  readonly #path: string;
  readonly #name: string;
  #file: Deno.FsFile | undefined;

  /**
   * `path` is the journal file; it need not exist yet. Messages name it as
   * `name` (the path as the user typed it), `path` by default.
   */
  constructor(path: string, name: string = path) {
    this.#path = path;
    this.#name = name;
  }

  /** Reads every event; a missing file is an empty journal. */
  async readAll(): Promise<JournalEvent[]> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.#path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return [];
      const refusal = fromDenoError(error, "read journal", this.#name);
      if (refusal === error) throw error;
      throw new JournalFormatError((refusal as Error).message, { cause: error });
    }
    if (text === "") return [];
    const lines = text.split("\n");
    if (lines[lines.length - 1] !== "") {
      throw new JournalFormatError(
        `Cannot read journal "${this.#name}": line ${lines.length} is incomplete (no final newline)`,
      );
    }
    lines.pop();
    return lines.map((line, index) => {
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        throw new JournalFormatError(
          `Cannot read journal "${this.#name}": line ${index + 1} is not valid JSON`,
        );
      }
      const parsed = JournalEventSchema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new JournalFormatError(
          `Cannot read journal "${this.#name}": line ${index + 1} is not a valid journal event (${
            issue.path.join(".") || "event"
          }: ${issue.code})`,
        );
      }
      return parsed.data;
    });
  }

  /** Creates the file if needed and opens it for appending; refuses an unwritable path. */
  async open(): Promise<void> {
    try {
      this.#file ??= await Deno.open(this.#path, { create: true, append: true });
    } catch (error) {
      throw new JournalWriteError(
        `Cannot write journal "${this.#name}": ${
          (error as Error).name
        }. Check that its folder exists and is writable`,
      );
    }
  }

  /** Appends one line and syncs it to disk. */
  async append(event: JournalEvent): Promise<void> {
    await this.open();
    const bytes = encoder.encode(JSON.stringify(event) + "\n");
    try {
      let written = 0;
      while (written < bytes.length) written += await this.#file!.write(bytes.subarray(written));
      await this.#file!.syncData();
    } catch (error) {
      throw new JournalWriteError(
        `Cannot write journal "${this.#name}": ${
          (error as Error).name
        }. Nothing after this event runs`,
      );
    }
  }

  /** Closes the file handle. */
  [Symbol.dispose](): void {
    this.#file?.close();
    this.#file = undefined;
  }
}
