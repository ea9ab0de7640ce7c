/**
 * Case-insensitive filters compare keys normalised in TypeScript (search-key.ts),
 * so `café` finds `CAFÉ` and `Café` on both engines, and migration 12's backfill step fills the
 * key of rows written before it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill } from './payables-helpers.js';

const NAMES = ['CAFÉ ROYAL', 'Café  Royal', 'Cafe\u0301 Nord', 'Tea House'];

describe.each(engines)('search keys (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
    for (const payeeName of NAMES) {
      const r = await t.post(org.keys.agent, 'books.invoiceDraft', { payeeName, description: 'x', totalCents: 1_100, dueDays: 7 });
      expect(r.status).toBe(200);
      await approvedBill(t, org, { payeeName, description: 'x', totalCents: 1_100 });
    }
  });
  afterAll(async () => t.close());

  const invoicePayees = async (payeeName: string) =>
    ((await t.post(org.keys.reader, 'books.invoices', { payeeName })).body.result.invoices as { payeeName: string }[])
      .map((i) => i.payeeName)
      .sort();
  const billPayees = async (payeeName: string) =>
    ((await t.post(org.keys.reader, 'books.bills', { payeeName })).body.result.bills as { payeeName: string }[])
      .map((b) => b.payeeName)
      .sort();

  it('books.invoices: café finds CAFÉ and Café (any case, accents and spacing)', async () => {
    const cafes = [...NAMES.slice(0, 3)].sort();
    expect(await invoicePayees('café')).toEqual(cafes);
    expect(await invoicePayees('CAFE')).toEqual(cafes);
    expect(await invoicePayees('café royal')).toEqual(['CAFÉ ROYAL', 'Café  Royal'].sort());
    expect(await invoicePayees('%')).toEqual([]);
  });

  it('books.bills: café finds CAFÉ and Café', async () => {
    const found = await billPayees('café');
    expect(found).toEqual(expect.arrayContaining(['CAFÉ ROYAL', 'Café  Royal']));
  });

  it('migration 12 backfills the key of rows written before it', async () => {
    // Undo migration 12 (column and record), then migrate again as an upgraded server would.
    await t.db.write(async (tx) => {
      await tx.run('ALTER TABLE invoices DROP COLUMN payee_search');
      await tx.run('DELETE FROM schema_migrations WHERE id = 12');
    });
    expect(await t.db.reader.get('SELECT 1 AS x FROM schema_migrations WHERE id = 12')).toBeUndefined();
    await t.db.migrate();
    const keys = await t.db.reader.all<{ payee_search: string }>(
      'SELECT payee_search FROM invoices WHERE org_id = ? ORDER BY payee_search',
      [org.orgId],
    );
    expect(keys.map((k) => k.payee_search)).toEqual(['cafe nord', 'cafe royal', 'cafe royal', 'tea house']);
    expect(await invoicePayees('café')).toEqual([...NAMES.slice(0, 3)].sort());
  });
});
