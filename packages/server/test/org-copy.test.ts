/**
 * `finance-desk copy`: an organisation moved to another database, any engine to any. A rich
 * organisation (invoices, a payment, bills, a signed pay run, approvals, attachments, a receipt,
 * a bank line, a checkpoint, an OAuth grant, outbox messages, idempotency rows) is copied while
 * the source server keeps writing, and every table's rows of the organisation — tables found in
 * each database's own catalogue, not a list kept here — are compared between source and target
 * as canonical values; a table the copy missed fails the test. A server started on the target
 * answers reads as the source's does and chains a new write on.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointNow, signerFrom } from '../src/ledger/checkpoints.js';
import { copyOrganisations } from '../src/ops/org-copy.js';
import { verifyStoredChain } from '../src/ledger/verify.js';
import { decideGrant, registerOAuthClient, startGrant } from '../src/org/oauth.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { startServer, type RunningServer } from '../src/server.js';
import { migrations } from '../src/schema.js';
import { openDatabase } from '../src/storage/open.js';
import type { Database, Queryable } from '../src/storage/types.js';
import { engines, freshDatabaseUrl, runCliHere, startTestServer, testConfig, type Engine, type TestServer } from './harness.js';
import { approvedBill, bank, today } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';
import { decide, freshKey, heldAndRequested, sentInvoice } from './signature-helpers.js';

const DIRECTIONS: readonly (readonly [Engine, Engine])[] = [
  ['sqlite', 'sqlite'],
  ...(engines.includes('postgres')
    ? ([
        ['sqlite', 'postgres'],
        ['postgres', 'sqlite'],
        // Organisations spread over several PostgreSQL clusters.
        ['postgres', 'postgres'],
      ] as const)
    : []),
];

/** Tables without org_id: the installation's own, and OAuth clients (referenced by grants). */
const SHARED_TABLES = ['login_attempts', 'oauth_clients', 'schema_migrations', 'server_secrets'];

const signer = signerFrom('org-copy.test', Buffer.alloc(32, 7).toString('base64'));

/** Every table of the database and its columns, from its own catalogue. */
async function tablesOf(q: Queryable, engine: Engine): Promise<Map<string, string[]>> {
  const rows =
    engine === 'sqlite'
      ? await q.all<{ t: string; c: string }>(
          `SELECT m.name AS t, p.name AS c FROM sqlite_master m, pragma_table_info(m.name) p
           WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, p.cid`,
        )
      : await q.all<{ t: string; c: string }>(
          `SELECT table_name AS t, column_name AS c FROM information_schema.columns
           WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
        );
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.t, [...(out.get(r.t) ?? []), r.c]);
  return out;
}

/** A row as canonical text: columns by name, values as the driver gives them (text, number, null). */
function canonical(row: Record<string, unknown>): string {
  return JSON.stringify(
    Object.keys(row)
      .sort()
      .map((k) => [k, row[k]]),
  );
}

/** Every org_id table's rows of the organisation (and its organisations row), sorted canonical texts. */
async function orgRows(db: Database, engine: Engine, orgId: string): Promise<Map<string, string[]>> {
  return db.read(async (q) => {
    const out = new Map<string, string[]>();
    for (const [table, columns] of await tablesOf(q, engine)) {
      const where = table === 'organisations' ? 'id = ?' : columns.includes('org_id') ? 'org_id = ?' : null;
      if (where === null) continue;
      const rows = await q.all<Record<string, unknown>>(`SELECT * FROM ${table} WHERE ${where}`, [orgId]);
      out.set(table, rows.map(canonical).sort());
    }
    return out;
  });
}

/** Rows of every org_id table, all organisations: what a refused copy must leave as it was. */
async function allRowCounts(db: Database, engine: Engine): Promise<Record<string, number>> {
  return db.read(async (q) => {
    const out: Record<string, number> = {};
    for (const table of (await tablesOf(q, engine)).keys()) {
      out[table] = Number((await q.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${table}`))?.n ?? 0);
    }
    return out;
  });
}

