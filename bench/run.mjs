#!/usr/bin/env node
// Finance Desk benchmark: HTTP write throughput against the bare-route baseline, and the
// ledger verifier against raw SHA-256. Run with `npm run bench` (builds first); see
// bench/README.md for the environment variables, how to read the figures and how to add a scenario.
//
// Plain ESM on purpose: it drives the compiled server as a child process, exactly as an operator
// runs it, and loads nothing from the server's TypeScript sources. This file only chooses what
// runs (BENCH_SCENARIOS), runs it and lays out docs/benchmarks.md; the shared parts are in
// bench/harness/ and each scenario (its run, its tables, its prose) in bench/scenarios/.
import { writeFileSync } from 'node:fs';
import { load, log, machineInfo, table } from './harness/report.mjs';
import { POSTGRES, SQLITE, cleanupOnSignals } from './harness/server.mjs';
import { SETTINGS } from './harness/settings.mjs';
import * as eventsPaging from './scenarios/events-paging.mjs';
import * as ledgerVerify from './scenarios/ledger-verify.mjs';
import * as limit from './scenarios/limit.mjs';
import * as manyOrgs from './scenarios/many-orgs.mjs';
import * as multiProcess from './scenarios/multi-process.mjs';
import * as naive from './scenarios/naive.mjs';
import * as parsers from './scenarios/parsers.mjs';
import * as profile from './scenarios/profile.mjs';
import * as reads from './scenarios/reads.mjs';
import * as singleProcess from './scenarios/single-process.mjs';

cleanupOnSignals(log);

/**
 * What runs: each scenario's selection (what its `run` receives), or false / an empty list when it
 * does not run. BENCH_SCENARIOS names the single-process engines, `limit` (which brings `sqlite-full`,
 * and `postgres` with a URL, along: it is compared with them), `postgres-4p`, `naive` and `many-orgs` (all need a PostgreSQL URL); `ledger`
 * leaves out the read cost; `reads` alone runs the read cost (on PostgreSQL too when a URL is given). The read cost runs on SQLite, and on
 * PostgreSQL when a PostgreSQL write scenario runs; the events paging on SQLite, and on PostgreSQL
 * with `ledger` or a single-process PostgreSQL run. The verifier and the parsers run in a full run
 * and with `ledger`: a run of named scenarios is for those alone.
 */
function plan(settings) {
  const { only } = settings;
  const hasPostgres = Boolean(settings.postgresUrl);
  const wanted = (id) => only.length === 0 || only.includes(id);
  // `limit` divides the service's figures of the same run on each engine by its own, so it brings
  // `sqlite-full` along, and `postgres` when there is a PostgreSQL URL.
  const limitToo = wanted(limit.ID) && !only.includes('ledger');
  const limitEngines = limitToo ? limit.ENGINES.filter((e) => e.engine !== 'postgres' || hasPostgres) : [];
  const single = singleProcess.ENGINES.filter(
    (s) => (wanted(s.id) || limitEngines.some((e) => e.service === s.id)) && (s.engine !== 'postgres' || hasPostgres),
  );
  // `ledger` alone: only the verifier and events-paging sections.
  const ledgerOnly = only.includes('ledger');
  const names = [
    'ledger',
    'reads',
    ...singleProcess.ENGINES.map((s) => s.id),
    limit.ID,
    profile.ID,
    multiProcess.ID,
    naive.ID,
    manyOrgs.ID,
  ];
  const unknown = only.filter((id) => !names.includes(id));
  if (unknown.length > 0) throw new Error(`BENCH_SCENARIOS: unknown scenario ${unknown.join(', ')}`);
  if (!hasPostgres) log('PostgreSQL skipped: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to include it');
  const multi = wanted(multiProcess.ID) && hasPostgres;
  const naiveToo = wanted(naive.ID) && hasPostgres;
  const manyToo = wanted(manyOrgs.ID) && hasPostgres;
  const singleOnPostgres = single.some((s) => s.engine === 'postgres');
  const anyPostgres = singleOnPostgres || multi || naiveToo || manyToo;
  return {
    anyPostgres,
    selection: {
      [singleProcess.name]: single,
      [limit.name]: limitEngines,
      // The per-stage budget runs its own servers (under the profiler): selected alone, it runs alone.
      [profile.name]: wanted(profile.ID) && !ledgerOnly,
      [multiProcess.name]: multi,
      [naive.name]: naiveToo,
      [manyOrgs.name]: manyToo,
      [reads.name]: ledgerOnly ? [] : [SQLITE, ...(anyPostgres || (only.includes('reads') && hasPostgres) ? [POSTGRES] : [])],
      [ledgerVerify.name]: only.length === 0 || ledgerOnly,
      [eventsPaging.name]: settings.events > 0 ? [SQLITE, ...(hasPostgres && (ledgerOnly || singleOnPostgres) ? [POSTGRES] : [])] : [],
      [parsers.name]: only.length === 0 || ledgerOnly,
    },
  };
}

