import { expect } from 'vitest';
import { addDays, DEFAULT_TIME_ZONE, localDate } from '../src/clock.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import type { TestServer } from './harness.js';
import { decide, freshKey } from './signature-helpers.js';

// The organisation's today: test organisations keep the default time zone (clock.ts).
export const today = () => localDate(new Date().toISOString(), DEFAULT_TIME_ZONE);
export const inDays = (n: number) => addDays(today(), n);

/** The funding account of the payment-run tests (FORMAT.md's example remitter). */
export const FUNDING = {
  bsb: '034-702',
  accountNumber: '458921',
  bankCode: 'WBC',
  userName: 'Harbourside Joinery',
  apcaUserId: '512734',
  remitterName: 'Harbourside Join',
};

export const bank = (bsb: string, accountNumber: string, payeeAccountName: string, payeeReference?: string) => ({
  payeeBsb: bsb,
  payeeAccountNumber: accountNumber,
  payeeAccountName,
  ...(payeeReference ? { payeeReference } : {}),
});

/** Capture a bill and approve it, through a human proof when it is held (new payee, above the floor, changed bank details). */
export async function approvedBill(t: TestServer, o: CreatedOrg, params: Record<string, unknown>) {
  const cap = await t.post(o.keys.agent, 'books.billCapture', { dueDays: 30, ...params });
  expect(cap.status, JSON.stringify(cap.body)).toBe(200);
  const id = cap.body.result.id as string;
  const first = await t.post(o.keys.agent, 'books.billApprove', { id });
  if (first.status === 200) return first.body.result;
  expect(first.status).toBe(423);
  const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(first.body.error.message)?.[1];
  const req = await t.post(o.keys.agent, 'approval.request', {
    actionClass: 'books.bill_approve',
    payloadHash,
    subject: { kind: 'books.signature', subjectId: id },
  });
  await decide(t, o, req.body.result.approvalId, true);
  const done = await t.post(
    o.keys.agent,
    'books.billApprove',
    { id, approvalId: req.body.result.approvalId },
    { 'x-idempotency-key': freshKey() },
  );
  expect(done.status).toBe(200);
  return done.body.result;
}

export interface LineRow {
  account_code: string;
  debit_cents: number;
  credit_cents: number;
  tax_code: string | null;
  tax_base_cents: number;
  gst_cents: number;
  doc_id: string | null;
}

export async function journalLines(t: TestServer, orgId: string, journalId: string): Promise<LineRow[]> {
  const rows = await t.db.reader.all<LineRow>(
    `SELECT account_code, debit_cents, credit_cents, tax_code, tax_base_cents, gst_cents, doc_id FROM journal_lines
     WHERE org_id = ? AND journal_id = ? ORDER BY line_no`,
    [orgId, journalId],
  );
  return rows.map((r) => ({
    ...r,
    debit_cents: Number(r.debit_cents),
    credit_cents: Number(r.credit_cents),
    tax_base_cents: Number(r.tax_base_cents),
    gst_cents: Number(r.gst_cents),
  }));
}

export async function journalsOf(t: TestServer, orgId: string, sourceId: string) {
  return t.db.reader.all<{ id: string; date: string; source_kind: string; ledger_id: string }>(
    'SELECT id, date, source_kind, ledger_id FROM journals WHERE org_id = ? AND source_id = ? ORDER BY created_at, id',
    [orgId, sourceId],
  );
}

export async function eventsOf(t: TestServer, o: CreatedOrg) {
  return (await t.get(o.keys.observer, 'events?limit=500')).body.events as any[];
}
