// Read-cost benchmark: the ledger reads — reports, books.accounts,
// books.feedLinesList, a 200-line bank import — over an organisation holding N posted documents,
// timed one request at a time against the bare route on the same server. On SQLite a read blocks
// every other request while it runs (better-sqlite3 is synchronous), so its latency is how long
// the whole server stalls. Seeding writes rows directly (seed-books.mjs) through the compiled
// server's own storage and unit of work: one transaction, one ledger event.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { partyName, seedBooks } from './seed-books.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The reads measured, in table order. `params(today)` gives the body's params. */
export const READS = [
  {
    id: 'trial_balance',
    label: 'books.reports trial_balance',
    method: 'books.reports',
    params: (d) => ({ type: 'trial_balance', asOf: d }),
  },
  {
    id: 'balance_sheet',
    label: 'books.reports balance_sheet',
    method: 'books.reports',
    params: (d) => ({ type: 'balance_sheet', asOf: d }),
  },
  {
    id: 'profit_and_loss',
    label: 'books.reports profit_and_loss (12 months)',
    method: 'books.reports',
    params: (d) => ({ type: 'profit_and_loss', from: yearBefore(d), to: d }),
  },
  {
    id: 'aged_receivables',
    label: 'books.reports aged_receivables',
    method: 'books.reports',
    params: (d) => ({ type: 'aged_receivables', asOf: d }),
  },
  {
    id: 'aged_payables',
    label: 'books.reports aged_payables',
    method: 'books.reports',
    params: (d) => ({ type: 'aged_payables', asOf: d }),
  },
  {
    id: 'gst_summary',
    label: 'books.reports gst_summary (a quarter)',
    method: 'books.reports',
    params: (d) => ({ type: 'gst_summary', from: quarterBefore(d), to: d }),
  },
  { id: 'accounts', label: 'books.accounts', method: 'books.accounts', params: (d) => ({ asOf: d }) },
  { id: 'feed_list', label: 'books.feedLinesList (50 lines, suggestions)', method: 'books.feedLinesList', params: () => ({ limit: 50 }) },
];

function yearBefore(date) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() - 1);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

function quarterBefore(date) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 90);
  return d.toISOString().slice(0, 10);
}

/** 200 bank lines in the last 60 days, amounts and names that match seeded documents. */
export function importLines(today, count = 200) {
  return Array.from({ length: count }, (_, i) => {
    const d = new Date(`${today}T00:00:00Z`);
    d.setUTCDate(d.getUTCDate() - 11 - (i % 60));
    return {
      date: d.toISOString().slice(0, 10),
      amountCents: 11_000 + (i % 97) * 1_100,
      description: `Deposit ${partyName(i * 7)} ref ${i}`,
    };
  });
}

/** Seed `documents` documents into the organisation, in-process, through the compiled server. */
export async function seed(root, databaseUrl, orgId, documents, today) {
  const dist = join(root, 'packages/server/dist');
  const { openDatabase } = await import(pathToFileURL(join(dist, 'storage/open.js')).href);
  const { migrations } = await import(pathToFileURL(join(dist, 'schema.js')).href);
  const { inUnitOfWork } = await import(pathToFileURL(join(dist, 'write-path.js')).href);
  const db = openDatabase(databaseUrl, { migrations });
  try {
    await db.migrate();
    const started = performance.now();
    await inUnitOfWork(db, orgId, '', async (uow) => {
      const event = await uow.emit({ family: 'books', kind: 'books.journal.post' }, { entityId: 'bench-seed', payload: { documents } });
      await seedBooks(uow.tx, { orgId, ledgerId: event.ledgerId, documents, today });
      return {};
    });
    const seconds = (performance.now() - started) / 1000;
    const lines = await db.reader.get('SELECT COUNT(*) AS n FROM journal_lines WHERE org_id = ?', [orgId]);
    if (db.caps.engine === 'postgres') await db.reader.run('ANALYZE');
    return { seconds, journalLines: Number(lines.n) };
  } finally {
    await db.close();
  }
}

/** POST one call and return its wall time in ms; throws on anything but 200. */
async function timed(url, path, key, body) {
  const started = performance.now();
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const elapsed = performance.now() - started;
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 500)}`);
  return { elapsed, body: JSON.parse(text) };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
};

/**
 * Median ms of `repeats` sequential calls of each read, and of the bare route in between (the
 * baseline), plus one 200-line import. Reads run one at a time: the figure is the stall.
 */
export async function measureReads(server, keys, today, repeats) {
  const bare = [];
  const out = { reads: {}, bareMs: 0, importMs: 0 };
  const bareOnce = async () => bare.push((await timed(server.url, '/bench/bare', null, { params: { ping: 1 } })).elapsed);
  for (let i = 0; i < 3; i += 1) await bareOnce(); // warm-up
  bare.length = 0;
  const imported = await timed(server.url, '/api/v1/books.feedLines', keys.agent, { params: { lines: importLines(today) } });
  out.importMs = imported.elapsed;
  out.imported = imported.body.result?.lineIds?.length ?? 0;
  for (const read of READS) {
    const times = [];
    await timed(server.url, `/api/v1/${read.method}`, keys.reader, { params: read.params(today) }); // warm-up
    for (let i = 0; i < repeats; i += 1) {
      await bareOnce();
      times.push((await timed(server.url, `/api/v1/${read.method}`, keys.reader, { params: read.params(today) })).elapsed);
    }
    out.reads[read.id] = median(times);
    await sleep(0);
  }
  out.bareMs = median(bare);
  return out;
}
