import { expect } from 'vitest';
import { newJournalId, postJournal, type PostingLine } from '../src/domain/gl/post.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { inUnitOfWork } from '../src/write-path.js';
import type { TestServer } from './harness.js';
import { testFixture } from './test-events.js';

/**
 * Post one journal through a unit of work, as an act would: the journal, then its one event
 * (which binds the journal's lines; the journal records the event's ledgerId). For report tests that need postings on chosen
 * dates (methods post today).
 */
export async function postEntry(
  t: TestServer,
  org: CreatedOrg,
  date: string,
  memo: string,
  lines: readonly PostingLine[],
): Promise<string> {
  return (
    await inUnitOfWork(t.db, org.orgId, '', async (uow) => {
      const journalId = newJournalId();
      await postJournal(uow, { id: journalId, date, memo, source: { kind: 'test', id: journalId }, lines });
      await uow.emit(testFixture, { entityId: journalId, payload: { journalId, date, memo } });
      return { journalId };
    })
  ).journalId;
}

/** A GST-inclusive sale paid into the bank: Dr 1000 / Cr revenue (tagged) / Cr 2100. */
export function saleLines(amountCents: number, gstCents: number, taxCode: string, revenue = '4000'): PostingLine[] {
  return [
    { account: '1000', debitCents: amountCents },
    {
      account: revenue,
      creditCents: amountCents - gstCents,
      taxCode: taxCode as PostingLine['taxCode'],
      taxBaseCents: amountCents,
      gstCents,
    },
    { account: '2100', creditCents: gstCents },
  ];
}

/** A GST-inclusive purchase paid from the bank: Dr expense or asset (tagged) / Dr 1200 / Cr 1000. */
export function purchaseLines(amountCents: number, gstCents: number, taxCode: string, account: string): PostingLine[] {
  return [
    { account, debitCents: amountCents - gstCents, taxCode: taxCode as PostingLine['taxCode'], taxBaseCents: amountCents, gstCents },
    { account: '1200', debitCents: gstCents },
    { account: '1000', creditCents: amountCents },
  ];
}

/** POST books.reports with the reader key (the read scope is enough) and expect success. */
export async function report(t: TestServer, org: CreatedOrg, params: Record<string, unknown>) {
  const r = await t.post(org.keys.reader, 'books.reports', params);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.result;
}
