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
    const measured = await measureReads(server, created.keys, today, settings.readRepeats);
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
          READS.map((read) => `${read.id} ${ms(r.reads[read.id])} ms`).join(', ') +
          `, import ${ms(r.importMs)} ms`,
      );
    }
  }
  return readOutcomes;
}

/** One table per engine: each read's median ms, ÷ the bare route, µs per journal line, per size. */
function readTables(readOutcomes) {
  if (readOutcomes.length === 0) return '_Not run (BENCH_READ_DOCUMENTS is empty)._';
  const engines = [...new Set(readOutcomes.map((o) => o.scenario.label))];
  return engines
    .map((label) => {
      const runs = readOutcomes.filter((o) => o.scenario.label === label).sort((a, b) => a.documents - b.documents);
      const first = runs[0];
      const last = runs.at(-1);
      const header = ['Read', ...runs.flatMap((r) => [`${int(r.documents)} docs: ms`, '÷ bare', 'µs / line'])];
      if (runs.length > 1)
        header.push(
          `ms ${int(last.documents)} ÷ ms ${int(first.documents)} (linear: ${+(last.journalLines / first.journalLines).toFixed(1)})`,
        );
      const row = (name, pick) => {
        const cells = runs.flatMap((r) => {
          const v = pick(r);
          return [ms(v), `${(v / r.bareMs).toFixed(1)} ×`, ((v * 1000) / r.journalLines).toFixed(2)];
        });
        if (runs.length > 1) cells.push((pick(last) / pick(first)).toFixed(1));
        return [name, ...cells];
      };
      const rows = [
        ...READS.map((read) => row(read.label, (r) => r.reads[read.id])),
        row('books.feedLines, import of 200 lines (agent key, once)', (r) => r.importMs),
      ];
      const facts = runs
        .map(
          (r) =>
            `${int(r.documents)} documents: ${int(r.journalLines)} journal lines, seeded in ${r.seconds.toFixed(1)} s; ` +
            `bare route ${ms(r.bareMs)} ms`,
        )
        .join('; ');
      return `### ${label}\n\n${table(header, rows)}\n\n${facts}.`;
    })
    .join('\n\n');
}

/** Its section of the document. */
export function render(readOutcomes, { settings: s }) {
  return `## Read cost: reports over many documents

An organisation is seeded with N posted documents (bench/seed-books.mjs: three in four sent
invoices, one in four approved bills, half of them paid; one transaction, in the rows the
domain's postings write), then each read is called ${s.readRepeats} times, one request at a time, with the
reader key, alternating with the bare route; the figures are medians. One request at a time on
purpose: on SQLite a read runs on the event loop (better-sqlite3 is synchronous), so its latency
is how long every other request waits. **÷ bare** is the read's latency over the bare route's;
**µs / line** is the latency per journal line in the books; the last column is the latency at
the largest size over the smallest, to compare with the growth of the journal lines (the
"linear" figure): well above it would be super-linear. The 200-line bank import (agent key)
runs once per size. PostgreSQL's statistics are refreshed (\`ANALYZE\`) after seeding, as
autovacuum would. Before the reports were rewritten, SQLite took 2 s for these reports at 3 000 invoices and
8 s at 6 000 (quadratic).

${readTables(readOutcomes ?? [])}`;
}

/** The tables printed on stdout at the end of the run. */
export function tables(readOutcomes) {
  return [readTables(readOutcomes ?? [])];
}
