/**
 * Naming an issue (`X-Xmd-Issue`) and rereading it through GitHub's GraphQL
 * API with the deployment's token, so the identity a run is keyed by comes
 * from GitHub, never from the client.
 *
 * Invariants:
 * - A reference is `owner/repo#number` or a node id; anything else is
 *   refused before GitHub is asked.
 * - Every request carries `X-Github-Next-Global-ID: 1`, so GitHub answers
 *   the new node id for a legacy one: both name one issue, one run.
 * - The answer is parsed with zod; only its `id`, `number` and repository
 *   `databaseId` and `nameWithOwner` are used.
 * - GitHub unreachable, answering anything but 200, or an answer that does
 *   not parse: 503 (`github.unavailable`), fail closed. A lookup GitHub
 *   answers as not found (or as something other than an issue): 404. The log
 *   line names the status, never the URL, the token or the reference.
 *
 * @module
 */
import * as z from "zod";
import { REPOSITORY_NAME } from "./admission-config.ts";
import { AdmissionRefusal } from "./admission-refusal.ts";

/** An issue named by the client: by repository and number, or by node id. */
export type IssueReference =
  | { kind: "number"; owner: string; name: string; number: number }
  | { kind: "node"; id: string };

/** The issue as GitHub answered it. */
export interface RereadIssue {
  /** Its node id (the new format when GitHub has one). */
  id: string;
  /** Its number in its repository now. */
  number: number;
  /** Its repository's numeric id now. */
  repositoryId: number;
  /** Its repository's `owner/name` now. */
  nameWithOwner: string;
}

const NODE_ID = /^[A-Za-z0-9_=+/-]{1,256}$/;

/** Parses `X-Xmd-Issue`; throws `AdmissionRefusal` (400) for anything else. */
export function parseIssueReference(header: string | null): IssueReference {
  const text = header?.trim() ?? "";
  const numbered = /^([^#\s]+)#([1-9][0-9]{0,9})$/.exec(text);
  if (numbered && REPOSITORY_NAME.test(numbered[1]) && Number(numbered[2]) <= 2 ** 31 - 1) {
    const [owner, name] = numbered[1].split("/");
    return { kind: "number", owner, name, number: Number(numbered[2]) };
  }
  if (!text.includes("#") && NODE_ID.test(text)) return { kind: "node", id: text };
  throw new AdmissionRefusal(
    400,
    "issue.invalid",
    header === null
      ? "The request names no issue: set X-Xmd-Issue to owner/repo#number or the issue's node id"
      : "X-Xmd-Issue is not owner/repo#number or a node id",
  );
}

const ISSUE_FIELDS =
  "__typename ... on Issue { id number repository { databaseId nameWithOwner } }";
const BY_NODE = `query($id: ID!) { node(id: $id) { ${ISSUE_FIELDS} } }`;
const BY_NUMBER = "query($owner: String!, $name: String!, $number: Int!) " +
  `{ repository(owner: $owner, name: $name) { issue(number: $number) { ${ISSUE_FIELDS} } } }`;

const IssueSchema = z.object({
  __typename: z.literal("Issue"),
  id: z.string().regex(NODE_ID),
  number: z.number().int().positive(),
  repository: z.object({
    databaseId: z.number().int().positive(),
    nameWithOwner: z.string().regex(REPOSITORY_NAME),
  }),
});
/** What a lookup found: the issue, something else (a node of another type), or nothing. */
const FoundSchema = z.union([IssueSchema, z.object({ __typename: z.string() }), z.null()]);
const AnswerSchema = z.object({
  data: z.union([
    z.object({ node: FoundSchema }),
    z.object({ repository: z.object({ issue: FoundSchema }).nullable() }),
  ]).nullable().optional(),
  errors: z.array(z.object({ type: z.string().optional() })).optional(),
});

/** Where and how GitHub is asked. */
export interface GitHubAccess {
  /** The API URL (GraphQL is `<url>/graphql`). */
  apiUrl: URL;
  /** The deployment's token. */
  token: string;
}

/** Rereads `reference` through GitHub; throws `AdmissionRefusal` when it cannot. */
export async function rereadIssue(
  reference: IssueReference,
  access: GitHubAccess,
): Promise<RereadIssue> {
  const body = reference.kind === "node" ? { query: BY_NODE, variables: { id: reference.id } } : {
    query: BY_NUMBER,
    variables: { owner: reference.owner, name: reference.name, number: reference.number },
  };
  const endpoint = new URL(
    "graphql",
    access.apiUrl.href.endsWith("/") ? access.apiUrl : `${access.apiUrl.href}/`,
  );
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: "POST",
      headers: {
        authorization: `Bearer ${access.token}`,
        "content-type": "application/json",
        "user-agent": "xmd-remote-admission",
        "x-github-next-global-id": "1",
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    throw unavailable("GitHub is unreachable");
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw unavailable(`GitHub answered ${response.status}`);
  }
  const answer = AnswerSchema.safeParse(await response.json().catch(() => undefined));
  if (!answer.success) throw unavailable("GitHub's answer does not parse");
  const data = answer.data.data;
  const found = data == null ? undefined : "node" in data ? data.node : data.repository?.issue;
  const notFound = answer.data.errors?.some((error) => error.type === "NOT_FOUND") ?? false;
  if (found == null && !notFound) throw unavailable("GitHub answered no issue and no NOT_FOUND");
  const issue = IssueSchema.safeParse(found);
  if (!issue.success) {
    throw new AdmissionRefusal(404, "issue.not_found", "GitHub knows no such issue");
  }
  return {
    id: issue.data.id,
    number: issue.data.number,
    repositoryId: issue.data.repository.databaseId,
    nameWithOwner: issue.data.repository.nameWithOwner,
  };
}

/** A refusal for GitHub failing; `why` goes to the log only (a status, never a value). */
function unavailable(why: string): AdmissionRefusal {
  const refusal = new AdmissionRefusal(
    503,
    "github.unavailable",
    "GitHub cannot be asked about the issue now; try again later",
  );
  refusal.cause = why;
  return refusal;
}