/** Run `scenario` if selected; its outcome, or null when it did not run. */
async function runIfSelected(scenario, settings, selection) {
  const selected = selection[scenario.name];
  const runs = Array.isArray(selected) ? selected.length > 0 : Boolean(selected);
  return runs ? scenario.run(settings, selected) : null;
}

/** The document: the sections in a fixed order, so that a rerun only changes numbers. */
function renderDoc(machine, ctx) {
  const { outcomes } = ctx;
  const part = (fn, scenario) => fn(outcomes[scenario.name], ctx);
  const method = [singleProcess, limit, profile, multiProcess, naive, manyOrgs, ledgerVerify, eventsPaging]
    .map((s) => part(s.method, s))
    .join('\n');
  const sections = (list) => list.map((s) => part(s.render, s)).join('\n\n');
  const notes = [singleProcess, limit, profile, multiProcess, manyOrgs, ledgerVerify, eventsPaging].map((s) => s.notes(ctx)).join('\n');
  return `# Benchmarks

<!-- Generated by bench/run.mjs (\`npm run bench\`); edit the script, not this file. Reruns change only the numbers. -->

Measured on one machine, in one run. Absolute numbers depend on the machine, on whatever else it
is running (see the load average) and on its disk's fsync latency; compare the **ratios**, which are
measured in the same run, on the same server process, in interleaved slices.

## Machine

${table(
  ['Item', 'Value'],
  [
    ['CPU', machine.cpu],
    ['Memory', machine.memory],
    ['OS', machine.os],
    ['Node.js', machine.node],
    ['SQLite (better-sqlite3)', machine.sqlite],
    ['PostgreSQL', machine.postgres ?? 'not used'],
    ['Date (UTC)', machine.date],
    ['Load average 1/5/15 min, at start → at end', `${machine.loadBefore} → ${machine.loadAfter}`],
  ],
)}

## Method

${method}

${sections([singleProcess, limit, profile, multiProcess, naive, manyOrgs])}

## Goals

${goalsList(ctx)}

${sections([ledgerVerify, eventsPaging, reads, parsers])}

## How to read this

${notes}
`;
}

/** The performance goals that `npm run bench` measures, each "met" or "not met" with its figures. */
function goalsList(ctx) {
  return [multiProcess, manyOrgs, singleProcess, ledgerVerify, eventsPaging, reads]
    .flatMap((s) => s.goals(ctx.outcomes[s.name], ctx))
    .map((l) => `- ${l}`)
    .join('\n');
}

async function main() {
  const settings = SETTINGS;
  const { anyPostgres, selection } = plan(settings);
  const machine = await machineInfo(anyPostgres, settings);
  const outcomes = {};
  // The single-process service, then its limit (compared with it) and the per-stage budget, the multi-process service, then
  // the naive baseline on the same server, then the reads and the ledger.
  for (const scenario of [singleProcess, limit, profile, multiProcess, naive, manyOrgs, reads, ledgerVerify, eventsPaging]) {
    outcomes[scenario.name] = await runIfSelected(scenario, settings, selection);
  }
  machine.loadAfter = load();
  outcomes[parsers.name] = await runIfSelected(parsers, settings, selection);

  const ctx = { settings, outcomes };
  const doc = renderDoc(machine, ctx);
  const printed = [singleProcess, limit, profile, multiProcess, naive, manyOrgs]
    .flatMap((s) => s.tables(outcomes[s.name], ctx))
    .concat(goalsList(ctx), ...[ledgerVerify, eventsPaging, reads].flatMap((s) => s.tables(outcomes[s.name], ctx)));
  process.stdout.write(`\n${printed.map((t) => `${t}\n\n`).join('')}`);

  const failures = [singleProcess, limit, profile, multiProcess, naive, manyOrgs].flatMap((s) => s.failures(outcomes[s.name]));
  if (failures.length > 0) {
    for (const line of failures) log(line);
    log(`not writing ${settings.out}: a check failed`);
    process.exitCode = 1;
    return;
  }
  if (settings.out === '-' || settings.out === '') {
    log('BENCH_OUT=- : document not written');
    return;
  }
  writeFileSync(settings.out, doc);
  log(`wrote ${settings.out}`);
}

main().catch((error) => {
  process.stderr.write(`[bench] ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
