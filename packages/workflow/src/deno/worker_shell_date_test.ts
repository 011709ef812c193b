import assert from "node:assert/strict";
import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";
import { added, relativeDate } from "./worker-shell-date.ts";

/**
 * `date -d` with relative items (WS-160), with what GNU bash 5.2 and GNU
 * date write (stdout and stderr together) and the status.
 */
const CASES: BashCase[] = [
  ["date -u -d '2020-01-31 +1 day' +%F", "2020-02-01\n", 0],
  ["date -u -d '2020-03-01 -1 day' +%F", "2020-02-29\n", 0],
  ["date -u -d '2020-01-01 2 weeks' +%F", "2020-01-15\n", 0],
  ["date -u -d '2020-01-01 +3 months' +%F", "2020-04-01\n", 0],
  ["date -u -d '2020-01-31 +1 month' +%F", "2020-03-02\n", 0],
  ["date -u -d '2020-01-01 00:00:00 1 day ago' +%F", "2019-12-31\n", 0],
  ["date -u -d '2020-02-29 +1 year' +%F", "2021-03-01\n", 0],
  ["date -u -d '2020-01-01 next week' +%F", "2020-01-08\n", 0],
  ["date -u -d '2020-01-10 last day' +%F", "2020-01-09\n", 0],
  ["date -u -d '2020-01-01 12:00:00 90 minutes' '+%F %T'", "2020-01-01 13:30:00\n", 0],
  ["date -u -d '2020-01-01 1 day 2 hours' '+%F %T'", "2020-01-02 02:00:00\n", 0],
  ["date -u -d '2020-01-01 1 fortnight' +%F", "2020-01-15\n", 0],
  ["date -u -d '2020-01-01 +30 seconds' +%T", "00:00:30\n", 0],
  [
    "now=$(date -u +%s); then=$(date -u -d '+1 day' +%s); echo $(( then - now >= 86399 && then - now <= 86401 ))",
    "1\n",
    0,
  ],
  [
    "now=$(date -u +%s); then=$(date -u -d '2 hours ago' +%s); echo $(( now - then >= 7199 && now - then <= 7201 ))",
    "1\n",
    0,
  ],
  ["date -u --date='2020-01-01 +1 day' +%F", "2020-01-02\n", 0],
  ["TZ=UTC date -d '2020-06-30 +1 day' +%F", "2020-07-01\n", 0],
  ["date -d '2020-01-05' -u +%F", "2020-01-05\n", 0],
  // A sign apart from its number (WS-188).
  ["date -u -d '2024-02-29 + 1 day' +%F", "2024-03-01\n", 0],
  ["date -u -d '2024-01-01T00:00:00Z + 3 weeks' +%F", "2024-01-22\n", 0],
  ["date -u -d '2024-03-10 - 2 days' +%F", "2024-03-08\n", 0],
  // A base just-bash cannot read, or `@SECONDS` with items, refuses the whole string (GNU's quotes
  // are its locale's).
  [
    "date -u -d '@0 + 90 minutes' +%T; echo \"rc $?\"",
    "date: invalid date '@0 + 90 minutes'\nrc 1\n",
    0,
  ],
  [
    "date -u -d 'garbage +1 day' +%F; echo \"rc $?\"",
    "date: invalid date 'garbage +1 day'\nrc 1\n",
    0,
  ],
];

Deno.test("worker shell: date -d reads relative items as GNU date does", async () => {
  await assertBashCases(CASES);
});

Deno.test("worker shell: a date string without relative items is left to just-bash", () => {
  for (const text of ["2020-01-01", "Jan 5 2020", "2020-01-01 12:00 UTC", "@86400", "", "ago"]) {
    assert.equal(relativeDate(text), undefined, text);
  }
  assert.deepEqual(relativeDate("2020-01-01 10:00 -2 days 3 hours ago"), {
    base: "2020-01-01 10:00",
    items: [["day", 2], ["second", -10800]],
  });
  assert.deepEqual(relativeDate("2020-01-01 + 2 days"), {
    base: "2020-01-01",
    items: [["day", 2]],
  });
  // A month's overflow carries as GNU's does: January 31 and one month is March 2 in 2020.
  assert.equal(added(Date.UTC(2020, 0, 31) / 1000, [["month", 1]]), Date.UTC(2020, 2, 2) / 1000);
});
