import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIME_ZONE, localDate } from '../src/clock.js';
import {
  bankJournalWordsCheck,
  migration as journalWordsMigration,
  rebuildBankJournalWords,
} from '../src/domain/reconciliation/bank-journal-words.js';
import { backfillSteps } from '../src/storage/migration-types.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';

/**
 * bank_journal_words is kept by postJournal and by every match and unmatch on a journal; after
 * each step it must equal what the journals and matches give, and the bank line suggestions read
 * from it must still find the postings a line can be matched to.
 */
const today = () => localDate(new Date().toISOString(), DEFAULT_TIME_ZONE);

describe.each(engines)('bank journal words (%s)', (engine) => {
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
  const paidInvoice = async (payeeName: string, totalCents: number, paidCents = totalCents) => {
    const d = await ok('books.invoiceDraft', { payeeName, description: 'Joinery', totalCents, dueDays: 14 });
    await ok('books.invoiceSend', { id: d.id });
    const paid = await ok('books.invoiceRecordPayment', { id: d.id, amountCents: paidCents });
    return { id: d.id as string, paymentId: paid.paymentId as string, journalId: paid.journalId as string };
  };
  const line = async (amountCents: number, description: string) => {
    const r = await ok('books.feedLines', { lines: [{ date: today(), amountCents, description }] });
    const found = (r.suggestions as { lineId: string; candidates: { kind: string; id: string; outstandingCents: number }[] }[])[0];
    return { lineId: r.lineIds[0] as string, candidates: found?.candidates ?? [] };
  };
  const journalsSuggested = (l: { candidates: { kind: string; id: string; outstandingCents: number }[] }) =>
    l.candidates.filter((c) => c.kind === 'journal').map((c) => [c.id, c.outstandingCents]);
  const check = async () => {
    const c = await bankJournalWordsCheck(t.db.reader, org.orgId);
    expect(c.kept).toEqual(c.expected);
    return c.kept;
  };
  const stateOf = (kept: string[], journalId: string) =>
    [...new Set(kept.filter((r) => r.split(' ')[2] === journalId).map((r) => r.split(' ').at(-1)))].join(',');

  it('equals a rebuild after payments, matches in full and in part, unmatching and a dishonoured payment', async () => {
    const a = await paidInvoice('Tidewater Property', 20_900);
    const b = await paidInvoice('Harbour Catering', 50_000);
    const c = await paidInvoice('Summit Roofing', 7_700);
    let kept = await check();
    // A row for the amount and each lookup word of each payment, on the bank account only.
    expect(kept).toContainEqual(`1000 =20900 ${a.journalId} in ${today()} 20900 1`);
    expect(kept.every((r) => r.startsWith('1000 '))).toBe(true);

    // A line of the payment's amount is offered it; matched in full, it leaves the lookup.
    const l1 = await line(20_900, 'DEPOSIT TIDEWATER');
    expect(journalsSuggested(l1)).toEqual([[a.journalId, 20_900]]);
    await ok('books.matchAccept', { lineId: l1.lineId, target: { kind: 'journal', id: a.journalId } });
    kept = await check();
    expect(stateOf(kept, a.journalId)).toBe('0');
    expect(journalsSuggested(await line(20_900, 'ANOTHER DEPOSIT'))).toEqual([]);

    // Matched in part, it is still offered for what is left, which is not its amount.
    const l2 = await line(30_000, 'HARBOUR CATERING PART');
    await ok('books.matchAccept', { lineId: l2.lineId, target: { kind: 'journal', id: b.journalId } });
    kept = await check();
    expect(stateOf(kept, b.journalId)).toBe('2');
    expect(journalsSuggested(await line(20_000, 'REST OF IT'))).toEqual([[b.journalId, 20_000]]);

    // Unmatched, the first payment is back, offered for its amount.
    await ok('books.lineUnmatch', { lineId: l1.lineId, reason: 'wrong line' });
    kept = await check();
    expect(stateOf(kept, a.journalId)).toBe('1');
    expect(journalsSuggested(await line(20_900, 'TIDEWATER AGAIN'))).toContainEqual([a.journalId, 20_900]);

    // A dishonoured payment posts its reversal: money out of the bank, a posting of its own.
    await ok('books.invoicePaymentDishonour', { id: c.id, paymentId: c.paymentId, reason: 'Insufficient funds' });
    kept = await check();
    expect(kept.filter((r) => r.startsWith('1000 =7700 ') && r.includes(' out '))).toHaveLength(1);

    // What the migration's backfill writes from the same books is the same, and so is a rebuild.
    await t.db.write(async (tx) => {
      await tx.run('DELETE FROM bank_journal_words WHERE org_id = ?', [org.orgId]);
      for (const step of backfillSteps(journalWordsMigration)) {
        for (const row of await tx.all<Record<string, unknown>>(step.select)) {
          if (row.org_id === org.orgId) await tx.run(step.update, [...step.params(row)]);
        }
      }
    });
    expect(await check()).toEqual(kept);
    await t.db.write(async (tx) => rebuildBankJournalWords(tx, org.orgId));
    expect(await check()).toEqual(kept);
  });
});
