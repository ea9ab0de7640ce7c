import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountBalanceCents } from '../src/domain/gl/post.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

/**
 * The day-one walkthrough, as a newcomer would do it: take on a real business at the end of
 * August 2026 — opening balances and the debtors and creditors still open — enter September's
 * invoices with their own numbers and dates, import September's CommBank statement
 * (a real CommBank NetBank export, fixtures/bank/cba_netbank.csv, byte-exact) and reconcile it line by line until the
 * ledger's bank account equals the statement's closing balance and nothing is unreconciled.
 * The clock stands on 2 October 2026 (the injectable clock): nothing is back-dated by rewriting rows.
 */
const statement = readFileSync(new URL('./fixtures/bank/cba_netbank.csv', import.meta.url), 'utf8');
const OPENING_BANK = 1_842_055; // 20 895.55 after the first line (01/09 +2 475.00)
const CLOSING_BANK = 1_872_794; // the last balance in the file (30/09, after interest)

describe.each(engines)('day one: a real month, reconciled to the statement (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  const clock = '2026-10-01T23:00:00.000Z'; // 2 October, 09:00 in Sydney

  beforeAll(async () => {
    t = await startTestServer(engine, { now: () => clock });
    org = await t.org('Harbourside Joinery');
  });
  afterAll(async () => t.close());

  const post = (method: string, params: unknown, headers: Record<string, string> = {}) => t.post(org.keys.agent, method, params, headers);
  const ok = (r: { status: number; body: any }) => {
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };

  /** Match a line to a document; above the materiality floor a human approves first (the signature law). */
  async function match(lineId: string, target: { kind: string; id: string }, amountCents?: number) {
    const params = { lineId, target, ...(amountCents !== undefined ? { amountCents } : {}) };
    const first = ok(await post('books.matchAccept', params));
    if (first.status !== 'held') return first;
    const { approvalId } = await heldAndRequested(t, org, 'books.matchHoldResolve', params);
    await decide(t, org, approvalId, true);
    return ok(await post('books.matchHoldResolve', { ...params, approvalId }, { 'x-idempotency-key': freshKey() }));
  }

  it('opening balances, the month invoices and bills, the CommBank CSV, every line reconciled: the ledger equals the statement', async () => {
    // 1. Opening balances as at 31 August 2026 (the conversion date).
    const opening = ok(
      await post('books.openingBalances', {
        conversionDate: '2026-08-31',
        accounts: [
          { accountCode: '1000', debitCents: OPENING_BANK },
          { accountCode: '3000', creditCents: OPENING_BANK + 247_500 + 583_000 + 220_000 - 398_000 - 128_775 },
        ],
        invoices: [
          {
            number: 'INV-1042',
            issueDate: '2026-08-04',
            dueDate: '2026-09-03',
            payeeName: 'Coastal Cafe Group',
            description: 'Counter joinery',
            totalCents: 247_500,
            outstandingCents: 247_500,
          },
          {
            number: 'INV-1043',
            issueDate: '2026-08-11',
            dueDate: '2026-09-10',
            payeeName: 'M & J Renovations',
            description: 'Kitchen cabinetry',
            totalCents: 583_000,
            outstandingCents: 583_000,
          },
          {
            number: 'INV-1044',
            issueDate: '2026-08-20',
            dueDate: '2026-09-19',
            payeeName: 'Tidewater Property',
            description: 'Strata repairs',
            totalCents: 220_000,
            outstandingCents: 220_000,
          },
        ],
        bills: [
          {
            payeeName: 'Coastal Timber Supplies',
            reference: 'CTS-88412',
            issueDate: '2026-08-14',
            dueDate: '2026-09-13',
            description: 'Hardwood',
            totalCents: 398_000,
            outstandingCents: 398_000,
          },
          {
            payeeName: 'Northside Hardware',
            reference: 'NH-2207',
            issueDate: '2026-08-25',
            dueDate: '2026-09-24',
            description: 'Hinges and fixings',
            totalCents: 128_775,
            outstandingCents: 128_775,
          },
        ],
      }),
    );
    expect(opening.conversionDate).toBe('2026-08-31');
    expect(await accountBalanceCents(t.db.reader, org.orgId, '1000')).toBe(OPENING_BANK);

    // Aged receivables are right from day one: original dates and numbers.
    // Carried in by one call, they share a creation instant: ordered here by number.
    const invoices = (ok(await post('books.invoices', {})).invoices as any[]).sort((a, b) => a.number.localeCompare(b.number));
    expect(invoices.map((i) => i.number)).toEqual(['INV-1042', 'INV-1043', 'INV-1044']);
    expect(invoices.map((i) => i.issuedOn)).toEqual(['2026-08-04', '2026-08-11', '2026-08-20']);

    // 2. September's invoices, with their own numbers and dates.
    const byNumber = new Map<string, string>(invoices.map((i) => [i.number, i.id]));
    for (const [number, issueDate, totalCents] of [
      ['INV-1045', '2026-09-01', 165_000],
      ['INV-1046', '2026-09-02', 154_000],
    ] as const) {
      const d = ok(
        await post('books.invoiceDraft', {
          number,
          issueDate,
          payeeName: 'Baker St Dental',
          description: 'Surgery fit-out',
          totalCents,
          dueDays: 14,
        }),
      );
      expect(d.number).toBe(number);
      ok(await post('books.invoiceSend', { id: d.id }));
      byNumber.set(number, d.id);
    }
    const bills = ok(await post('books.bills', {})).bills as any[];
    const billByRef = new Map<string, string>(bills.map((b) => [b.reference, b.id]));
    // The carried-in bills are held as billCapture would hold them (new payees): a human approves
    // each, with its bank details, before anything pays it. Approval posts nothing again.
    expect(bills.map((b) => [b.status, b.heldReason])).toEqual([
      ['held', 'NEW_PAYEE'],
      ['held', 'NEW_PAYEE'],
    ]);
    for (const b of bills) {
      const first = await post('books.billApprove', { id: b.id });
      expect(first.status).toBe(423);
      const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(first.body.error.message)?.[1];
      const req = ok(
        await post('approval.request', {
          actionClass: 'books.bill_approve',
          payloadHash,
          subject: { kind: 'books.signature', subjectId: b.id },
        }),
      );
      await decide(t, org, req.approvalId, true);
      expect(
        ok(await post('books.billApprove', { id: b.id, approvalId: req.approvalId }, { 'x-idempotency-key': freshKey() })).status,
      ).toBe('approved');
    }

    // 3. The statement, as the bank wrote it: the export duplicate is skipped, not imported.
    const imported = ok(await post('books.feedLines', { file: { format: 'csv', bank: 'cba', content: statement } }));
    expect(imported.received).toBe(21);
    expect(imported.imported).toBe(20);
    expect(imported.skipped).toEqual([expect.objectContaining({ reason: 'export_duplicate' })]);

    const lines = ok(await post('books.feedLinesList', { limit: 200 })).lines as any[];
    const line = (fragment: string, amountCents: number) => {
      const found = lines.find((l) => l.description.includes(fragment) && l.amountCents === amountCents);
      expect(found, `${fragment} ${amountCents}`).toBeDefined();
      return found.id as string;
    };
    // Receipts quote invoice numbers: the suggestion names the invoice by its number.
    const coastal = lines.find((l) => l.description.includes('INV-1042'));
    expect(coastal.suggestions[0]).toMatchObject({ kind: 'invoice', id: byNumber.get('INV-1042') });
    expect(coastal.suggestions[0].reasons).toContain('reference');

    // 4. Receipts to invoices (INV-1045 and INV-1046 from one payment; INV-1044 paid in part).
    await match(line('INV-1042', 247_500), { kind: 'invoice', id: byNumber.get('INV-1042')! });
    await match(line('INV-1043', 583_000), { kind: 'invoice', id: byNumber.get('INV-1043')! });
    await match(line('INV-1044', 100_000), { kind: 'invoice', id: byNumber.get('INV-1044')! });
    const dental = line('INV-1045 INV-1046', 319_000);
    await match(dental, { kind: 'invoice', id: byNumber.get('INV-1045')! }, 165_000);
    await match(dental, { kind: 'invoice', id: byNumber.get('INV-1046')! }, 154_000);
    // Supplier payments to the carried-in bills.
    await match(line('CTS-88412', -398_000), { kind: 'bill', id: billByRef.get('CTS-88412')! });
    await match(line('NH-2207', -128_775), { kind: 'bill', id: billByRef.get('NH-2207')! });

    // 5. Everything else coded to accounts.
    const recode = async (lineId: string, accountCode: string, taxCode?: string) =>
      ok(await post('books.lineRecode', { lineId, accountCode, ...(taxCode ? { taxCode } : {}) }));
    await recode(line('Credit Interest', 137), '4100');
    await recode(line('Account Fee', -1_000), '6300');
    await recode(line('Merchant Fee', -4_822), '6300');
    await recode(line('ADOBE', -8_799), '6800', 'GST');
    await recode(line('Business Saver', 500_000), '3000'); // the owner's savings in, as capital
    for (const l of lines.filter((x) => x.description.startsWith('PAYROLL BATCH'))) await recode(l.id, '6100');
    const amazon = lines.filter((x) => x.description.includes('AMAZON'));
    for (const l of amazon) await recode(l.id, '6600', 'GST');
    await recode(line('OFFICEWORKS 0612 BROOKVALE NS AUS Value Date: 09/09', -6_490), '6600', 'GST');
    await recode(line('OFFICEWORKS 0612 BROOKVALE NS AUS Value Date: 30/08', -8_745), '6600', 'GST');
    await recode(line('BUNNINGS', -34_218), '5000', 'GST');
    await recode(line('TELSTRA', -21_989), '6800', 'GST');
    await recode(line('ALLIANZ', -41_260), '6900', 'GST');

    // 6. Reconciled: the ledger's bank account is the statement's closing balance.
    const after = ok(await post('books.feedLinesList', { status: 'unreconciled' }));
    expect(after.lines).toEqual([]);
    expect(after.summary).toMatchObject({
      accountCode: '1000',
      ledgerBalanceCents: CLOSING_BANK,
      unreconciledLines: 0,
      unreconciledCents: 0,
    });
    // The documents settled, and the one part-paid invoice still owes the rest.
    const open = ok(await post('books.invoices', { status: 'part_paid' })).invoices as any[];
    expect(open.map((i) => [i.number, i.outstandingCents])).toEqual([['INV-1044', 120_000]]);
  });
});
