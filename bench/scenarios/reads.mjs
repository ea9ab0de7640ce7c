// Read cost: the ledger's reads over an organisation seeded with N documents, one request at a
// time against the bare route on the same server (code in bench/read-cost.mjs).
import { measureReads, READS, seed } from '../read-cost.mjs';
import { int, log, ms, table } from '../harness/report.mjs';
import { ORG_SLUG, freePort, pendingCleanup, prepareStorage, runCli, serverEnv, startServer } from '../harness/server.mjs';
import { ROOT } from '../harness/settings.mjs';

export const name = 'reads';

/** One engine and size: fresh database, `org create`, seed `documents`, `serve`, time the reads. */
async function runReadScenario(scenario, documents, settings) {
  const storage = await prepareStorage(scenario, settings);
  const dropStorage = () => storage.cleanup();
  pendingCleanup.add(dropStorage);
  const env = serverEnv(storage, await freePort());
  let server = null;
  try {
    const created = JSON.parse(await runCli(['org', 'create', '--name', 'Bench', '--slug', ORG_SLUG, '--json'], env));
    const today = new Date().toISOString().slice(0, 10);
    const seeded = await seed(ROOT, storage.databaseUrl, created.orgId, documents, today);
    server = await startServer(env, Number(env.PORT));
    pendingCleanup.add(server.stop);
    const measured = await measureReads(server, created.keys, today, settings.readRepeats, settings.importRepeats);
    await server.stop();
    pendingCleanup.delete(server.stop);
    server = null;
    return { scenario, documents, ...seeded, ...measured };
  } finally {
    if (server) await server.stop();
    await storage.cleanup();
    pendingCleanup.delete(dropStorage);
  }
}

/** `selection`: the engines (SQLITE, POSTGRES from the harness); each runs every size in BENCH_READ_DOCUMENTS. */
export async function run(settings, selection) {
  const readOutcomes = [];
  for (const scenario of selection) {
    for (const documents of settings.readDocuments) {
      log(`read cost: ${scenario.label}, seeding ${int(documents)} documents`);
      const r = await runReadScenario(scenario, documents, settings);
      readOutcomes.push(r);
      log(
        `read cost: ${scenario.label} ${int(documents)} documents (${int(r.journalLines)} lines): bare ${ms(r.bareMs)} ms, ` +
          READS.map((read) => `${read.id} ${ms(r.reads[read.id])}/${ms(r.p99[read.id])} ms`).join(', ') +
          `, import ${ms(r.importMs)}/${ms(r.importP99Ms)} ms, writer p99 ${ms(r.writer.p99)} ms (${int(r.writer.writes)} writes)`,
      );
    }
  }
  return readOutcomes;
}

/** Retries per read, in words: "none", or "aged_receivables 3, cash_flow 1". */
function conflictWords(conflicts) {
  const list = Object.entries(conflicts ?? {}).filter(([, n]) => n > 0);
  return list.length === 0 ? 'none' : list.map(([id, n]) => `${id} ${n}`).join(', ');
}

/** The p99 every request must stay under at the largest size on SQLite, a writer running. */
export const P99_GOAL_MS = 100;

