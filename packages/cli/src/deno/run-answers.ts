/**
 * The `--answer` flags of `xmd run`, checked against the document's
 * `<Elicit>` questions before anything runs.
 *
 * Invariants: an `--answer` naming no question, one that is not JSON, or one
 * that fails a schema fixed before running is refused before any effect and
 * before any journal file; so is a run without a terminal that may reach a
 * question no `--answer` answers. Messages name questions and flags, never an
 * answer.
 *
 * @module
 */
import type { Description, JournalEvent, JsonObject, JsonValue, Program } from "@xmd/core";
import {
  formatPosition,
  type ProgramQuestion,
  programQuestions,
  refuseAnswer,
} from "@xmd/core/internal";
import { ElicitAnswerError } from "@xmd/core/deno";
import { UsageError } from "./usage-error.ts";

/** What the check needs to know about the run about to start. */
export interface AnswerCheckInput {
  /** The loaded program. */
  program: Program;
  /** The root's resolved props (they decide `<If>`s and schemas that read them). */
  props: JsonObject;
  /** `--answer` name → JSON text. */
  answers: ReadonlyMap<string, string>;
  /** Whether a person can answer on the terminal. */
  interactive: boolean;
  /**
   * The events of the journal being continued (`--replay`); none for a fresh
   * run. A completed journal asks nothing, so its questions need no answer.
   */
  history: readonly JournalEvent[];
  /** Rewrites a leading position to name the document as the user typed it. */
  typed: (message: string) => string;
}

/**
 * Refuses the run before it starts when its answers cannot serve it.
 *
 * Without a terminal, every question the run may reach needs an `--answer`
 * (one `--answer x=…` serves every `<Elicit as="x">`, also each iteration of
 * an `<Each>`). A question inside an `<If>` counts unless the root's props
 * and metadata rule its branch out, since only running decides the rest.
 * Continuing a journal, a question it already answered needs none when it
 * is asked at most once per run (its only `<Elicit>`, in the root, outside
 * `<Each>` and `<Content />`).
 */
export function checkAnswers(input: AnswerCheckInput): void {
  const questions = programQuestions(input.program, input.props);
  const names = [...new Set(questions.map((question) => question.name))];
  for (const [name, text] of input.answers) {
    const sites = questions.filter((question) => question.name === name);
    if (sites.length === 0) {
      throw new UsageError(
        `Unknown --answer "${name}": the document has no <Elicit as="${name}">${
          names.length === 0
            ? " and asks no questions"
            : `; it asks ${names.map((n) => `"${n}"`).join(", ")}`
        }`,
      );
    }
    const answer = parseJson(text);
    if (answer === undefined) {
      throw new ElicitAnswerError(name, `Invalid --answer for "${name}": not valid JSON`);
    }
    for (const site of sites) {
      if (site.reachable && site.problems) refuseAnswer(name, site.problems(answer));
    }
  }
  if (input.interactive || isCompleted(input.history)) return;
  const missing = names.filter((name) => {
    if (input.answers.has(name)) return false;
    const sites = questions.filter((question) => question.name === name && question.reachable);
    return sites.length > 0 && !answeredInJournal(sites, input.history);
  });
  if (missing.length === 0) return;
  const first = questions.find((question) => question.name === missing[0] && question.reachable)!;
  const asks = missing.map((name) => `"${name}"`);
  const listed = asks.length === 1
    ? asks[0]
    : `${asks.slice(0, -1).join(", ")} and ${asks[asks.length - 1]}`;
  throw new UsageError(
    input.typed(
      `${
        formatPosition(first.position)
      }: the document asks ${listed}, and stdin is not a terminal. Pass ${
        missing.map((name) => `--answer ${name}=<json>`).join(" ")
      }, or run it in a terminal`,
    ),
  );
}

/** Whether a journal records the whole run (its root closed). */
function isCompleted(history: readonly JournalEvent[]): boolean {
  const last = history.at(-1);
  return last?.type === "close" && last.coroutineId === "root";
}

/** Whether the journal already holds the one answer `sites` can take in a run. */
function answeredInJournal(
  sites: readonly ProgramQuestion[],
  history: readonly JournalEvent[],
): boolean {
  if (sites.length !== 1 || !sites[0].once) return false;
  const name = `Elicit ${formatPosition(sites[0].position)}`;
  return history.some((event) =>
    event.type === "yield" && isElicit(event.description, name) && event.result.status === "ok"
  );
}

function isElicit(description: Description, name: string): boolean {
  return description.type === "elicit" && description.name === name;
}

function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