/** An organisation with a bit of everything its books keep. */
async function richOrganisation(t: TestServer, o: CreatedOrg): Promise<{ clientId: string }> {
  const ok = async (method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const r = await t.post(o.keys.agent, method, params, headers);
    expect(r.status, `${method}: ${JSON.stringify(r.body)}`).toBe(200);
    return r.body.result;
  };
  // Receivables: a sent invoice chased twice (the second step through a human's approval), paid in part.
  const invoiceId = await sentInvoice(t, o);
  const { approvalId } = await heldAndRequested(t, o, 'books.invoiceChaseStep', { id: invoiceId, step: 2 });
  await decide(t, o, approvalId, true);
  await ok('books.invoiceChaseStep', { id: invoiceId, step: 2, approvalId }, { 'x-idempotency-key': freshKey() });
  await ok(
    'books.invoiceRecordPayment',
    { id: invoiceId, amountCents: 40_000, reference: 'EFT 1001' },
    { 'x-idempotency-key': freshKey() },
  );
  const pdf = Buffer.from('%PDF-1.4\nSigned quote Q-77\n%%EOF\n');
  await ok('books.attachmentAdd', {
    kind: 'invoice',
    id: invoiceId,
    attachment: { contentBase64: pdf.toString('base64'), filename: 'quote-Q-77.pdf', mimeType: 'application/pdf' },
  });
  await ok('books.receiptsRegister', {
    contentBase64: Buffer.from('%PDF-1.4 receipt for catering').toString('base64'),
    filename: 'receipt.pdf',
    mimeType: 'application/pdf',
  });
  // Payables: a bill to a new payee, approved through a human.
  await approvedBill(t, o, {
    payeeName: 'Northside Hardware',
    description: 'Fixings',
    totalCents: 78_500,
    ...bank('062-000', '12345678', 'Northside Hardware'),
  });
  await ok('books.contactCreate', { name: 'Baker St Dental', kind: 'customer' });
  await ok('books.feedLines', { lines: [{ date: today(), amountCents: 40_000, description: 'EFT 1001 HARBOUR CAFE' }] });
  // Payroll: an employee (the contract through a human) and a signed pay run (a payment file queued).
  await activeEmployee(t, o, {
    name: 'Aroha Ngata',
    annualSalaryCents: 7_280_000,
    bsb: '062-703',
    accountNumber: '11223344',
    accountName: 'Aroha Ngata',
  });
  const run = await ok('books.payrollDraft', {
    periodStart: '2026-06-19',
    periodEnd: '2026-07-02',
    paymentDate: '2026-07-02',
    payFrequency: 'fortnightly',
  });
  await signPayRun(t, o, run.id as string);
  // An OAuth connector's request, denied by the owner: a grant of this organisation naming a client.
  const client = await registerOAuthClient(t.db, {
    client_id: randomUUID(),
    client_name: 'Desk assistant',
    redirect_uris: ['http://localhost:9/callback'],
  });
  const challenge = createHash('sha256').update('verifier').digest('base64url');
  const grantId = await startGrant(
    t.db,
    { base: t.url, resource: `${t.url}/mcp` },
    { client, redirectUri: 'http://localhost:9/callback', codeChallenge: challenge },
  );
  await decideGrant(t.db, { grantId, orgId: o.orgId, userId: o.owner.userId, approve: false, tier: null });
  await checkpointNow(t.db, signer, o.orgId, new Date().toISOString());
  return { clientId: client.client_id };
}