/** One table per engine: each read's median and p99 ms, ÷ the bare route, µs per journal line, per size. */
function readTables(readOutcomes) {
  if (readOutcomes.length === 0) return '_Not run (BENCH_READ_DOCUMENTS is empty)._';
  const engines = [...new Set(readOutcomes.map((o) => o.scenario.label))];
  return engines
    .map((label) => {
      const runs = readOutcomes.filter((o) => o.scenario.label === label).sort((a, b) => a.documents - b.documents);
      const first = runs[0];
      const last = runs.at(-1);
      const header = ['Read', ...runs.flatMap((r) => [`${int(r.documents)} docs: ms`, 'p99 ms', '÷ bare', 'µs / line'])];
      if (runs.length > 1)
        header.push(
          `ms ${int(last.documents)} ÷ ms ${int(first.documents)} (lines: ${+(last.journalLines / first.journalLines).toFixed(1)} ×)`,
        );
      const row = (name, pick, pickP99) => {
        const cells = runs.flatMap((r) => {
          const v = pick(r);
          return [ms(v), ms(pickP99(r)), `${(v / r.bareMs).toFixed(1)} ×`, ((v * 1000) / r.journalLines).toFixed(2)];
        });
        if (runs.length > 1) cells.push((pick(last) / pick(first)).toFixed(1));
        return [name, ...cells];
      };
      const rows = [
        ...READS.map((read) =>
          row(
            read.label,
            (r) => r.reads[read.id],
            (r) => r.p99[read.id],
          ),
        ),
        row(
          'books.feedLines, import of 200 new lines (agent key)',
          (r) => r.importMs,
          (r) => r.importP99Ms,
        ),
        row(
          'books.invoiceDraft, the writer running beside them (agent key)',
          (r) => r.writer.p50,
          (r) => r.writer.p99,
        ),
      ];
      const facts = runs
        .map(
          (r) =>
            `${int(r.documents)} documents: ${int(r.journalLines)} journal lines, seeded in ${r.seconds.toFixed(1)} s; ` +
            `bare route ${ms(r.bareMs)} ms; the writer drafted ${int(r.writer.writes)} invoices (slowest ${ms(r.writer.max)} ms); ` +
            `reads retried after 409 CONFLICT (the books changed between a report's statements): ${conflictWords(r.conflicts)}`,
        )
        .join('; ');
      return `### ${label}\n\n${table(header, rows)}\n\n${facts}.`;
    })
    .join('\n\n');
}

/** Every request's p99 under the goal at the largest size on SQLite, the writer's included. */
export function goals(readOutcomes) {
  const sqlite = (readOutcomes ?? []).filter((o) => o.scenario.engine === 'sqlite');
  if (sqlite.length === 0) return [];
  const r = sqlite.sort((a, b) => a.documents - b.documents).at(-1);
  const all = [
    ...READS.map((read) => [read.label, r.p99[read.id]]),
    ['200-line import', r.importP99Ms],
    ['the writer (invoiceDraft)', r.writer.p99],
  ];
  const over = all.filter(([, v]) => v >= P99_GOAL_MS);
  const worst = all.reduce((a, b) => (b[1] > a[1] ? b : a));
  return [
    `SQLite, ${int(r.documents)} documents, a writer running: every request's p99 < ${P99_GOAL_MS} ms — ` +
      (over.length === 0
        ? `**met** (slowest p99: ${worst[0]}, ${ms(worst[1])} ms)`
        : `**not met** (${over.map(([n, v]) => `${n} ${ms(v)} ms`).join('; ')})`),
  ];
}

/** Its section of the document. */
export function render(readOutcomes, { settings: s }) {
  return `## Read cost: every read over many documents

An organisation is seeded with N posted documents (bench/seed-books.mjs: three in four sent
invoices, one in four approved bills, half of them paid; one transaction, in the rows the
domain's postings write). Then, while one client drafts invoices back to back (the writer, agent
key), ${s.importRepeats} imports of 200 new bank lines run (agent key), and each read is called ${s.readRepeats} times, one request
at a time, with the reader key, alternating with the bare route. **ms** is the median, **p99** the
nearest-rank 99th percentile of those calls (with ${s.readRepeats} calls, the slowest). One request at a time on
purpose: on SQLite a read runs on the event loop (better-sqlite3 is synchronous), so its latency
is how long every other request waits — the writer's p99 shows it. **÷ bare** is the read's median
over the bare route's; **µs / line** is the median per journal line in the books; the last column
is the median at the largest size over the smallest, to compare with the growth of the journal
lines: a read whose cost follows what it returns stays near 1. PostgreSQL's statistics are
refreshed (\`ANALYZE\`) after seeding, as autovacuum would.

${readTables(readOutcomes ?? [])}`;
}
/** The tables printed on stdout at the end of the run. */
export function tables(readOutcomes) {
  return [readTables(readOutcomes ?? [])];
}
