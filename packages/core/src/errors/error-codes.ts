/**
 * The table of xmd's error codes. A code is stable API: it names a kind of
 * refusal for programs (the CLI's exit handling, a host across a wire), while
 * the message is for people and may be reworded. A code once published keeps
 * its meaning; a new kind of error gets a new code.
 *
 * Invariant: every error class of the packages carries exactly one code from
 * this list (a filesystem refusal one per POSIX code), and no two classes
 * share one; `specs/workflow-spec.md` (WF-53) lists the same codes with the
 * same meanings.
 *
 * @module
 */

/** Every error code, with the one-line meaning the spec repeats. */
export const ERROR_CODES = [
  {
    code: "admission.refused",
    meaning: "the remote host's Worker refused a connection; its reason names the check",
  },
  { code: "answer.refused", meaning: "an answer to a suspended run was refused" },
  { code: "answer.schema", meaning: "an answer does not satisfy its question's schema" },
  { code: "answer.unavailable", meaning: "an `<Elicit>` question cannot be answered here" },
  {
    code: "chunk.digest",
    meaning: "a chunk sent does not hash to its name or has the wrong length",
  },
  { code: "cli.usage", meaning: "the command line cannot be carried out as given" },
  { code: "connection.lost", meaning: "the connection to a remote host was lost; run again" },
  {
    code: "connection.refused",
    meaning: "the server in front of a remote host refused the connection",
  },
  { code: "db.access", meaning: "a run database cannot be read without writing" },
  { code: "db.corrupt", meaning: "a run database is damaged or partially initialized" },
  { code: "db.format", meaning: "a file is not an xmd run database" },
  { code: "db.version", meaning: "a run database was written by a newer xmd" },
  { code: "document.invalid", meaning: "a document is refused at a position" },
  { code: "document.unreadable", meaning: "a root document cannot be read" },
  { code: "effect.failed", meaning: "an effect settled with a recorded error" },
  { code: "effect.refused", meaning: "a provider refused an effect (a journaled refusal)" },
  { code: "executor.lost", meaning: "the executor lost its claim on the run" },
  { code: "export.refused", meaning: "an export was refused and wrote nothing" },
  { code: "frontier.stale", meaning: "a commit expected a frontier that is not the committed one" },
  { code: "fs.eacces", meaning: "a filesystem refusal: permission denied (EACCES)" },
  { code: "fs.eexist", meaning: "a filesystem refusal: the path exists (EEXIST)" },
  { code: "fs.einval", meaning: "a filesystem refusal: invalid argument (EINVAL)" },
  { code: "fs.eisdir", meaning: "a filesystem refusal: the path is a directory (EISDIR)" },
  { code: "fs.eloop", meaning: "a filesystem refusal: too many symbolic links (ELOOP)" },
  {
    code: "fs.enametoolong",
    meaning: "a filesystem refusal: a path or name is too long (ENAMETOOLONG)",
  },
  { code: "fs.enoent", meaning: "a filesystem refusal: no such file or directory (ENOENT)" },
  { code: "fs.enotdir", meaning: "a filesystem refusal: a path part is not a directory (ENOTDIR)" },
  { code: "fs.enotempty", meaning: "a filesystem refusal: the directory is not empty (ENOTEMPTY)" },
  { code: "fs.eperm", meaning: "a filesystem refusal: operation not permitted (EPERM)" },
  { code: "glob.pattern", meaning: "a glob pattern cannot be compiled" },
  {
    code: "internal",
    meaning: "a remote host failed for a reason it does not tell (a bug), without detail",
  },
  { code: "journal.divergence", meaning: "the document no longer matches its recorded history" },
  { code: "journal.format", meaning: "a journal cannot be read: malformed content" },
  { code: "journal.stopped", meaning: "an append failed earlier; the journal refuses more" },
  { code: "journal.write", meaning: "a journal cannot be written" },
  { code: "limit.message", meaning: "a reply cannot fit one protocol message" },
  { code: "limit.row", meaning: "one value is over a Durable Object's row limit" },
  { code: "limit.staged", meaning: "more staged objects than one acquisition may hold" },
  { code: "links.invalid", meaning: "hard-link groups sent do not fit the root" },
  { code: "object.digest", meaning: "an object sent does not hash to its name" },
  {
    code: "object.malformed",
    meaning: "an object sent does not parse strictly, or is not canonical",
  },
  {
    code: "object.missing",
    meaning: "a reference names nothing stored or sent, or the wrong kind",
  },
  { code: "object.size", meaning: "a file's chunks do not add up to its size" },
  { code: "object.unreachable", meaning: "an object sent that the new root does not reach" },
  { code: "props.invalid", meaning: "the props given do not satisfy the document's declaration" },
  {
    code: "protocol.malformed",
    meaning: "a frame's framing, UTF-8, JSON or header shape is wrong",
  },
  { code: "protocol.order", meaning: "a request before hello, or a second hello" },
  { code: "protocol.role", meaning: "the connection's role may not send this request" },
  { code: "protocol.text", meaning: "a text message, where frames are binary" },
  { code: "protocol.too_large", meaning: "a message over the protocol's size bound" },
  { code: "protocol.version", meaning: "a frame of another protocol version" },
  {
    code: "remote.refused",
    meaning: "the remote host refused the connection (its admission); nothing was sent",
  },
  { code: "remote.unsupported", meaning: "a request the remote host does not serve yet" },
  { code: "run.admission", meaning: "the run or definition does not belong to this remote host" },
  { code: "run.busy", meaning: "another executor holds the run" },
  { code: "run.cancelled", meaning: "the run was cancelled (Ctrl-C)" },
  { code: "run.conflict", meaning: "a start names an existing run with another definition" },
  { code: "run.exists", meaning: "a create for a run that exists" },
  { code: "run.not_found", meaning: "no run has this id" },
  { code: "run.state", meaning: "the request does not fit the run's state" },
  { code: "run.suspended", meaning: "the run reached a question with no answer and suspended" },
  { code: "runs.folder", meaning: "the runs folder cannot hold runs" },
  { code: "secret.detected", meaning: "a value was refused because it looks like a secret" },
  { code: "secret.scan_failed", meaning: "the secret scan failed, so the value was refused" },
  { code: "settle.invalid", meaning: "a settlement whose status and stop reason disagree" },
  { code: "shell.failed", meaning: "Worker Shell cannot run or finish a block" },
  { code: "shell.language", meaning: "a block's language is not one the host shell runs" },
  { code: "shell.lost", meaning: "the shell stopped before its block ended" },
  { code: "shell.permission", meaning: "this process may not start the shell interpreter" },
  {
    code: "sql.hold_required",
    meaning: "a host ran effects over a SQL seam that cannot hold a transaction",
  },
  { code: "workflow.unavailable", meaning: "an effect this host cannot perform in a workflow run" },
] as const;

/** A stable error code: lowercase, dotted, from {@linkcode ERROR_CODES}. */
export type XmdErrorCode = (typeof ERROR_CODES)[number]["code"];
