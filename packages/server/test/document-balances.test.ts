import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIME_ZONE, localDate } from '../src/clock.js';
import { documentBalanceDrift, rebuildDocumentBalances } from '../src/domain/gl/document-balances.js';
import { documentBalances } from '../src/domain/gl/post.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill } from './payables-helpers.js';

/**
 * document_balances is kept by postJournal as lines are written; after a mix of every kind of
 * posting that names a document it must equal what the lines give, row for row.
 */
const today = () => localDate(new Date().toISOString(), DEFAULT_TIME_ZONE);

describe.each(engines)('document balances (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  const ok = async (method: string, params: unknown) => {
    const r = await t.post(org.keys.agent, method, params);
    expect(r.status, `${method} ${JSON.stringify(r.body)}`).toBe(200);
    return r.body.result;
  };
  const invoice = async (payeeName: string, totalCents: number) => {
    const d = await ok('books.invoiceDraft', { payeeName, description: 'Joinery', totalCents, dueDays: 14 });
    await ok('books.invoiceSend', { id: d.id });
    return d.id as string;
  };
  const rows = () =>
    t.db.reader.all<{ account_code: string; doc_id: string; debit_cents: number; credit_cents: number; balance_cents: number }>(
      'SELECT account_code, doc_id, debit_cents, credit_cents, balance_cents FROM document_balances WHERE org_id = ? ORDER BY account_code, doc_id',
      [org.orgId],
    );

  it('equals a rebuild from the lines after invoices, part payments, credit notes, bills, claims and reversals', async () => {
    const a = await invoice('Acme Joinery', 110_000);
    const b = await invoice('Harbour Catering', 55_000);
    const c = await invoice('Summit Roofing', 22_000);
    const p1 = await ok('books.invoiceRecordPayment', { id: a, amountCents: 30_000, reference: 'EFT 1' });
    await ok('books.invoiceRecordPayment', { id: a, amountCents: 80_000, reference: 'EFT 2' });
    await ok('books.invoicePaymentDishonour', { id: a, paymentId: p1.paymentId, reason: 'Insufficient funds' });
    await ok('books.invoiceCreditNote', { id: b, amountCents: 5_500, reason: 'short delivery' });
    await ok('books.invoiceVoid', { id: c, reason: 'raised twice' });
    const bill = await approvedBill(t, org, { payeeName: 'Granite Freight', description: 'Freight', totalCents: 33_000 });
    // Part of the bill paid by matching a bank line to it.
    const fed = await ok('books.feedLines', { lines: [{ date: today(), amountCents: -10_000, description: 'GRANITE FREIGHT' }] });
    await ok('books.matchAccept', { lineId: fed.lineIds[0], target: { kind: 'bill', id: bill.id } });
    const claim = await ok('books.expenseClaim', {
      claimant: 'Jo Citizen',
      description: 'Stationery',
      amountCents: 4_400,
      spentOn: today(),
      receiptRef: 'photo 1',
    });
    await ok('books.expenseApprove', { id: claim.id });

    const kept = await rows();
    expect(await documentBalanceDrift(t.db.reader, org.orgId)).toEqual([]);
    // A rebuild gives the same rows (and the drift check would see a difference: one is made here).
    await t.db.write(async (tx) => rebuildDocumentBalances(tx, org.orgId));
    expect(await rows()).toEqual(kept);
    const byDoc = new Map(kept.map((r) => [`${r.account_code}:${r.doc_id}`, Number(r.balance_cents)]));
    expect(byDoc.get(`1100:${a}`)).toBe(30_000); // 110 000 − 30 000 − 80 000 + 30 000 dishonoured
    expect(byDoc.get(`1100:${b}`)).toBe(49_500);
    expect(byDoc.get(`1100:${c}`)).toBe(0); // voided: a row at zero, as the lines group it
    expect(byDoc.get(`2000:${bill.id}`)).toBe(-23_000);
    expect(byDoc.get(`2500:${claim.id}`)).toBe(-4_400);
    const open = await documentBalances(t.db.reader, org.orgId, '1100', today());
    expect(open.get(a)).toBe(30_000);
    expect(open.has(c)).toBe(false);
    // As at yesterday nothing was posted yet (documents and payments are dated today).
    const yesterday = localDate(new Date(Date.now() - 86_400_000).toISOString(), DEFAULT_TIME_ZONE);
    expect([...(await documentBalances(t.db.reader, org.orgId, '1100', yesterday)).values()]).toEqual([]);

    await t.db.write(async (tx) => {
      await tx.run(
        'UPDATE document_balances SET debit_cents = debit_cents + 1, balance_cents = balance_cents + 1 WHERE org_id = ? AND doc_id = ?',
        [org.orgId, b],
      );
      await tx.run('DELETE FROM document_balances WHERE org_id = ? AND doc_id = ?', [org.orgId, bill.id]);
    });
    expect(await documentBalanceDrift(t.db.reader, org.orgId)).toEqual([
      { accountCode: '1100', docId: b, stored: 49_501, fromLines: 49_500 },
      { accountCode: '2000', docId: bill.id, stored: null, fromLines: -23_000 },
    ]);
    await t.db.write(async (tx) => rebuildDocumentBalances(tx, org.orgId));
    expect(await documentBalanceDrift(t.db.reader, org.orgId)).toEqual([]);
  });
});
