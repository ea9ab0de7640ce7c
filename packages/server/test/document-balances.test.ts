import { reconciliation } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIME_ZONE, localDate } from '../src/clock.js';
import { documentBalanceDrift, rebuildDocumentBalances } from '../src/domain/gl/document-balances.js';
import { migration as balancesMigration } from '../src/domain/gl/migration-document-balances.js';
import { documentBalances } from '../src/domain/gl/post.js';
import {
  DOCUMENTS_PER_WORD,
  documentWordsCheck,
  migration as wordsMigration,
  partyKeyMigration,
  rebuildDocumentWords,
} from '../src/domain/reconciliation/document-words.js';
import { backfillSteps } from '../src/storage/migration-types.js';
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
    // The words bank lines are looked up by: one set per posted document, open as its balance says
    // (the invoice reopened by the dishonour, the voided one closed, the part-paid bill open).
    const words = await documentWordsCheck(t.db.reader, org.orgId);
    expect(words.kept).toEqual(words.expected);
    expect(words.kept).toContainEqual(expect.stringMatching(new RegExp(`^ACME invoice ${a} in \\S+ 1$`)));
    expect(words.kept).toContainEqual(expect.stringMatching(new RegExp(`^SUMMIT invoice ${c} in \\S+ 0$`)));
    expect(words.kept).toContainEqual(expect.stringMatching(new RegExp(`^GRANITE bill ${bill.id} out \\S+ 1$`)));
    expect(words.kept).toContainEqual(expect.stringMatching(new RegExp(`^CITIZEN claim ${claim.id} out ${today()} 1$`)));
    // What the migrations' backfills write from the same books is the same (run again here over
    // this organisation's rows, on this engine).
    const keptWords = words.kept;
    await t.db.write(async (tx) => {
      await tx.run('DELETE FROM document_words WHERE org_id = ?', [org.orgId]);
      await tx.run('DELETE FROM document_balances WHERE org_id = ?', [org.orgId]);
      const rebuild = balancesMigration.statements.at(-1) ?? '';
      await tx.run(rebuild.replace('WHERE doc_id IS NOT NULL', 'WHERE doc_id IS NOT NULL AND org_id = ?'), [org.orgId]);
      for (const step of [...backfillSteps(wordsMigration), ...backfillSteps(partyKeyMigration)]) {
        for (const row of await tx.all<Record<string, unknown>>(step.select)) {
          if (row.org_id === org.orgId) await tx.run(step.update, [...step.params(row)]);
        }
      }
    });
    expect(await rows()).toEqual(kept);
    expect((await documentWordsCheck(t.db.reader, org.orgId)).kept).toEqual(keptWords);
    await t.db.write(async (tx) => rebuildDocumentWords(tx, org.orgId));
    expect((await documentWordsCheck(t.db.reader, org.orgId)).kept).toEqual(keptWords);
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

  it('a payee with more open invoices than are looked up per word still gets the one its amount names, and its nearest by words', async () => {
    const other = await t.org();
    const post = async (method: string, params: unknown) => {
      const r = await t.post(other.keys.agent, method, params);
      expect(r.status, `${method} ${JSON.stringify(r.body)}`).toBe(200);
      return r.body.result;
    };
    // More invoices to one payee than the per-word bound, due further and further out; the
    // amount of the last (furthest due) is what the line pays.
    const ids: string[] = [];
    for (let i = 0; i < DOCUMENTS_PER_WORD + 5; i += 1) {
      const d = await post('books.invoiceDraft', {
        payeeName: 'Kestrel Glazing',
        description: 'Glass',
        totalCents: 10_000 + i,
        dueDays: i,
      });
      await post('books.invoiceSend', { id: d.id });
      ids.push(d.id as string);
    }
    const far = ids.at(-1) ?? '';
    const line = { date: today(), amountCents: 10_000 + DOCUMENTS_PER_WORD + 4, description: 'KESTREL GLAZING DEPOSIT' };
    const fed = await post('books.feedLines', { lines: [line, { date: today(), amountCents: 99_999, description: 'KESTREL GLAZING' }] });
    const byLine = new Map<string, any[]>(fed.suggestions.map((s: any) => [s.lineId, s.candidates]));
    const [first] = byLine.get(fed.lineIds[0]) ?? [];
    expect(first).toMatchObject({ kind: 'invoice', id: far, reasons: ['amount', 'payee'], score: 75 });
    // No amount: the payee's nearest by due date (due today first), as scoring them all would rank.
    expect((byLine.get(fed.lineIds[1]) ?? []).map((s) => s.id)).toEqual(ids.slice(0, reconciliation.feedLimits.suggestionsPerLineMax));
    const listed = await post('books.feedLinesList', { limit: 10 });
    expect(listed.lines.map((l: any) => l.suggestions[0]?.id)).toEqual([far, ids[0]]);
  });
});
