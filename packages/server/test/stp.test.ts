/**
 * Single Touch Payroll through HTTP on both engines: signing a pay run queues its
 * pay event through the lodgement adapter (the file `<submissionId>.json` with the TFN and exact
 * year-to-date figures, the submission `lodged` with its receipt once delivered); a second run
 * accumulates YTD; recalling a signed run queues a correction without it; books.stpResubmit is a
 * new act every call. No event payload ever carries a TFN.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { agentCalls, engines, startTestServer, type TestServer } from './harness.js';
import { eventsOf, inDays } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';
import { setProfile } from '../src/org/profile.js';

const TFN = '876543210';
const AROHA = { name: 'Aroha Ngata', annualSalaryCents: 7_280_000 };
const CHLOE = { name: 'Chloe Park', annualSalaryCents: 3_770_000 };
const JULY = { periodStart: '2026-06-19', periodEnd: '2026-07-02', paymentDate: '2026-07-02', payFrequency: 'fortnightly' };
const JULY2 = { periodStart: '2026-07-03', periodEnd: '2026-07-16', paymentDate: '2026-07-16', payFrequency: 'fortnightly' };

interface Submission {
  id: string;
  pay_run_id: string;
  kind: string;
  status: string;
  receipt_file: string | null;
  receipt_sha256: string | null;
}

describe.each(engines)('single touch payroll (%s)', (engine) => {
  let t: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-stp-'));
    t = await startTestServer(engine, { lodgementOutboxDir: dir });
  });
  afterAll(async () => t.close());

  const { post, ok } = agentCalls(() => t);

  const employee = (o: CreatedOrg, start: Record<string, unknown>, tft = true) => activeEmployee(t, o, start, { tfn: TFN, tft });

  const sign = async (o: CreatedOrg, id: string) => (await signPayRun(t, o, id)).result;

  const submissions = (o: CreatedOrg, runId: string) =>
    t.db.reader.all<Submission>(
      'SELECT id, pay_run_id, kind, status, receipt_file, receipt_sha256 FROM stp_submissions WHERE org_id = ? AND pay_run_id = ? ORDER BY created_at, id',
      [o.orgId, runId],
    );

  async function waitLodged(o: CreatedOrg, id: string): Promise<Submission> {
    for (let i = 0; i < 100; i += 1) {
      await t.server.outbox.kick();
      const row = await t.db.reader.get<Submission>(
        'SELECT id, pay_run_id, kind, status, receipt_file, receipt_sha256 FROM stp_submissions WHERE org_id = ? AND id = ?',
        [o.orgId, id],
      );
      if (row?.status === 'lodged') return row;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`STP submission ${id} was not lodged`);
  }

  /** The delivered document, checked against its receipt; the file is owner-readable only. */
  async function lodgedDoc(o: CreatedOrg, id: string) {
    const row = await waitLodged(o, id);
    const path = join(dir, `${id}.json`);
    const bytes = readFileSync(path);
    expect(row.receipt_file).toBe(`${id}.json`);
    expect(row.receipt_sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    return JSON.parse(bytes.toString('utf8'));
  }

  const ytdOf = (doc: any, employeeId: string) => doc.stp_pay_event.payees.find((p: any) => p.employeeId === employeeId).ytd;

  async function noTfnInEvents(o: CreatedOrg) {
    const rows = await t.db.reader.all<{ payload: string }>('SELECT payload FROM events WHERE org_id = ?', [o.orgId]);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.payload).not.toContain(TFN);
  }

  it("the payer's ABN is the organisation profile's", async () => {
    const o = await t.org();
    await setProfile(t.db, { orgId: o.orgId, actor: '', patch: { abn: '51824753556' } });
    await employee(o, AROHA);
    const run = await ok(o, 'books.payrollDraft', JULY);
    await sign(o, run.id);
    const [sub] = await submissions(o, run.id);
    const doc = await lodgedDoc(o, sub!.id);
    expect(doc.stp_pay_event.payer).toMatchObject({ abn: '51824753556', bmsId: `finance-desk:${o.orgId}` });
  });

  it('sign queues the pay event: the file with the TFN and exact YTD, lodged with a receipt; a second run accumulates', async () => {
    const o = await t.org();
    const aroha = await employee(o, AROHA);
    const chloe = await employee(o, CHLOE, false);
    const lv = await ok(o, 'books.leaveRequest', {
      employeeId: aroha,
      leaveType: 'annual',
      startDate: '2026-07-01',
      endDate: '2026-07-02',
      hours: 16,
    });
    await ok(o, 'books.leaveApprove', { id: lv.id });
    const run1 = await ok(o, 'books.payrollDraft', JULY);
    expect(await submissions(o, run1.id)).toEqual([]);
    await sign(o, run1.id);
    const [sub1] = await submissions(o, run1.id);
    expect(sub1).toMatchObject({ id: expect.stringMatching(/^stp_/), kind: 'pay' });
    const doc = await lodgedDoc(o, sub1!.id);
    const org = await t.db.reader.get<{ name: string }>('SELECT name FROM organisations WHERE id = ?', [o.orgId]);
    expect(doc).toMatchObject({ format: 'finance-desk.lodgement', version: 1, kind: 'stp_pay_event', id: sub1!.id, orgId: o.orgId });
    expect(doc.stp_pay_event).toMatchObject({
      submissionKind: 'pay',
      reason: null,
      payer: { name: org!.name, abn: null, bmsId: `finance-desk:${o.orgId}` },
      payRun: { id: run1.id, status: 'signed', paymentDate: '2026-07-02' },
      financialYear: { start: '2026-07-01', end: '2027-06-30' },
    });
    expect(doc.stp_pay_event.payees).toEqual([
      {
        employeeId: aroha,
        tfn: TFN,
        name: 'Aroha Ngata',
        employmentBasis: 'full_time',
        taxTreatmentCode: 'RTXXXX',
        ytd: {
          salaryWagesCents: 280_000 - 58_947,
          paidLeaveCents: 58_947,
          allowancesCents: 0,
          grossCents: 280_000,
          paygWithheldCents: 53_400,
          superLiabilityCents: 33_600,
        },
      },
      {
        employeeId: chloe,
        tfn: TFN,
        name: 'Chloe Park',
        employmentBasis: 'full_time',
        taxTreatmentCode: 'RNXXXX',
        ytd: {
          salaryWagesCents: 145_000,
          paidLeaveCents: 0,
          allowancesCents: 0,
          grossCents: 145_000,
          paygWithheldCents: 32_000,
          superLiabilityCents: 17_400,
        },
      },
    ]);
    // The confirmation is its own event by the system; a second sign is a no-op queuing nothing.
    const events = await eventsOf(t, o);
    expect(events.filter((e) => e.kind === 'books.stp.lodged')).toHaveLength(1);
    expect((await ok(o, 'books.payrollSign', { id: run1.id })).noop).toBe(true);
    expect(await submissions(o, run1.id)).toHaveLength(1);

    const run2 = await ok(o, 'books.payrollDraft', JULY2);
    await sign(o, run2.id);
    const [sub2] = await submissions(o, run2.id);
    const doc2 = await lodgedDoc(o, sub2!.id);
    expect(ytdOf(doc2, aroha)).toEqual({
      salaryWagesCents: 560_000 - 58_947,
      paidLeaveCents: 58_947,
      allowancesCents: 0,
      grossCents: 560_000,
      paygWithheldCents: 106_800,
      superLiabilityCents: 67_200,
    });
    expect(ytdOf(doc2, chloe)).toMatchObject({ grossCents: 290_000, paygWithheldCents: 64_000, superLiabilityCents: 34_800 });
    await noTfnInEvents(o);
  });

  it('recall of a signed run queues a correction without it; stpResubmit is a new act each call', async () => {
    const o = await t.org();
    const aroha = await employee(o, AROHA);
    await sign(o, (await ok(o, 'books.payrollDraft', JULY)).id);
    const pay = inDays(7);
    const later = await ok(o, 'books.payrollDraft', {
      periodStart: inDays(-6),
      periodEnd: pay,
      paymentDate: pay,
      payFrequency: 'fortnightly',
    });
    await sign(o, later.id);
    const [paid] = await submissions(o, later.id);
    expect(ytdOf(await lodgedDoc(o, paid!.id), aroha).grossCents).toBe(560_000);

    await ok(o, 'books.payrollRecall', { id: later.id, reason: 'wrong period' });
    const subs = await submissions(o, later.id);
    expect(subs.map((s) => s.kind)).toEqual(['pay', 'correction']);
    const correction = await lodgedDoc(o, subs[1]!.id);
    expect(correction.stp_pay_event).toMatchObject({
      submissionKind: 'correction',
      reason: 'wrong period',
      payRun: { id: later.id, status: 'recalled' },
    });
    expect(ytdOf(correction, aroha)).toEqual({
      salaryWagesCents: 280_000,
      paidLeaveCents: 0,
      allowancesCents: 0,
      grossCents: 280_000,
      paygWithheldCents: 53_400,
      superLiabilityCents: 33_600,
    });

    // A new act every call (not idempotent by state): two calls, two submissions, two events; queued, not lodged, until delivered.
    const before = (await eventsOf(t, o)).filter((e) => e.kind === 'books.stp.resubmit').length;
    const a = await ok(o, 'books.stpResubmit', { payRunId: later.id, reason: 'ATO asked again' });
    const b = await ok(o, 'books.stpResubmit', { payRunId: later.id, reason: 'ATO asked again' });
    expect(a).toMatchObject({ submissionId: expect.stringMatching(/^stp_/), payRunId: later.id, kind: 'resubmission', status: 'queued' });
    expect(b.submissionId).not.toBe(a.submissionId);
    expect(b.noop).toBeUndefined();
    expect((await eventsOf(t, o)).filter((e) => e.kind === 'books.stp.resubmit').length).toBe(before + 2);
    const again = await lodgedDoc(o, b.submissionId);
    expect(again.stp_pay_event).toMatchObject({ submissionKind: 'resubmission', reason: 'ATO asked again' });
    expect(ytdOf(again, aroha).grossCents).toBe(280_000);
    expect((await submissions(o, later.id)).map((s) => s.kind)).toEqual(['pay', 'correction', 'resubmission', 'resubmission']);
    await noTfnInEvents(o);
  });

  it('stpResubmit: a draft is CONFLICT, another organisation NOT_FOUND, bad input names the field, a reader is 403', async () => {
    const o = await t.org();
    await employee(o, AROHA);
    const draft = await ok(o, 'books.payrollDraft', JULY);
    const seq = (await eventsOf(t, o)).length;
    const c = await post(o, 'books.stpResubmit', { payRunId: draft.id, reason: 'x' });
    expect(c.status).toBe(409);
    expect(c.body.error.message).toContain(`pay run ${draft.id} is a draft`);
    const stranger = await t.org();
    expect((await post(stranger, 'books.stpResubmit', { payRunId: draft.id, reason: 'x' })).status).toBe(404);
    const noReason = await post(o, 'books.stpResubmit', { payRunId: draft.id });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.message).toContain('reason');
    const noRun = await post(o, 'books.stpResubmit', { reason: 'x' });
    expect(noRun.status).toBe(400);
    expect(noRun.body.error.message).toContain('payRunId');
    expect((await t.post(o.keys.reader, 'books.stpResubmit', { payRunId: draft.id, reason: 'x' })).status).toBe(403);
    expect((await eventsOf(t, o)).length).toBe(seq);
    expect(await submissions(o, draft.id)).toEqual([]);
  });
});
