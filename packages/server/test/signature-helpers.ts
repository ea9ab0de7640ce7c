import { expect } from 'vitest';
import { decideApproval } from '../src/governance/approvals.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import type { TestServer } from './harness.js';

let n = 0;
export const freshKey = () => `k-${process.pid}-${Date.now()}-${(n += 1)}`;

/** A sent invoice ready to chase, with step 1 done when `chased`. */
export async function sentInvoice(t: TestServer, org: CreatedOrg, chased = true, totalCents = 110_000) {
  const draft = await t.post(org.keys.agent, 'books.invoiceDraft', {
    payeeName: 'Harbour Cafe',
    payeeEmail: 'accounts@harbour-cafe.example',
    description: 'October catering',
    totalCents,
    dueDays: 14,
  });
  const id = draft.body.result.id as string;
  expect((await t.post(org.keys.agent, 'books.invoiceSend', { id })).status).toBe(200);
  if (chased) expect((await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 1, early: true })).body.ok).toBe(true);
  return id;
}

/** Hold → approval.request; returns the hold frame and the pending approval. */
export async function heldAndRequested(t: TestServer, org: CreatedOrg, method: string, params: Record<string, unknown>) {
  const held = await t.post(org.keys.agent, method, params);
  expect(held.status).toBe(200);
  expect(held.body.result.status).toBe('approval_required');
  const a = held.body.result.approval;
  const req = await t.post(org.keys.agent, 'approval.request', {
    actionClass: a.actionClass,
    payloadHash: a.payloadHash,
    subject: { kind: 'books.signature', subjectId: a.subject.subjectId, summary: 'agent text is ignored' },
  });
  expect(req.status).toBe(200);
  return { hold: held.body.result, approvalId: req.body.result.approvalId as string, request: req.body.result };
}

export async function decide(t: TestServer, org: CreatedOrg, approvalId: string, approve: boolean, reason?: string) {
  return decideApproval(t.db, {
    orgId: org.orgId,
    approvalId,
    user: { id: org.owner.userId, role: 'owner' },
    approve,
    reason: reason ?? null,
  });
}
