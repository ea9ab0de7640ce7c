import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPolicy } from '../src/governance/policy-admin.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { decide, freshKey, heldAndRequested, sentInvoice } from './signature-helpers.js';

describe.each(engines)('the signature law (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  const events = async (o: CreatedOrg = org) => (await t.get(o.keys.observer, 'events?limit=500')).body.events as any[];

  it('full loop with approvalId: hold → request → wait → decide → retry → done', async () => {
    const id = await sentInvoice(t, org);
    const { hold, approvalId, request } = await heldAndRequested(t, org, 'books.invoiceChaseStep', { id, step: 2 });
    expect(hold).toMatchObject({
      status: 'approval_required',
      subjectId: id,
      approval: {
        actionClass: 'books.invoice_chase_step',
        payloadHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        subject: { kind: 'books.signature', subjectId: id, summary: expect.stringContaining('Harbour Cafe') },
        expiresInMs: 86_400_000,
      },
    });
    expect(hold.message).toMatch(/approval\.request/);
    expect(request).toMatchObject({ status: 'pending', summary: hold.approval.subject.summary });
    const heldEvent = (await events()).find((e) => e.kind === 'books.signature.hold' && e.entity_id === id);
    expect(heldEvent).toMatchObject({ family: 'books', payload: { payloadHash: hold.approval.payloadHash } });

    // Pending: a retry is refused and nothing executes.
    const early = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2, approvalId });
    expect(early.status).toBe(423);
    expect(early.body.error.code).toBe('GOVERNANCE_NOT_READY');

    const waiting = t.get(org.keys.observer, `approval.wait?approvalId=${approvalId}&timeoutMs=10000`);
    await new Promise((r) => setTimeout(r, 150));
    await decide(t, org, approvalId, true);
    const woke = await waiting;
    expect(woke.body).toMatchObject({ approvalId, status: 'approved', decidedBy: org.owner.userId });
    expect(woke.body.signatureToken).toMatch(/^fdt_/);

    const done = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2, approvalId }, { 'x-idempotency-key': freshKey() });
    expect(done.status).toBe(200);
    expect(done.body.result).toMatchObject({ id, step: 2, ledgerId: expect.any(String) });
    const chase = (await events()).at(-1);
    expect(chase).toMatchObject({ kind: 'books.invoice.chase', entity_id: id, payload: { step: 2, approvalId } });
    expect(chase.row_hash.startsWith(done.body.result.ledgerId)).toBe(true);
  });

  it('full loop with signatureToken', async () => {
    const id = await sentInvoice(t, org);
    const { approvalId } = await heldAndRequested(t, org, 'books.invoiceChaseStep', { id, step: 2 });
    const decided = await decide(t, org, approvalId, true);
    const token = decided.signatureToken ?? '';
    const done = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2, signatureToken: token });
    expect(done.body.result).toMatchObject({ id, step: 2 });
    // Both forms are one proof: the approvalId is now spent too.
    const again = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2, approvalId });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/already used/);
  });

  describe('every refusal of the signature law', () => {
    let id: string;
    let approvalId: string;
    let token: string;
    beforeAll(async () => {
      id = await sentInvoice(t, org);
      ({ approvalId } = await heldAndRequested(t, org, 'books.invoiceChaseStep', { id, step: 2 }));
      token = (await decide(t, org, approvalId, true)).signatureToken ?? '';
    });

    it('unknown approvalId → NOT_FOUND', async () => {
      const r = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2, approvalId: 'apr_unknown' });
      expect(r.status).toBe(404);
    });

    it('another organisation’s proof → NOT_FOUND (existence does not leak)', async () => {
      const other = await t.org();
      const otherId = await sentInvoice(t, other);
      for (const proof of [{ approvalId }, { signatureToken: token }]) {
        const r = await t.post(other.keys.agent, 'books.invoiceChaseStep', { id: otherId, step: 2, ...proof });
        expect(r.status).toBe(404);
        expect(r.body.error.code).toBe('NOT_FOUND');
      }
    });

    it('forged or tampered token → NOT_FOUND', async () => {
      const [body = '', mac = ''] = token.slice(4).split('.');
      const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
      const forgedBody = Buffer.from(JSON.stringify({ ...claims, s: 'inv_other' })).toString('base64url');
      for (const bad of [`fdt_${forgedBody}.${mac}`, `${token.slice(0, -2)}AA`, 'fdt_garbage.sig']) {
        const r = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2, signatureToken: bad });
        expect(r.status).toBe(404);
      }
    });

    it('other subject → CONFLICT naming the subject binding', async () => {
      const otherInvoice = await sentInvoice(t, org);
      const r = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id: otherInvoice, step: 2, approvalId });
      expect(r.status).toBe(409);
      expect(r.body.error.message).toMatch(/bound to subject/);
      const viaToken = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id: otherInvoice, step: 2, signatureToken: token });
      expect(viaToken.body.error.message).toMatch(/signatureToken is bound to subject/);
    });

    it('other payload → CONFLICT naming the payload binding', async () => {
      const r = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 3, approvalId });
      expect(r.status).toBe(409);
      expect(r.body.error.message).toMatch(/another payload/);
    });

    it('other action class → CONFLICT naming the class binding', async () => {
      const bill = await t.post(org.keys.agent, 'books.billCapture', {
        payeeName: 'New Supplier',
        description: 'x',
        totalCents: 100,
        dueDays: 7,
      });
      const r = await t.post(org.keys.agent, 'books.billApprove', { id: bill.body.result.id, approvalId });
      expect(r.status).toBe(409);
      expect(r.body.error.message).toMatch(/action class books.invoice_chase_step/);
    });

    it('used twice → CONFLICT, even where the act would now be a no-op', async () => {
      const ok = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2, approvalId });
      expect(ok.status).toBe(200);
      const twice = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2, approvalId });
      expect(twice.status).toBe(409);
      expect(twice.body.error.message).toMatch(/already used/);
      const plainRepeat = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2 });
      expect(plainRepeat.body.result).toMatchObject({ noop: true, step: 2 });
    });

    it('denied → GOVERNANCE_NOT_READY; a denied approval can never complete the act', async () => {
      const inv = await sentInvoice(t, org);
      const { approvalId: denied } = await heldAndRequested(t, org, 'books.invoiceChaseStep', { id: inv, step: 2 });
      await decide(t, org, denied, false, 'customer is on a payment plan');
      const r = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id: inv, step: 2, approvalId: denied });
      expect(r.status).toBe(423);
      expect(r.body.error.message).toMatch(/denied/);
      await expect(decide(t, org, denied, true)).rejects.toMatchObject({ code: 'CONFLICT' });
      const wait = await t.get(org.keys.observer, `approval.wait?approvalId=${denied}`);
      expect(wait.body).toMatchObject({ status: 'denied', reason: 'customer is on a payment plan' });
      expect(wait.body.signatureToken).toBeUndefined();
    });

    it('expired → GOVERNANCE_NOT_READY', async () => {
      const inv = await sentInvoice(t, org);
      const { approvalId: old } = await heldAndRequested(t, org, 'books.invoiceChaseStep', { id: inv, step: 2 });
      await decide(t, org, old, true);
      await t.db.write((tx) => tx.run("UPDATE approvals SET expires_at = '2000-01-01T00:00:00.000Z' WHERE id = ?", [old]));
      const r = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id: inv, step: 2, approvalId: old });
      expect(r.status).toBe(423);
      expect(r.body.error.message).toMatch(/expired/);
      expect((await t.get(org.keys.observer, `approval.wait?approvalId=${old}`)).body.status).toBe('expired');
    });

    it('approval.request with no open hold → NOT_FOUND', async () => {
      const inv = await sentInvoice(t, org);
      const r = await t.post(org.keys.agent, 'approval.request', {
        actionClass: 'books.invoice_chase_step',
        payloadHash: 'a'.repeat(64),
        subject: { kind: 'books.signature', subjectId: inv },
      });
      expect(r.status).toBe(404);
      expect(r.body.error.message).toMatch(/no open hold/);
    });

    it('both proofs at once → BAD_REQUEST', async () => {
      const r = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2, approvalId, signatureToken: token });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toBe('signatureToken: give either approvalId or signatureToken, not both');
    });
  });

  it('two concurrent retries with one proof: exactly one completes', async () => {
    const id = await sentInvoice(t, org);
    const { approvalId } = await heldAndRequested(t, org, 'books.invoiceChaseStep', { id, step: 2 });
    await decide(t, org, approvalId, true);
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2, approvalId })),
    );
    expect(replies.filter((r) => r.status === 200 && !r.body.result.noop)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 409)).toHaveLength(5);
    expect((await events()).filter((e) => e.kind === 'books.invoice.chase' && e.entity_id === id && e.payload.step === 2)).toHaveLength(1);
  });

  it('no decision rights declared → GOVERNANCE_NOT_READY, no hold, no event', async () => {
    const bare = await t.org(undefined, { decisionRights: false });
    const id = await sentInvoice(t, bare);
    const before = (await events(bare)).length;
    const r = await t.post(bare.keys.agent, 'books.invoiceChaseStep', { id, step: 2 });
    expect(r.status).toBe(423);
    expect(r.body.error.message).toMatch(/no decision rights are declared for books.invoice_chase_step/);
    expect((await events(bare)).length).toBe(before);
  });

  it('a hold is audited every time and the idempotent replay returns the same frame', async () => {
    const id = await sentInvoice(t, org);
    const key = freshKey();
    const a = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2 }, { 'x-idempotency-key': key });
    const replay = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2 }, { 'x-idempotency-key': key });
    expect(replay.body).toEqual({ ok: true, code: 'IDEMPOTENT_REPLAY', result: a.body.result });
    const b = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2 });
    expect(b.body.result.approval.payloadHash).toBe(a.body.result.approval.payloadHash);
    expect((await events()).filter((e) => e.kind === 'books.signature.hold' && e.entity_id === id)).toHaveLength(2);
  });

  describe('chase steps (in order; step 2 and above are signature acts)', () => {
    it('step 1 runs at once and writes the reminder through the email adapter', async () => {
      const id = await sentInvoice(t, org, false);
      const r = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 1, early: true });
      expect(r.body.result).toMatchObject({ id, step: 1 });
      const ev = (await events()).at(-1);
      expect(ev).toMatchObject({ kind: 'books.invoice.chase', payload: { step: 1, channel: 'email', recipients: 1 } });
      expect(JSON.stringify(ev.payload)).not.toMatch(/Dear/);
      await t.server.outbox.kick();
      const row = await t.db.reader.get<{ body: string; delivered_at: string | null }>(
        'SELECT body, delivered_at FROM outbox WHERE org_id = ? ORDER BY created_at DESC LIMIT 1',
        [org.orgId],
      );
      expect(row?.delivered_at).not.toBeNull();
      // The customer knows the invoice by its number, not the internal id.
      const { number } = (await t.db.reader.get<{ number: string }>('SELECT number FROM invoices WHERE org_id = ? AND id = ?', [
        org.orgId,
        id,
      ])) ?? { number: '?' };
      expect(number).toMatch(/^INV-\d{4}$/);
      expect(JSON.parse(row?.body ?? '{}')).toMatchObject({
        to: 'accounts@harbour-cafe.example',
        subject: expect.stringContaining(number),
      });
    });

    it('out of order → CONFLICT naming the last step done; draft → CONFLICT naming the state', async () => {
      const id = await sentInvoice(t, org, false);
      const r = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 3 });
      expect(r.status).toBe(409);
      expect(r.body.error.message).toBe(`invoice ${id}: step 3 needs step 2 first; last step done is none`);
      const draft = await t.post(org.keys.agent, 'books.invoiceDraft', { payeeName: 'P', description: 'd', totalCents: 1, dueDays: 0 });
      const d = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id: draft.body.result.id, step: 1 });
      expect(d.body.error.message).toMatch(/is draft; only a sent or part_paid invoice can be chased/);
      const missing = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id: 'inv_nope', step: 1 });
      expect(missing.status).toBe(404);
      const bad = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 0 });
      expect(bad.body.error.message).toBe('step: must be an integer of at least 1');
    });

    it('repeating step 1 is a no-op with the ledgerId of that step', async () => {
      const id = await sentInvoice(t, org, false);
      const first = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 1, early: true });
      const again = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 1 }); // no `early` needed: a repeat is a no-op before the due-date check
      expect(again.body.result).toEqual({ id, step: 1, ledgerId: first.body.result.ledgerId, noop: true });
    });
  });

  describe('bills held for approval (new payee, above the floor, changed bank details)', () => {
    const capture = (o: CreatedOrg, payeeName: string, totalCents: number) =>
      t.post(o.keys.agent, 'books.billCapture', { payeeName, description: 'Supplies', totalCents, dueDays: 30 });

    it('NEW_PAYEE, ABOVE_FLOOR (which wins over NEW_PAYEE), and neither', async () => {
      const o = await t.org();
      const fresh = await capture(o, 'Paper Co', 10_000);
      expect(fresh.body.result).toMatchObject({ status: 'held', heldReason: 'NEW_PAYEE', runId: null });
      const big = await capture(o, 'Big Iron Ltd', 500_001);
      expect(big.body.result.heldReason).toBe('ABOVE_FLOOR');
      const atFloor = await capture(o, 'Big Iron Ltd', 500_000);
      expect(atFloor.body.result.heldReason).toBe('NEW_PAYEE');
      const ev = (await events(o)).find((e) => e.entity_id === fresh.body.result.id);
      expect(ev).toMatchObject({
        kind: 'books.bill.capture',
        payload: { payee: 'Paper Co', totalCents: 10_000, heldReason: 'NEW_PAYEE', runId: null },
      });

      // A human approves the first Paper Co bill; the payee is then known.
      const refused = await t.post(o.keys.agent, 'books.billApprove', { id: fresh.body.result.id });
      expect(refused.status).toBe(423);
      expect(refused.body.error.message).toMatch(/books\.bill_approve/);
      const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(refused.body.error.message)?.[1];
      expect(payloadHash).toBeDefined();
      const before = (await events(o)).length;
      expect(before).toBe(4); // org.created + 3 captures: the refusal appended nothing
      const req = await t.post(o.keys.agent, 'approval.request', {
        actionClass: 'books.bill_approve',
        payloadHash,
        subject: { kind: 'books.signature', subjectId: fresh.body.result.id },
      });
      expect(req.body.result.summary).toMatch(/Paper Co.*\$100\.00.*new payee/);
      await decide(t, o, req.body.result.approvalId, true);
      const approved = await t.post(o.keys.agent, 'books.billApprove', {
        id: fresh.body.result.id,
        approvalId: req.body.result.approvalId,
      });
      expect(approved.body.result).toMatchObject({ status: 'approved', heldReason: 'NEW_PAYEE' });
      expect((await events(o)).at(-1)).toMatchObject({ kind: 'books.bill.approve', payload: { approvalId: req.body.result.approvalId } });

      const known = await capture(o, '  paper   co ', 20_000);
      expect(known.body.result).toMatchObject({ status: 'captured', heldReason: null });
      const agentOk = await t.post(o.keys.agent, 'books.billApprove', { id: known.body.result.id });
      expect(agentOk.body.result.status).toBe('approved');
      const noop = await t.post(o.keys.agent, 'books.billApprove', { id: known.body.result.id });
      expect(noop.body.result).toMatchObject({ noop: true, ledgerId: agentOk.body.result.ledgerId });
    });

    it('billHold and billReturn move the bill and name illegal states', async () => {
      const o = await t.org();
      const bill = (await capture(o, 'Dispute Pty', 1_000)).body.result;
      const held = await t.post(o.keys.agent, 'books.billHold', { id: bill.id, reason: 'quantity disputed' });
      expect(held.body.result).toMatchObject({ status: 'on_hold', note: 'quantity disputed' });
      expect((await t.post(o.keys.agent, 'books.billHold', { id: bill.id, reason: 'again' })).body.result.noop).toBe(true);
      const ret = await t.post(o.keys.agent, 'books.billReturn', { id: bill.id, reason: 'wrong entity' });
      expect(ret.body.result.status).toBe('returned');
      expect((await events(o)).at(-1)).toMatchObject({ kind: 'books.bill.return', payload: { reason: 'wrong entity' } });
      const approve = await t.post(o.keys.agent, 'books.billApprove', { id: bill.id });
      expect(approve.status).toBe(409); // state preconditions are checked before the held-bill refusal
      expect(approve.body.error.message).toMatch(/is returned; only a captured, held or on-hold bill/);
      const hold = await t.post(o.keys.agent, 'books.billHold', { id: bill.id, reason: 'x' });
      expect(hold.status).toBe(409);
      expect(hold.body.error.message).toMatch(/is returned/);
      expect((await t.post(o.keys.agent, 'books.billReturn', { id: bill.id, reason: 'x' })).body.result.noop).toBe(true);
      expect((await t.post(o.keys.agent, 'books.billHold', { id: bill.id })).body.error.message).toBe('reason: is required');
    });
  });

  describe('decision.list and policy', () => {
    it('lists decisions newest first with filters and cursor paging', async () => {
      const o = await t.org();
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const inv = await sentInvoice(t, o);
        ids.push((await heldAndRequested(t, o, 'books.invoiceChaseStep', { id: inv, step: 2 })).approvalId);
      }
      await decide(t, o, ids[0] ?? '', false, 'no');
      const all = await t.get(o.keys.observer, 'decision.list');
      expect(all.body.decisions.map((d: any) => d.approvalId)).toEqual([...ids].reverse());
      expect(all.body.decisions[0]).toMatchObject({
        actionClass: 'books.invoice_chase_step',
        payload: { method: 'books.invoiceChaseStep', params: { step: 2 } },
      });
      const pending = await t.get(o.keys.observer, 'decision.list?status=pending');
      expect(pending.body.decisions).toHaveLength(2);
      const denied = await t.get(o.keys.observer, 'decision.list?status=denied');
      expect(denied.body.decisions.map((d: any) => d.approvalId)).toEqual([ids[0]]);
      const page1 = await t.get(o.keys.observer, 'decision.list?limit=2');
      expect(page1.body.decisions).toHaveLength(2);
      const page2 = await t.get(o.keys.observer, `decision.list?limit=2&cursor=${page1.body.nextCursor}`);
      expect(page2.body).toEqual({ decisions: [expect.objectContaining({ approvalId: ids[0] })], nextCursor: null });
      expect((await t.get(o.keys.observer, 'decision.list?status=maybe')).status).toBe(400);
      const other = await t.org();
      expect((await t.get(other.keys.observer, 'decision.list')).body.decisions).toEqual([]);
      expect((await t.get(other.keys.observer, `approval.wait?approvalId=${ids[1]}`)).status).toBe(404);
    });

    it('GET policy shows floors, expiry and rights; a policy change is a human act with its event', async () => {
      const o = await t.org();
      const p = await t.get(o.keys.observer, 'policy');
      expect(p.body).toMatchObject({
        orgId: o.orgId,
        billApprovalFloorCents: 500_000,
        materialityFloorCents: 100_000,
        approvalExpiryMs: 86_400_000,
        decisionRights: { 'books.payroll_sign': [o.owner.userId] },
      });
      await setPolicy(t.db, {
        orgId: o.orgId,
        user: { id: o.owner.userId, role: 'owner' },
        patch: { billApprovalFloorCents: 1_000, approvalExpiryMs: 120_000 },
      });
      expect((await t.get(o.keys.observer, 'policy')).body).toMatchObject({ billApprovalFloorCents: 1_000, approvalExpiryMs: 120_000 });
      expect((await events(o)).at(-1)).toMatchObject({ family: 'policy', kind: 'policy.changed', actor: o.owner.userId });
      const bill = await t.post(o.keys.agent, 'books.billCapture', { payeeName: 'X', description: 'd', totalCents: 1_001, dueDays: 1 });
      expect(bill.body.result.heldReason).toBe('ABOVE_FLOOR');
      const inv = await sentInvoice(t, o);
      const held = await t.post(o.keys.agent, 'books.invoiceChaseStep', { id: inv, step: 2 });
      expect(held.body.result.approval.expiresInMs).toBe(120_000);
    });
  });

  it('approval.wait validates its query and answers at once when not pending', async () => {
    expect((await t.get(org.keys.observer, 'approval.wait?approvalId=apr_x&timeoutMs=30001')).status).toBe(400);
    expect((await t.get(org.keys.observer, 'approval.wait')).body.error.message).toBe('approvalId: is required');
    expect((await t.get(org.keys.observer, 'approval.wait?approvalId=apr_x')).status).toBe(404);
  });
});
