// Events paging over HTTP: BENCH_EVENTS chained events seeded per engine, then one client pages
// GET /api/v1/events from cursor 0 while the server's memory is sampled (code in bench/ledger.mjs).
import { pagingBench, pagingGoal, pagingMethod, pagingTable } from '../ledger.mjs';
import { int, log, table } from '../harness/report.mjs';
import { ORG_SLUG, freePort, pendingCleanup, prepareStorage, runCli, serverEnv, startServer } from '../harness/server.mjs';
import { ROOT } from '../harness/settings.mjs';

export const name = 'events-paging';

/** `selection`: the engines to page on (SQLITE, POSTGRES from the harness), in order. */
export async function run(settings, selection) {
  const paging = [];
  for (const scenario of selection) {
    // bench/ledger.mjs starts the server with these, the same way as every other scenario.
    const ctx = {
      root: ROOT,
      prepareStorage: (s) => prepareStorage(s, settings),
      serverEnv,
      freePort,
      startServer,
      runCli,
      pendingCleanup,
      log,
      orgSlug: ORG_SLUG,
    };
    paging.push(await pagingBench(scenario, settings.events, ctx));
    log(`events paging: ${pagingGoal(paging.slice(-1), { int })}`);
  }
  return paging;
}

/** Its bullet of the document's Method section (none when it did not run). */
export function method(paging, { settings }) {
  return paging?.length ? pagingMethod(settings.events) : '';
}

/** Its section of the document. */
export function render(paging) {
  return `## Events paging over HTTP

${pagingTable(paging ?? [], { table, int })}`;
}

/** The table printed on stdout at the end of the run. */
export function tables(paging) {
  return [pagingTable(paging ?? [], { table, int })];
}

/** Its lines of the Goals section: rows/s and flat memory, per engine. */
export function goals(paging) {
  return (paging?.length ? pagingGoal(paging, { int }) : '')
    .split('\n')
    .filter(Boolean)
    .map((line) => `Events paging over HTTP, ${line}`);
}

/** Its bullet of "How to read this". */
export function notes() {
  return `- **Events paging**: rows/s of one sequential client over HTTP at the largest page (goal ≥ 100 000),
  and whether the server's memory stays flat while a million rows go through it.`;
}
