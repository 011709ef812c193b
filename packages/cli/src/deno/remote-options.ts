/**
 * `--remote` and `--issue` on a command line, and the remote host they (or
 * `XMD_WORKFLOW_REMOTE`) select, checked before anything is contacted. Its
 * own module, apart from the remote host's client (`remote-workflow.ts`,
 * loaded only when a remote host is selected), because every `xmd workflow`
 * command reads these options (MDX-82).
 *
 * Invariant: a mistake is one `UsageError` that says what to set and never
 * echoes the value.
 *
 * @module
 */
import { UsageError } from "./usage-error.ts";

/** The remote host a command line selects, before anything is contacted. */
export interface RemoteChoice {
  /** The Worker's base URL. */
  url: URL;
  /** Whether `--remote` named it (else `XMD_WORKFLOW_REMOTE`): a printed command repeats it. */
  byFlag: boolean;
}

/** `--remote=<url>` / `--remote <url>` and `--issue`, taken out of a command line. */
export interface RemoteOptions {
  /** The arguments without them. */
  args: string[];
  /** `--remote`'s value, if given. */
  remote?: string;
  /** `--issue`'s value, if given. */
  issue?: string;
}

/** Takes `--remote` and `--issue` out of `args` (up to `--`). */
export function takeRemoteOptions(args: readonly string[]): RemoteOptions {
  const result: RemoteOptions = { args: [] };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      result.args.push(...args.slice(index));
      break;
    }
    const name = arg === "--remote" || arg.startsWith("--remote=")
      ? "remote"
      : arg === "--issue" || arg.startsWith("--issue=")
      ? "issue"
      : undefined;
    if (name === undefined) {
      result.args.push(arg);
      continue;
    }
    const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : args[++index];
    if (value === undefined || value === "") {
      throw new UsageError(
        name === "remote"
          ? "Option --remote needs a value: write --remote=<url>"
          : "Option --issue needs a value: write --issue=<owner/repo#number> or --issue=<node id>",
      );
    }
    result[name] = value;
  }
  return result;
}

/** The remote host `--remote` or `XMD_WORKFLOW_REMOTE` selects, or undefined for the local one. */
export function remoteChoice(
  remote: string | undefined,
  env: Record<string, string | undefined>,
): RemoteChoice | undefined {
  const byFlag = remote !== undefined;
  const text = remote ?? (env.XMD_WORKFLOW_REMOTE || undefined);
  if (text === undefined) return undefined;
  const where = byFlag ? "--remote" : "XMD_WORKFLOW_REMOTE";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `${where} must be an absolute URL, such as https://xmd.example.workers.dev: set it to the deployed Worker's address`,
    );
  }
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname) ||
    /^127\.[0-9]+\.[0-9]+\.[0-9]+$/.test(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new UsageError(
      `${where} must be an https URL (http only on loopback): set it to the deployed Worker's https address`,
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new UsageError(
      `${where} must be the Worker's address alone, without credentials, query or fragment`,
    );
  }
  return { url, byFlag };
}
