/**
 * PostgreSQL keeps a named statement's generic plan for the life of the
 * connection, chosen with the table sizes of the moment. A connection opened on a young database
 * kept plans for empty tables: the invoice number window became a scan of every invoice of the
 * organisation, filtered, on every batch of drafts. The engine drops each connection's cached
 * plans on a schedule (1 s after it opened, doubling, then every minute); these tests hold it to
 * that schedule and show the window planned again as a range of the (org_id, number) index.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NUMBER_WINDOW_SQL } from '../src/domain/receivables/invoices.js';
import { PostgresDatabase } from '../src/storage/postgres.js';
import { migrations } from '../src/schema.js';
import { createScratchDatabase } from './multiprocess.js';

const pgUrl = process.env.TEST_DATABASE_URL;
if (!pgUrl) {
  console.warn('[finance-desk tests] PostgreSQL plan refresh test SKIPPED: TEST_DATABASE_URL is not set.');
}

/** Every statement text node-postgres sends, while `sent` is set. */
let sent: string[] | null = null;
// eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be put back, and called with the client as `this`
const realQuery = pg.Client.prototype.query;

describe.skipIf(!pgUrl)('PostgreSQL: cached plans are dropped on a schedule', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;

  beforeAll(async () => {
    scratch = await createScratchDatabase(pgUrl ?? '');
    pg.Client.prototype.query = function spied(this: pg.Client, ...args: unknown[]) {
      const first = args[0];
      const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
      if (sent && typeof text === 'string') sent.push(text);
      return (realQuery as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof realQuery;
  }, 60_000);

  afterAll(async () => {
    pg.Client.prototype.query = realQuery;
    await scratch?.drop();
  });

  it('a connection drops its plans 1 unit after it opened, then after 2, 4, … up to the cap', async () => {
    let now = 1_000_000;
    const db = new PostgresDatabase({ migrations, url: scratch.url, poolSize: 1, replanFirstMs: 100, replanMaxMs: 400, now: () => now });
    try {
      const discards = async (advance: number): Promise<number> => {
        now += advance;
        sent = [];
        await db.reader.all('SELECT 1 AS one');
        const n = sent.filter((q) => q === 'DISCARD PLANS').length;
        sent = null;
        return n;
      };
      // Opened at 1 000 000 (its first use): due at +100, then +200, +400, and every 400 after.
      expect(await discards(0)).toBe(0);
      expect(await discards(99)).toBe(0);
      expect(await discards(1)).toBe(1);
      expect(await discards(199)).toBe(0);
      expect(await discards(1)).toBe(1);
      expect(await discards(399)).toBe(0);
      expect(await discards(1)).toBe(1);
      // Capped: 400 again, not 800.
      expect(await discards(400)).toBe(1);
      expect(await discards(400)).toBe(1);
      // A long idle spell owes one DISCARD, not one per period missed.
      expect(await discards(10_000)).toBe(1);
      expect(await discards(0)).toBe(0);
      // Before the first statement of a checkout's transaction, outside it.
      now += 400;
      sent = [];
      await db.write(async (tx) => tx.all('SELECT 2 AS two'));
      const order = sent;
      sent = null;
      expect(order[0]).toBe('DISCARD PLANS');
      expect(order[1]).toMatch(/^BEGIN/);
    } finally {
      sent = null;
      await db.close();
    }
  });

  it('the invoice number window, planned while its table was small, is planned again as a range of (org_id, number) once the table grew', async () => {
    let now = 2_000_000;
    const db = new PostgresDatabase({
      migrations,
      url: scratch.url,
      poolSize: 1,
      replanFirstMs: 1_000,
      replanMaxMs: 60_000,
      now: () => now,
    });
    try {
      await db.migrate();
      const org = 'org_replan';
      const window = [org, 'INV-20001', 'INV-20256'] as const;
      const invoices = (from: number, to: number) =>
        db.reader.all(
          `INSERT INTO invoices (org_id, id, status, payee_name, description, total_cents, due_days, created_at, ledger_id, number, gst_cents)
           SELECT ?, 'inv_' || g, 'draft', 'P', 'd', 100, 7, '2026-11-26T00:00:00Z', '00000000', 'INV-' || lpad(g::text, 5, '0'), 0
           FROM generate_series(${from}, ${to}) g`,
          [org],
        );
      // A young organisation (1 000 invoices, never analysed); six runs and the connection settles
      // on a generic plan for the window (PostgreSQL 15 chooses another index, filtered, here).
      await invoices(1, 1_000);
      for (let i = 0; i < 6; i += 1) await db.reader.all(NUMBER_WINDOW_SQL.one, [...window]);
      // Then it grows, with no ANALYZE (autovacuum has not come round).
      await invoices(1_001, 20_000);
      const plan = async (): Promise<string> => {
        const rows = await db.reader.all<{ name: string }>(
          "SELECT name FROM pg_prepared_statements WHERE statement LIKE 'SELECT number FROM invoices WHERE org_id = $1 AND number >= $2%'",
        );
        const name = rows[0]?.name;
        expect(name, 'the window is a named (prepared) statement on this connection').toMatch(/^fd\d+$/);
        const explained = await db.reader.all<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${name}('${window.join("', '")}')`);
        return explained.map((r) => r['QUERY PLAN']).join('\n');
      };
      // Not yet due: the plan chosen for the small table, not a range of (org_id, number).
      expect(await plan()).not.toMatch(/invoices_number[\s\S]*Index Cond: \(\(org_id = \$1\) AND \(number >= \$2\)/);
      now += 1_000;
      await db.reader.all(NUMBER_WINDOW_SQL.one, [...window]);
      const again = await plan();
      expect(again).toMatch(/Index (Only )?Scan using invoices_number on invoices/);
      expect(again).not.toMatch(/Filter:/);
    } finally {
      await db.close();
    }
  });
});
