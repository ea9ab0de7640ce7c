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
    label: 'books.reports aged_receivables (first page, 50 items)',
    method: 'books.reports',
    params: (d) => ({ type: 'aged_receivables', asOf: d }),
  },
  {
    id: 'aged_payables',
    label: 'books.reports aged_payables (first page, 50 items)',
    method: 'books.reports',
    params: (d) => ({ type: 'aged_payables', asOf: d }),
  },
  {
    id: 'gst_summary',
    label: 'books.reports gst_summary (a quarter)',
    method: 'books.reports',
    params: (d) => ({ type: 'gst_summary', from: quarterBefore(d), to: d }),
  },
  {
    id: 'cash_flow',
    label: 'books.reports cash_flow (12 months)',
    method: 'books.reports',
    params: (d) => ({ type: 'cash_flow', from: yearBefore(d), to: d }),
  },
  {
    id: 'account_transactions',
    label: 'books.reports account_transactions (1100, a quarter, first page)',
    method: 'books.reports',
    params: (d) => ({ type: 'account_transactions', accountCode: '1100', from: quarterBefore(d), to: d }),
  },
  {
    id: 'depreciation_schedule',
    label: 'books.reports depreciation_schedule',
    method: 'books.reports',
    params: (d) => ({ type: 'depreciation_schedule', ...incomeYear(d) }),
  },
  { id: 'accounts', label: 'books.accounts', method: 'books.accounts', params: (d) => ({ asOf: d }) },
  { id: 'journals', label: 'books.journals (first page)', method: 'books.journals', params: () => ({}) },
  {
    id: 'journals_account',
    label: 'books.journals (1100, a quarter)',
    method: 'books.journals',
    params: (d) => ({ accountCode: '1100', from: quarterBefore(d), to: d }),
  },
  { id: 'invoices', label: 'books.invoices (first page)', method: 'books.invoices', params: () => ({}) },
  { id: 'bills', label: 'books.bills (first page)', method: 'books.bills', params: () => ({}) },
  { id: 'quotes', label: 'books.quotes', method: 'books.quotes', params: () => ({}) },
  { id: 'bank_accounts', label: 'books.bankAccounts', method: 'books.bankAccounts', params: () => ({}) },
  { id: 'tax_obligations', label: 'books.taxObligations', method: 'books.taxObligations', params: () => ({}) },
  { id: 'assets', label: 'books.assets', method: 'books.assets', params: () => ({}) },
  { id: 'repeating', label: 'books.repeating', method: 'books.repeating', params: () => ({}) },
  { id: 'feed_list', label: 'books.feedLinesList (50 lines, suggestions)', method: 'books.feedLinesList', params: () => ({ limit: 50 }) },
  { id: 'events', label: 'GET /api/v1/events (a page of 500)', get: '/api/v1/events?cursor=0&limit=500' },
];

function yearBefore(date) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() - 1);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** The income year (1 July to 30 June) that holds `date`'s day a year earlier: a full year of postings. */
function incomeYear(date) {
  const y = Number(date.slice(0, 4)) - 1;
  const start = date.slice(5) >= '07-01' ? y : y - 1;
  return { from: `${start}-07-01`, to: `${start + 1}-06-30` };
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

/** GET one page of the event feed (the largest page) and return its wall time in ms. */
async function timedGet(url, path, key) {
  const started = performance.now();
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  const elapsed = performance.now() - started;
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 500)}`);
  return { elapsed };
}

/** Attempts of one read call before a 409 CONFLICT fails the run. */
const READ_TRIES = 20;

/** Nearest-rank percentile of a sample (p99 of 20 samples is its largest). */
export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

const median = (xs) => percentile(xs, 50);

/**
 * A writer beside the reads: one client drafting invoices back to back (closed loop) with the
 * agent key until stopped, every latency kept. On SQLite each read holds the event loop, so a read
 * that stalls the server shows in the writer's p99 as well as in its own.
 */
function startWriter(url, key) {
  const latencies = [];
  let running = true;
  let failure = null;
  const body = { params: { payeeName: 'Writer Pty Ltd', description: 'Consulting', totalCents: 123456, dueDays: 14 } };
  const done = (async () => {
    while (running) {
      try {
        latencies.push((await timed(url, '/api/v1/books.invoiceDraft', key, body)).elapsed);
      } catch (e) {
        failure = e;
        running = false;
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      if (failure) throw failure;
      return latencies;
    },
  };
}

/**
 * Each read `repeats` times, one request at a time, alternating with the bare route (the
 * baseline), while a writer drafts invoices; then `importRepeats` 200-line imports, each of new
 * lines. Median and p99 of each; the writer's own latencies over the whole run.
 */
export async function measureReads(server, keys, today, repeats, importRepeats = 3) {
  const bare = [];
  const out = { reads: {}, p99: {}, bareMs: 0, importMs: 0, importP99Ms: 0, writer: null };
  const bareOnce = async () => bare.push((await timed(server.url, '/bench/bare', null, { params: { ping: 1 } })).elapsed);
  for (let i = 0; i < 3; i += 1) await bareOnce(); // warm-up
  bare.length = 0;
  const writer = startWriter(server.url, keys.agent);
  try {
    const imports = [];
    for (let i = 0; i < importRepeats; i += 1) {
      const lines = importLines(today).map((l, j) => ({
        ...l,
        description: `${l.description} batch ${i}`,
        amountCents: l.amountCents + (j < 100 ? 0 : i),
      }));
      const imported = await timed(server.url, '/api/v1/books.feedLines', keys.agent, { params: { lines } });
      imports.push(imported.elapsed);
      out.imported = (out.imported ?? 0) + (imported.body.result?.lineIds?.length ?? 0);
      await sleep(0);
    }
    out.importMs = median(imports);
    out.importP99Ms = percentile(imports, 99);
    const reads = READS.map((read) => ({
      id: read.id,
      call: () =>
        read.get
          ? timedGet(server.url, read.get, keys.reader)
          : timed(server.url, `/api/v1/${read.method}`, keys.reader, { params: read.params(today) }),
    }));
    // A report read in several statements answers 409 CONFLICT when writes keep landing between
    // them (ledger-totals.ts readConsistently); a client retries it. Each retry is counted and its
    // time is part of the call's, so the figure is what the client waited.
    out.conflicts = {};
    const attempt = async (read) => {
      for (let tries = 1; ; tries += 1) {
        try {
          return await read.call();
        } catch (error) {
          if (!/answered 409/.test(String(error)) || tries >= READ_TRIES) throw error;
          out.conflicts[read.id] = (out.conflicts[read.id] ?? 0) + 1;
        }
      }
    };
    for (const read of reads) {
      const times = [];
      await attempt(read); // warm-up
      for (let i = 0; i < repeats; i += 1) {
        await bareOnce();
        const started = performance.now();
        await attempt(read);
        times.push(performance.now() - started);
      }
      out.reads[read.id] = median(times);
      out.p99[read.id] = percentile(times, 99);
      await sleep(0);
    }
  } finally {
    const latencies = await writer.stop();
    out.writer = { writes: latencies.length, p50: median(latencies), p99: percentile(latencies, 99), max: Math.max(...latencies) };
  }
  out.bareMs = median(bare);
  return out;
}
