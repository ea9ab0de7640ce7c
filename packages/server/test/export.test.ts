/**
 * `finance-desk export` writes an organisation's journals, documents and reports
 * as CSV, through the same declared reads the API serves.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvCell, exportOrganisation, reportRows } from '../src/ops/export.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, runCliInProcess, startTestServer, type TestServer } from './harness.js';

/** A small RFC 4180 reader for the test (quoted cells, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i += 1;
    } else cell += c;
  }
  return rows;
}

const records = (file: string): Record<string, string>[] => {
  const [head, ...rows] = parseCsv(readFileSync(file, 'utf8'));
  return rows.map((r) => Object.fromEntries((head as string[]).map((h, i) => [h, r[i] ?? ''])));
};

describe('csv cells', () => {
  it('quotes what needs quoting and defuses spreadsheet formulas in text, not in numbers', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"\nthere')).toBe('"say ""hi""\nthere"');
    expect(csvCell('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(csvCell('+61 2 9999')).toBe("'+61 2 9999");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell(-500)).toBe('-500');
    expect(csvCell(null)).toBe('');
    expect(csvCell({ a: 1 })).toBe('"{""a"":1}"');
  });

  it('flattens a report into tagged rows', () => {
    const { columns, rows } = reportRows({ type: 'x', assets: { lines: [{ code: '1000', amountCents: 5 }], totalCents: 5 } });
    expect(columns).toEqual(['path', 'code', 'amountCents', 'value']);
    expect(rows).toEqual([
      { path: 'type', value: 'x' },
      { path: 'assets.lines', code: '1000', amountCents: 5 },
      { path: 'assets.totalCents', value: 5 },
    ]);
  });

  it("puts each figure of an item's nested object in its own dotted column; arrays stay one cell", () => {
    const { columns, rows } = reportRows({ employees: [{ name: 'A', earnings: { paidLeaveCents: 7 }, ids: ['x'] }] });
    expect(columns).toEqual(['path', 'name', 'earnings.paidLeaveCents', 'ids', 'value']);
    expect(rows).toEqual([{ path: 'employees', name: 'A', 'earnings.paidLeaveCents': 7, ids: ['x'] }]);
  });
});

describe.each(engines)('export on %s', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  let dir: string;
  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
    dir = mkdtempSync(join(tmpdir(), 'fd-export-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes journals that balance, every invoice and bill, and every report, with figures as the API reads them', async () => {
    const draft = await t.post(org.keys.agent, 'books.invoiceDraft', {
      payeeName: '=cmd|calc',
      payeeEmail: 'accounts@formula.example',
      description: 'Catering, "deluxe", for 40',
      totalCents: 110_000,
      dueDays: 14,
    });
    expect(draft.status).toBe(200);
    const invoiceId = draft.body.result.id as string;
    expect((await t.post(org.keys.agent, 'books.invoiceSend', { id: invoiceId })).status).toBe(200);
    // A quote (posts nothing): $550.00 incl. GST, GST 55000 / 11 = 5000.
    const quote = await t.post(org.keys.agent, 'books.quoteDraft', {
      payeeName: 'Quoted Pty Ltd',
      lines: [{ description: 'Fit-out', amountCents: 55_000 }],
    });
    expect(quote.status).toBe(200);
    const today = (await t.post(org.keys.reader, 'books.reports', { type: 'trial_balance' })).body.result.asOf as string;

    const out = join(dir, 'a');
    const report = await exportOrganisation(t.db, { orgId: org.orgId, orgSlug: org.slug, from: '2000-01-01', to: today, dir: out });
    expect(report.files.map((f) => f.file.slice(out.length + 1))).toEqual([
      'journals.csv',
      'invoices.csv',
      'quotes.csv',
      'bills.csv',
      'trial_balance.csv',
      'profit_and_loss.csv',
      'balance_sheet.csv',
      'aged_receivables.csv',
      'aged_payables.csv',
      'gst_summary.csv',
      'payroll_activity.csv',
      'leave_balances.csv',
      'budget_vs_actual.csv',
      'depreciation_schedule.csv',
      'cash_flow.csv',
      'account_transactions.csv',
    ]);

    const lines = records(join(out, 'journals.csv'));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    const sum = (k: string) => lines.reduce((n, l) => n + Number(l[k]), 0);
    expect(sum('debitCents')).toBe(sum('creditCents'));
    expect(lines.every((l) => l['journal.source'] !== '')).toBe(true);
    expect(lines.some((l) => l.accountCode === '1100' && l.debitCents === '110000')).toBe(true);

    const invoices = records(join(out, 'invoices.csv'));
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ id: invoiceId, payeeName: "'=cmd|calc", status: 'sent', outstandingCents: '110000' });
    expect(records(join(out, 'quotes.csv'))).toEqual([
      expect.objectContaining({ id: quote.body.result.id, number: 'QU-0001', status: 'draft', totalCents: '55000', gstCents: '5000' }),
    ]);
    expect(records(join(out, 'bills.csv'))).toEqual([]);

    const api = (await t.post(org.keys.reader, 'books.reports', { type: 'trial_balance', asOf: today })).body.result;
    const tb = records(join(out, 'trial_balance.csv'));
    const tbRows = tb.filter((r) => r.path === 'rows');
    expect(tbRows.map((r) => [r.code, Number(r.debitCents), Number(r.creditCents)])).toEqual(
      api.rows.map((r: { code: string; debitCents: number; creditCents: number }) => [r.code, r.debitCents, r.creditCents]),
    );
    expect(records(join(out, 'balance_sheet.csv')).find((r) => r.path === 'balanced')?.value).toBe('true');
    // The cash flow: a row per cash account, per moved line of each section, and each figure.
    const flows = records(join(out, 'cash_flow.csv'));
    expect(flows.filter((r) => r.path === 'cashAccounts').map((r) => r.code)).toEqual(['1000', '1300']);
    expect(flows.find((r) => r.path === 'reconciles')?.value).toBe('true');

    // The general ledger: per account an opening row, its lines, a closing row; the closing
    // balances are the trial balance's (debit-normal accounts positive here).
    const ledger = records(join(out, 'account_transactions.csv'));
    const closing = ledger.filter((r) => r.row === 'closing');
    expect(closing.map((r) => r.accountCode)).toEqual(api.rows.map((r: { code: string }) => r.code));
    expect(ledger.filter((r) => r.row === 'line').length).toBe(lines.length);
    const bank = closing.find((r) => r.accountCode === '1100');
    expect(Number(bank?.balanceCents)).toBe(api.rows.find((r: { code: string }) => r.code === '1100').debitCents);
  });

  it('refuses a directory that is not empty', async () => {
    await expect(
      exportOrganisation(t.db, { orgId: org.orgId, orgSlug: org.slug, from: '2000-01-01', to: '2000-01-02', dir: join(dir, 'a') }),
    ).rejects.toThrow(/--dir: .* is not empty/);
  });
});

describe('finance-desk export arguments', () => {
  it('names the bad flag', async () => {
    const db = `sqlite:${join(mkdtempSync(join(tmpdir(), 'fd-export-cli-')), 'fd.db')}`;
    const bad = await runCliInProcess(db, 'export', '--org', 'x', '--from', '2026-13-01', '--to', '2026-12-31');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--from: must be a date YYYY-MM-DD, got "2026-13-01"');
    const order = await runCliInProcess(db, 'export', '--org', 'x', '--from', '2026-12-01', '--to', '2026-11-30');
    expect(order.code).toBe(2);
    expect(order.err).toContain('--to: must be on or after --from (2026-12-01)');
    const none = await runCliInProcess(db, 'export', '--org', 'nobody', '--from', '2026-11-01', '--to', '2026-11-30');
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/organisation.*nobody/);
  });
});