describe.each(DIRECTIONS)('finance-desk copy from %s to %s', (from, to) => {
  let t: TestServer;
  let rich: CreatedOrg;
  let other: CreatedOrg;
  let clientId: string;
  let target: { url: string; drop: () => Promise<void> };
  let targetDb: Database;
  let dir: string;
  const sourceEnv = () => ({ DATABASE_URL: t.databaseUrl as string, SQLITE_SYNCHRONOUS: 'NORMAL' });
  const copy = (...args: string[]) => runCliHere(sourceEnv(), ['copy', '--to', target.url, ...args]);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-orgcopy-'));
    t = await startTestServer(from, { paymentsOutboxDir: dir, emailOutboxDir: dir });
    if (t.databaseUrl === undefined) throw new Error('the source database has no URL the CLI can open');
    rich = await t.org();
    other = await t.org();
    ({ clientId } = await richOrganisation(t, rich));
    expect((await t.post(other.keys.agent, 'board.createTask', { title: 'Not to be copied' })).status).toBe(200);
    target = await freshDatabaseUrl(to);
    targetDb = openDatabase(target.url, { migrations });
  });
  afterAll(async () => {
    await targetDb?.close();
    await t?.close();
    await target?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("copies the named organisation while the source server writes; every table's rows of it are the source's, and nothing of another", async () => {
    // Another organisation of the running source keeps writing throughout.
    let stop = false;
    let written = 0;
    const writer = (async () => {
      while (!stop) {
        expect((await t.post(other.keys.agent, 'board.createTask', { title: `during the copy ${written}` })).status).toBe(200);
        written += 1;
      }
    })();
    const done = await copy('--org', rich.slug, '--json');
    stop = true;
    await writer;
    expect(done.err).toBe('');
    expect(done.code).toBe(0);
    expect(written).toBeGreaterThan(0);
    const report = JSON.parse(done.out);
    const sourceHead = (await t.get(rich.keys.observer, 'snapshot')).body.head;
    expect(report.organisations).toEqual([
      {
        slug: rich.slug,
        orgId: rich.orgId,
        events: sourceHead.seq,
        head: { seq: sourceHead.seq, rowHash: sourceHead.rowHash },
        rows: report.rows,
        outboxQueued: expect.any(Number),
      },
    ]);
    expect(report.rowsPerSecond).toBeGreaterThan(0);

    const [source, copied] = await Promise.all([orgRows(t.db, from, rich.orgId), orgRows(targetDb, to, rich.orgId)]);
    // The tables are the database's own: the same on both sides, and every org_id table compared.
    expect([...copied.keys()].sort()).toEqual([...source.keys()].sort());
    for (const [table, rows] of source) expect(copied.get(table), table).toEqual(rows);
    // It is a rich organisation: these tables hold rows of it.
    for (const table of [
      'organisations',
      'org_heads',
      'events',
      'users',
      'credentials',
      'accounts',
      'journals',
      'journal_lines',
      'invoices',
      'invoice_payments',
      'bills',
      'approvals',
      'document_attachments',
      'attachment_contents',
      'receipts',
      'contacts',
      'bank_feed_lines',
      'employees',
      'pay_runs',
      'pay_run_lines',
      'checkpoints',
      'oauth_grants',
      'outbox',
      'idempotency',
    ]) {
      expect(source.get(table)?.length ?? 0, table).toBeGreaterThan(0);
    }
    const rowsCompared = [...source.values()].reduce((n, rows) => n + rows.length, 0);
    expect(report.rows).toBe(rowsCompared + 1); // and the one OAuth client the grant names

    // Tables without org_id are the known shared ones; of them only the referenced client came over.
    const shared = [...(await targetDb.read((q) => tablesOf(q, to))).entries()].filter(
      ([name, cols]) => name !== 'organisations' && !cols.includes('org_id'),
    );
    expect(shared.map(([name]) => name).sort()).toEqual(SHARED_TABLES);
    expect(await targetDb.reader.all('SELECT client_id FROM oauth_clients')).toEqual([{ client_id: clientId }]);
    // Nothing of the other organisation.
    expect(await targetDb.reader.all('SELECT slug FROM organisations')).toEqual([{ slug: rich.slug }]);
    const otherRows = [...(await orgRows(targetDb, to, other.orgId)).values()].reduce((n, rows) => n + rows.length, 0);
    expect(otherRows).toBe(0);
  });

  it('a server started on the target answers reads as the source does, and chains a new write on', async () => {
    const served: RunningServer = await startServer(testConfig({ databaseUrl: target.url, paymentsOutboxDir: dir, emailOutboxDir: dir }), {
      logger: false,
    });
    try {
      const call = async (url: string, key: string, method: string, params: unknown) => {
        const res = await fetch(`${url}/api/v1/${method}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(params),
        });
        return { status: res.status, body: await res.json() };
      };
      const read = async (url: string, path: string) =>
        (await fetch(`${url}/api/v1/${path}`, { headers: { authorization: `Bearer ${rich.keys.observer}` } })).json();
      for (const [method, params] of [
        ['books.reports', { type: 'trial_balance', asOf: today() }],
        ['books.reports', { type: 'aged_receivables', asOf: today() }],
        ['books.invoices', {}],
        ['books.bills', {}],
        ['books.employees', {}],
        ['books.journals', {}],
      ] as const) {
        const [a, b] = await Promise.all([
          call(t.url, rich.keys.reader, method, params),
          call(served.url, rich.keys.reader, method, params),
        ]);
        expect(a.status, method).toBe(200);
        expect(b, method).toEqual(a);
      }
      expect(await read(served.url, 'events?limit=500')).toEqual(await read(t.url, 'events?limit=500'));
      const head = (await read(served.url, 'snapshot')).head.seq as number;
      const drafted = await call(served.url, rich.keys.agent, 'books.invoiceDraft', {
        payeeName: 'Baker St Dental',
        description: 'After the move',
        totalCents: 22_000,
        dueDays: 14,
      });
      expect(drafted.status, JSON.stringify(drafted.body)).toBe(200);
      expect((await read(served.url, 'snapshot')).head.seq).toBe(head + 1);
      const verdict = await verifyStoredChain(targetDb, rich.orgId);
      expect(verdict).toMatchObject({ ok: true, rows: head + 1 });
    } finally {
      await served.close();
    }
  });

  it('refuses, writing nothing, when an organisation of that id or slug is already in the target', async () => {
    const before = await allRowCounts(targetDb, to);
    // Without --org: every organisation of the source, the one already there among them.
    const all = await copy();
    expect(all.code).toBe(1);
    expect(all.out).toBe('');
    expect(all.err).toBe(`finance-desk: copy: the target already holds organisation ${rich.slug} (${rich.orgId}); nothing was copied\n`);
    const again = await copy('--org', rich.slug);
    expect(again.code).toBe(1);
    expect(again.err.split('\n').filter(Boolean)).toHaveLength(1);
    const unknown = await copy('--org', 'no-such-org');
    expect(unknown).toMatchObject({ code: 1, err: 'finance-desk: copy: --org: no organisation no-such-org in the source database\n' });
    const notUrl = await runCliHere(sourceEnv(), ['copy', '--to', './elsewhere.db']);
    expect(notUrl).toMatchObject({ code: 2, err: 'finance-desk: --to: must be sqlite:<file> or a postgres:// URL\n' });
    const itself = await runCliHere(sourceEnv(), ['copy', '--to', t.databaseUrl as string]);
    expect(itself).toMatchObject({ code: 2, err: 'finance-desk: --to: is DATABASE_URL itself; copy to another database\n' });
    expect(await allRowCounts(targetDb, to)).toEqual(before);
    // Named, the other organisation comes over beside it.
    const second = await copy('--org', other.slug);
    expect(second.err).toBe('');
    expect(second.code).toBe(0);
    expect(second.out).toMatch(
      new RegExp(`^copied 1 organisation to .+\\n${other.slug} \\(${other.orgId}\\): \\d+ events, chain verified on the target`),
    );
    const [source, copied] = await Promise.all([orgRows(t.db, from, other.orgId), orgRows(targetDb, to, other.orgId)]);
    for (const [table, rows] of source) expect(copied.get(table), table).toEqual(rows);
  });

  it('pages through every table in key order: three rows a page copies the same rows as one page does', async () => {
    const paged = await freshDatabaseUrl(to);
    const pagedDb = openDatabase(paged.url, { migrations });
    try {
      await pagedDb.migrate();
      // More than two pages of tasks, whatever the first test's writer managed on a busy machine.
      for (let i = 0; i < 7; i += 1) {
        expect((await t.post(other.keys.agent, 'board.createTask', { title: `a page of its own ${i}` })).status).toBe(200);
      }
      const report = await copyOrganisations(t.db, pagedDb, [other.slug], { pageRows: 3 });
      expect(report.tables.board_items).toBeGreaterThan(6);
      expect(report.tables.accounts).toBeGreaterThan(6);
      const [source, copied] = await Promise.all([orgRows(t.db, from, other.orgId), orgRows(pagedDb, to, other.orgId)]);
      for (const [table, rows] of source) expect(copied.get(table), table).toEqual(rows);
    } finally {
      await pagedDb.close();
      await paged.drop();
    }
  });

  it('copies as of one instant while the same organisation is being written: the target ends at a head the source passed through', async () => {
    const second = await freshDatabaseUrl(to);
    const secondDb = openDatabase(second.url, { migrations });
    try {
      let stop = false;
      const writer = (async () => {
        for (let i = 0; !stop; i += 1) {
          expect((await t.post(rich.keys.agent, 'board.createTask', { title: `racing the copy ${i}` })).status).toBe(200);
        }
      })();
      // Let a few writes land first, so the copy starts in the middle of them.
      await new Promise((r) => setTimeout(r, 50));
      const done = await runCliHere(sourceEnv(), ['copy', '--to', second.url, '--org', rich.slug, '--json']);
      stop = true;
      await writer;
      expect(done.err).toBe('');
      expect(done.code).toBe(0);
      const head = JSON.parse(done.out).organisations[0].head as { seq: number; rowHash: string };
      const sourceEvent = await t.db.reader.get<{ row_hash: string }>('SELECT row_hash FROM events WHERE org_id = ? AND seq = ?', [
        rich.orgId,
        head.seq,
      ]);
      expect(sourceEvent?.row_hash).toBe(head.rowHash);
      expect(await verifyStoredChain(secondDb, rich.orgId)).toMatchObject({ ok: true, rows: head.seq, head });
      // Board items as of that head: one per item.created event up to it, on both sides.
      const items = async (db: Database) =>
        Number((await db.reader.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM board_items WHERE org_id = ?', [rich.orgId]))?.n);
      const created = await t.db.reader.get<{ n: number | string }>(
        "SELECT COUNT(*) AS n FROM events WHERE org_id = ? AND kind = 'item.created' AND seq <= ?",
        [rich.orgId, head.seq],
      );
      expect(await items(secondDb)).toBe(Number(created?.n));
    } finally {
      await secondDb.close();
      await second.drop();
    }
  });
});
