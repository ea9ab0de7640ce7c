import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partyName, seedBooks } from '../../../bench/seed-books.mjs';
import { addDays, isoDate } from '../src/clock.js';
import { ACCOUNT_BALANCE_SQL, DOCUMENT_MOVES_AFTER_SQL, OPEN_DOCUMENTS_SQL } from '../src/domain/gl/post.js';
import { JOURNAL_NET } from '../src/domain/reconciliation/documents.js';
import { openInvoicesOfContactsSql, postedBillsOfContactsSql } from '../src/domain/contacts/contacts-read.js';
import { candidates, rank, score } from '../src/domain/reconciliation/suggest.js';
import { GROUPS_SQL, PARTY_PAGE_SQL } from '../src/domain/reports/aged.js';
import { ACCOUNT_TOTALS_SQL } from '../src/domain/reports/ledger-totals.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { SqliteDatabase } from '../src/storage/sqlite.js';
import { inUnitOfWork } from '../src/write-path.js';
import { engines, openTestDatabase, startTestServer, type TestServer, migratedSqliteForSuite } from './harness.js';
import { testFixture } from './test-events.js';

/**
 * On SQLite the ledger reads were once quadratic (the planner walked the journals_date
 * range once per journal line), 2 s at 3 000 invoices, blocking every other request. Two checks
 * that time nothing: the plan of each exact statement the reads issue, and the reports over a few
 * thousand seeded documents against sums computed here from the raw rows.
 */

interface PlanRow {
  id: number;
  parent: number;
  detail: string;
}

/**
 * Per-row rescans in a SQLite plan: a loop nested inside another (a later SEARCH/SCAN under the
 * same parent) runs once per outer row, so it must look up the rows of that one outer row: every
 * constraint an equality, one of them on the join key (an id column other than org_id). A range,
 * or equalities on org and account alone, walk many rows per outer row. A full SCAN anywhere, or
 * a correlated subquery, is a rescan too. Subqueries built once (LIST SUBQUERY) are fine.
 */
function rescans(plan: readonly PlanRow[]): string[] {
  const loops = plan.filter((r) => /^(SEARCH|SCAN) /.test(r.detail));
  const bad: string[] = [];
  const seen = new Set<number>();
  for (const r of loops) {
    if (/^SCAN /.test(r.detail)) bad.push(`full scan: ${r.detail}`);
    if (!seen.has(r.parent)) {
      seen.add(r.parent);
      continue;
    }
    const constraints = /\(([^()]*)\)$/.exec(r.detail)?.[1]?.split(' AND ') ?? [];
    const lookup = constraints.every((c) => /^\w+=\?$/.test(c)) && constraints.some((c) => /^(\w+_)?id=\?$/.test(c) && c !== 'org_id=?');
    if (!lookup) bad.push(`rescanned per outer row: ${r.detail}`);
  }
  for (const r of plan) if (/CORRELATED/.test(r.detail)) bad.push(`correlated: ${r.detail}`);
  return bad;
}

function planOf(db: SqliteDatabase, sql: string): PlanRow[] {
  const raw = (db.reader as unknown as { raw: { prepare(s: string): { all(...p: unknown[]): PlanRow[] } } }).raw;
  const params = Array((sql.match(/\?/g) ?? []).length).fill('x');
  return raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params);
}

/** The shape the reads had before that was fixed (accountTotals, accountBalanceCents). */
const JOINED_TOTALS = `SELECT l.account_code AS code, SUM(l.debit_cents) AS dr, SUM(l.credit_cents) AS cr, COUNT(*) AS n
  FROM journal_lines l JOIN journals j ON j.org_id = l.org_id AND j.id = l.journal_id
  WHERE l.org_id = ? AND j.date >= ? AND j.date <= ? GROUP BY l.account_code`;
const JOINED_BALANCE = `SELECT SUM(l.debit_cents) AS dr, SUM(l.credit_cents) AS cr FROM journal_lines l
  JOIN journals j ON j.org_id = l.org_id AND j.id = l.journal_id
  WHERE l.org_id = ? AND l.account_code = ? AND j.date <= ?`;

