import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideApproval, setApprovalRecheckMs } from '../src/governance/approvals.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { heldAndRequested, sentInvoice } from './signature-helpers.js';

describe.each(engines)('approval.wait wakes on a decision, not on a poll (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    // With the safety-net re-read at 60 s, only a notification can end a wait early.
    setApprovalRecheckMs(60_000);
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => {
    setApprovalRecheckMs(2000);
    await t.close();
  });

  it('a decision made through another database connection wakes the waiter', async () => {
    const id = await sentInvoice(t, org);
    const { approvalId } = await heldAndRequested(t, org, 'books.invoiceChaseStep', { id, step: 2 });
    const started = Date.now();
    const waiting = t.get(org.keys.observer, `approval.wait?approvalId=${approvalId}&timeoutMs=30000`);
    await new Promise((r) => setTimeout(r, 200));
    // PostgreSQL: a second pool is another session, as another server process would be.
    const other = engine === 'postgres' ? t.another() : t.db;
    try {
      await decideApproval(other, {
        orgId: org.orgId,
        approvalId,
        user: { id: org.owner.userId, role: 'owner' },
        approve: true,
      });
    } finally {
      if (other !== t.db) await other.close();
    }
    const r = await waiting;
    expect(r.body).toMatchObject({ approvalId, status: 'approved' });
    // Well before the 30 s timeout and the 60 s re-read: it was the notification.
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('a wait with no decision returns pending when its timeout passes', async () => {
    const id = await sentInvoice(t, org);
    const { approvalId } = await heldAndRequested(t, org, 'books.invoiceChaseStep', { id, step: 2 });
    const r = await t.get(org.keys.observer, `approval.wait?approvalId=${approvalId}&timeoutMs=300`);
    expect(r.body).toEqual({ approvalId, status: 'pending' });
  });
});
