// The naive chain append, the baseline of the multi-process goals: pg clients in this process
// appending one unit per transaction, one statement per round trip, no HTTP (bench/naive.mjs).
import { naiveBench } from '../naive.mjs';
import { int, log, ms, notRunReason, table } from '../harness/report.mjs';
import { pendingCleanup, serverRequire } from '../harness/server.mjs';

export const name = 'naive';

/** Its BENCH_SCENARIOS name. */
export const ID = 'naive';

const SCENARIO = { id: ID, label: 'Naive chain append (PostgreSQL, no HTTP)', engine: 'postgres' };

/** Runs when selected (a PostgreSQL URL is needed); the outcome is one phase per organisation count. */
export async function run(settings) {
  const { phases } = await naiveBench({
    pg: serverRequire('pg'),
    adminUrl: settings.postgresUrl,
    orgCounts: [...new Set([1, settings.pgOrgs])],
    clients: settings.connections,
    seconds: settings.seconds,
    warmupSeconds: settings.warmupSeconds,
    onCleanup: pendingCleanup,
    log,
  });
  for (const p of phases) {
    log(
      `naive chain append, ${p.orgs} org(s): ${int(p.unitsPerSec)} units/s, p99 ${ms(p.p99)} ms; ${p.ok ? 'chain ok' : `FAILED: ${p.problems.join('; ')} ${p.firstError ?? ''}`}`,
    );
  }
  return phases;
}

/** Beside each phase, the multi-process service's writes/s for the same organisation count. */
function naiveTable(naive, m, settings) {
  if (!naive) return `_${notRunReason(SCENARIO, settings)}._`;
  const service = (orgs) => (!m ? null : orgs === 1 ? m.results.one : orgs === m.orgCount ? m.results.many : null);
  return table(
    [
      'Organisations',
      'clients',
      'units/s',
      'p50 ms',
      'p99 ms',
      'errors',
      'chain check',
      `service writes/s (${m ? m.processes : settings.pgProcesses} processes, same orgs)`,
      'service ÷ naive',
    ],
    naive.map((p) => {
      const s = service(p.orgs);
      return [
        String(p.orgs),
        String(p.clients),
        int(p.unitsPerSec),
        ms(p.p50),
        ms(p.p99),
        int(p.errors),
        p.ok
          ? `gapless, hashes ok, ${int(p.events)} events = units committed`
          : `**FAILED: ${[...p.problems, p.firstError].filter(Boolean).join('; ')}**`,
        s ? int(s.reqPerSec) : '—',
        s ? `**${(s.reqPerSec / p.unitsPerSec).toFixed(2)} ×**` : '—',
      ];
    }),
  );
}

/** Its bullet of the document's Method section. */
export function method(_outcome, { settings: s }) {
  return `- **Naive chain append** (\`${ID}\`), the baseline of the multi-process goals, on the same PostgreSQL server,
  in a fresh scratch database, no HTTP: ${s.connections} clients (\`pg.Pool\` in the parent, one connection
  each) loop over one unit per transaction, one statement per round trip — \`BEGIN\`; \`SELECT seq,
  row_hash FROM head WHERE org = … FOR UPDATE\`; \`INSERT\` a domain row; \`INSERT\` the event with
  SHA-256 over the previous hash and the row; \`UPDATE head\`; \`COMMIT\` — for ${s.warmupSeconds} s unmeasured then ${s.seconds} s, with one
  organisation and then ${s.pgOrgs} (client i on organisation i mod orgs). A loop finishes the unit it
  is in when time is up, so every committed unit is counted; afterwards each organisation's events
  must be gapless from seq 1, rehash to their stored hashes, end at the head, and number exactly
  the units committed. units/s and p50/p99 (from \`BEGIN\` to \`COMMIT\`'s answer) are over the measured
  seconds. **service ÷ naive** divides the ${s.pgProcesses}-process service's writes/s by it.`;
}

/** Its section of the document: a subsection of the multi-process one, which it compares with. */
export function render(naive, { settings, outcomes }) {
  return `### Baseline: the naive chain append

${naiveTable(naive, outcomes['multi-process'], settings)}`;
}

/** The table printed on stdout at the end of the run (none when it did not run). */
export function tables(naive, { settings, outcomes }) {
  return naive ? [naiveTable(naive, outcomes['multi-process'], settings)] : [];
}

/** What to log when a check failed (nothing when all passed). */
export function failures(naive) {
  return (naive ?? [])
    .filter((p) => !p.ok)
    .map((p) => `naive chain append, ${p.orgs} org(s) failed: ${[...p.problems, p.firstError].filter(Boolean).join('; ')}`);
}