describe('ledger reads: SQLite plans', () => {
  const db = migratedSqliteForSuite();

  it('the check finds the per-line rescan of the joined shape the reports had', () => {
    expect(rescans(planOf(db(), JOINED_TOTALS))).not.toEqual([]);
  });

  it.each([
    [
      'account totals (trial balance, balance sheet, P&L, books.accounts)',
      ACCOUNT_TOTALS_SQL,
      /^SEARCH t USING COVERING INDEX account_day_totals_sums \(org_id=\?\)$/,
    ],
    [
      'one account balance (aged reports, feedLinesList summary)',
      ACCOUNT_BALANCE_SQL,
      /^SEARCH t USING COVERING INDEX account_day_totals_sums \(org_id=\? AND account_code=\? AND date<\?\)$/,
    ],
  ])('%s: the account totals per day from their covering index, no journal line read', (_name, sql, index) => {
    const plan = planOf(db(), sql);
    expect(rescans(plan), JSON.stringify(plan)).toEqual([]);
    expect(plan.map((r) => r.detail)).toEqual([expect.stringMatching(index)]);
  });

  // Document balances (aged reports, match suggestions, bank import): the open rows of the
  // account, then only the lines of journals dated after the date, each journal looked up.
  it('open documents of an account: a partial index of document_balances, covering, no lines', () => {
    const plan = planOf(db(), OPEN_DOCUMENTS_SQL);
    expect(plan.map((r) => r.detail)).toEqual([
      expect.stringMatching(
        /^SEARCH document_balances USING COVERING INDEX document_balances_(open|party) \(org_id=\? AND account_code=\?\)$/,
      ),
    ]);
  });

  it('an aged report: the party index, covering, for the sums per party and bucket and for a party’s page', () => {
    expect(planOf(db(), GROUPS_SQL).map((r) => r.detail)).toEqual([
      'SEARCH document_balances USING COVERING INDEX document_balances_party (org_id=? AND account_code=? AND party_key>?)',
      'USE TEMP B-TREE FOR GROUP BY',
    ]);
    expect(planOf(db(), PARTY_PAGE_SQL).map((r) => r.detail)).toEqual([
      expect.stringMatching(
        /^SEARCH document_balances USING COVERING INDEX document_balances_party \(org_id=\? AND account_code=\? AND party_key=\?/,
      ),
    ]);
  });

  it('document moves after a date: the journals after it, their lines by primary key, not the account', () => {
    const plan = planOf(db(), DOCUMENT_MOVES_AFTER_SQL);
    expect(rescans(plan), JSON.stringify(plan)).toEqual([]);
    expect(plan.map((r) => r.detail)).toEqual([
      'SEARCH l USING INDEX sqlite_autoindex_journal_lines_1 (org_id=? AND journal_id=? AND line_no>?)',
      'LIST SUBQUERY 1',
      'SEARCH j USING COVERING INDEX journals_date (org_id=? AND date>?)',
    ]);
  });

  // contacts.list reads a page of contacts by name key, then the open documents
  // of those contacts through the contact indexes of migration 25, then their ledger balances.
  it.each([
    [
      'contacts.list page',
      `SELECT id FROM contacts WHERE org_id = ? AND name_key > ? AND is_customer = 1 AND name_key LIKE ? ESCAPE '!' ORDER BY name_key LIMIT 51`,
      /^SEARCH contacts USING INDEX sqlite_autoindex_contacts_2 \(org_id=\? AND name_key>\?\)/,
    ],
    [
      'open invoices of a page of contacts',
      openInvoicesOfContactsSql(3),
      /^SEARCH invoices USING INDEX invoices_contact \(org_id=\? AND contact_id=\? AND status=\?\)/,
    ],
    [
      'posted bills of a page of contacts',
      postedBillsOfContactsSql(3),
      /^SEARCH bills USING INDEX bills_contact \(org_id=\? AND contact_id=\? AND status=\?\)/,
    ],
  ])('%s: no scan, no per-row rescan, the contact index', (_name, sql, index) => {
    const plan = planOf(db(), sql);
    expect(rescans(plan), JSON.stringify(plan)).toEqual([]);
    expect(plan.map((r) => r.detail)).toContainEqual(expect.stringMatching(index));
  });

  it('bank journals and books.journals by account look a journal up on its account, not the whole account', () => {
    const plan = planOf(db(), `${JOURNAL_NET} AND j.date >= ? AND j.date <= ? GROUP BY j.id, j.date, j.memo, j.source_kind`);
    expect(rescans(plan), JSON.stringify(plan)).toEqual([]);
    expect(plan.map((r) => r.detail)).toContainEqual(
      expect.stringMatching(/journal_lines_account_journal \(org_id=\? AND account_code=\? AND journal_id=\?\)/),
    );
  });
});

const DOCUMENTS = 3_000;

/** The schema as it was before migration 11, in a database of its own. */
describe('ledger reads: SQLite plans before migration 11', () => {
  it('the joined balance walked every line of the account once per journal', async () => {
    const opened = await openTestDatabase('sqlite');
    const old = opened.db as SqliteDatabase;
    try {
      await old.migrate();
      await old.write(async (tx) => {
        await tx.run('DROP INDEX journal_lines_account_journal');
        await tx.run('DROP INDEX journal_lines_account_doc');
        await tx.run('CREATE INDEX journal_lines_account ON journal_lines (org_id, account_code)');
        return null;
      });
      expect(rescans(planOf(old, JOINED_BALANCE))).toEqual([
        expect.stringMatching(/^rescanned per outer row: SEARCH l USING INDEX journal_lines_account \(org_id=\? AND account_code=\?\)/),
      ]);
      expect(rescans(planOf(old, JOINED_TOTALS))).not.toEqual([]);
    } finally {
      await old.close();
      await opened.drop();
    }
  });
});

describe.each(engines)(`ledger reads over ${DOCUMENTS} seeded documents (%s)`, (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  const today = isoDate(new Date().toISOString());

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org('Read Cost');
    await inUnitOfWork(t.db, org.orgId, '', async (uow) => {
      const event = await uow.emit(testFixture, { entityId: 'seed', payload: { documents: DOCUMENTS } });
      await seedBooks(uow.tx, { orgId: org.orgId, ledgerId: event.ledgerId, documents: DOCUMENTS, today });
      return {};
    });
  }, 120_000);
  afterAll(async () => t.close());

  const read = async (method: string, params: Record<string, unknown>) => {
    const r = await t.post(org.keys.reader, method, params);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };

  /** Debit − credit per account over journals dated in [from, to], summed here from raw rows. */
  async function expectedNet(from: string, to: string): Promise<Map<string, number>> {
    const rows = await t.db.reader.all<{
      account_code: string;
      debit_cents: unknown;
      credit_cents: unknown;
      date: string;
      journal_id: string;
    }>('SELECT account_code, debit_cents, credit_cents, journal_id FROM journal_lines WHERE org_id = ?', [org.orgId]);
    const dates = new Map(
      (await t.db.reader.all<{ id: string; date: string }>('SELECT id, date FROM journals WHERE org_id = ?', [org.orgId])).map((j) => [
        j.id,
        j.date,
      ]),
    );
    const out = new Map<string, number>();
    for (const r of rows) {
      const date = dates.get(r.journal_id) ?? '';
      if (date < from || date > to) continue;
      out.set(r.account_code, (out.get(r.account_code) ?? 0) + Number(r.debit_cents) - Number(r.credit_cents));
    }
    return out;
  }

  it('trial balance and books.accounts equal the raw sums, as at today and a year ago', async () => {
    for (const asOf of [today, addDays(today, -365)]) {
      const net = await expectedNet('0000-01-01', asOf);
      const tb = await read('books.reports', { type: 'trial_balance', asOf });
      expect(new Map(tb.rows.map((r: any) => [r.code, r.debitCents - r.creditCents]))).toEqual(net);
      const accounts = await read('books.accounts', { asOf });
      for (const a of accounts.accounts) expect(a.debitCents - a.creditCents).toBe(net.get(a.code) ?? 0);
    }
  });

  it('P&L over a quarter, the balance sheet and both aged reports agree with the raw rows', async () => {
    const from = addDays(today, -200);
    const to = addDays(today, -110);
    const net = await expectedNet(from, to);
    const pl = await read('books.reports', { type: 'profit_and_loss', from, to });
    expect(pl.revenue.totalCents).toBe(-(net.get('4000') ?? 0));
    expect(pl.expenses.totalCents).toBe(net.get('6000') ?? 0);
    expect(pl.revenue.totalCents).toBeGreaterThan(0);
    const bs = await read('books.reports', { type: 'balance_sheet', asOf: today });
    expect(bs.balanced).toBe(true);
    const all = await expectedNet('0000-01-01', today);
    // Every page of an aged report: its items, and the totals every page carries.
    const aged = async (type: string) => {
      let items = 0;
      let cursor: string | null = null;
      let totalCents: number | undefined;
      do {
        const page: any = await read('books.reports', { type, asOf: today, limit: 200, ...(cursor ? { cursor } : {}) });
        items += page.parties.reduce((n: number, p: any) => n + p.items.length, 0);
        totalCents = page.totals.totalCents;
        cursor = page.nextCursor;
      } while (cursor !== null);
      return { items, totalCents };
    };
    // The seed pays every other run of four documents (three invoices and a bill each).
    expect(await aged('aged_receivables')).toEqual({ items: (DOCUMENTS * 3) / 8, totalCents: all.get('1100') });
    expect(await aged('aged_payables')).toEqual({ items: DOCUMENTS / 8, totalCents: -(all.get('2000') ?? 0) });
  });

  it('contacts.list balances, page by page, add up to the 1100 and 2000 control accounts', async () => {
    const all = await expectedNet('0000-01-01', today);
    let receivable = 0;
    let payable = 0;
    let open = 0;
    let contacts = 0;
    let cursor: string | null = null;
    do {
      const r = await t.get(org.keys.observer, `contacts.list?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      for (const c of r.body.contacts) {
        receivable += c.receivableCents;
        payable += c.payableCents;
        open += c.openInvoices + c.openBills;
      }
      contacts += r.body.contacts.length;
      cursor = r.body.nextCursor;
    } while (cursor !== null);
    expect(contacts).toBe(225);
    expect(receivable).toBe(all.get('1100'));
    expect(payable).toBe(-(all.get('2000') ?? 0));
    expect(open).toBe(DOCUMENTS / 2);
  });

  it('feedLinesList and a 200-line import answer with the ledger bank balance and suggestions', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => ({
      date: addDays(today, -(i % 60)),
      amountCents: 11_000 + (i % 97) * 1_100,
      description: `Deposit ${partyName(i * 7)} ${i}`,
    }));
    const r = await t.post(org.keys.agent, 'books.feedLines', { lines });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result.lineIds).toHaveLength(200);
    const list = await read('books.feedLinesList', { limit: 50 });
    expect(list.lines).toHaveLength(50);
    expect(list.summary.ledgerBalanceCents).toBe((await expectedNet('0000-01-01', '9999-12-31')).get('1000'));
    expect(list.lines.some((l: any) => l.suggestions.length > 0)).toBe(true);
  });

  it('rank looks up the targets a line can match and suggests exactly what scoring every target would', async () => {
    const targets = await candidates(t.db.reader, org.orgId, '1000', today, addDays(today, -90), today);
    expect(targets.length).toBeGreaterThan(DOCUMENTS / 4);
    for (let i = 0; i < 60; i += 1) {
      const amountCents = (i % 3 === 0 ? -1 : 1) * (11_000 + (i % 97) * 1_100);
      const line = {
        date: addDays(today, -(i % 40)),
        amountCents,
        remainingCents: Math.abs(amountCents),
        description: i % 5 === 0 ? `Transfer seed_${i * 4 + 1}` : `Deposit ${partyName(i * 7)} ${i}`,
      };
      const brute = targets
        .flatMap((x) => score(line, x) ?? [])
        .sort((a, b) => b.score - a.score || a.daysApart - b.daysApart || a.id.localeCompare(b.id))
        .slice(0, 3);
      expect(rank(line, targets)).toEqual(brute);
    }
  });
});
