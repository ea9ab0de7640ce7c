/**
 * STP finalisation notices a change in the year-to-date split alone, through HTTP on both engines:
 * a year finalised with an allowance reported under one STP code, its run recalled and paid again
 * with the same amount under another code, so gross, PAYG and super are unchanged. The read names
 * the employee as needing an amendment, finalising again is an amendment (a reason required; the
 * human reads that the totals are the same, split differently), not a no-op; after it, a repeat is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { agentCalls, engines, startTestServer, type TestServer } from './harness.js';
import { inDays } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

const AROHA = { name: 'Aroha Ngata', annualSalaryCents: 7_280_000 };

/** The financial year label holding `date`. */
function yearOf(date: string): string {
  const start = Number(date.slice(0, 4)) - (Number(date.slice(5, 7)) >= 7 ? 0 : 1);
  return `${start}-${String((start + 1) % 100).padStart(2, '0')}`;
}

describe.each(engines)('STP amendment on a changed year-to-date split (%s)', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  const { post, ok } = agentCalls(() => t);
  async function finalise(o: CreatedOrg, params: Record<string, unknown>) {
    const { hold, approvalId } = await heldAndRequested(t, o, 'books.stpFinalise', params);
    await decide(t, o, approvalId, true);
    const done = await post(o, 'books.stpFinalise', { ...params, approvalId }, { 'x-idempotency-key': freshKey() });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    return { hold, result: done.body.result };
  }
  const reportedOf = async (o: CreatedOrg, submissionId: string) => {
    const row = await t.db.reader.get<{ ytd_reported: string }>(
      'SELECT ytd_reported FROM stp_final_payees WHERE org_id = ? AND submission_id = ?',
      [o.orgId, submissionId],
    );
    return JSON.parse(row!.ytd_reported);
  };

  it('an allowance moved from one STP code to another with the same totals needs an amendment', async () => {
    const o = await t.org();
    const aroha = await activeEmployee(t, o, AROHA);
    // Paid tomorrow, so the signed run can still be recalled.
    const pay = inDays(1);
    const year = yearOf(pay);
    const run = (category: string) => ({
      periodStart: inDays(-12),
      periodEnd: pay,
      paymentDate: pay,
      payFrequency: 'fortnightly',
      earnings: [{ employeeId: aroha, type: 'allowance', amountCents: 1_500, category }],
    });
    const first = await ok(o, 'books.payrollDraft', run('CD'));
    await signPayRun(t, o, first.id);
    const finalised = await finalise(o, { financialYear: year });
    expect(finalised.result.kind).toBe('finalisation');
    expect((await reportedOf(o, finalised.result.submissionId)).ytd).toMatchObject({
      allowancesCents: 1_500,
      allowances: [{ type: 'CD', amountCents: 1_500 }],
    });

    // The run recalled and paid again: the same allowance reported as a tool allowance (TD).
    await ok(o, 'books.payrollRecall', { id: first.id, reason: 'allowance coded as cents per km, it was for tools' });
    const second = await ok(o, 'books.payrollDraft', run('TD'));
    expect(second.lines[0]).toMatchObject({
      grossCents: first.lines[0].grossCents,
      paygCents: first.lines[0].paygCents,
      superCents: first.lines[0].superCents,
    });
    await signPayRun(t, o, second.id);

    // The read flags it although every total matches what was finalised.
    const list = await ok(o, 'books.stpSubmissions', { kind: 'finalisation' });
    expect(list.submissions.find((s: { id: string }) => s.id === finalised.result.submissionId).amendmentNeeded).toEqual([aroha]);
    // Finalising again is an amendment, not a no-op answering the finalisation.
    const noReason = await post(o, 'books.stpFinalise', { financialYear: year });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.message).toContain('reason: is required to amend');
    const amended = await finalise(o, { financialYear: year, reason: 'allowance recoded to tools' });
    expect(amended.result).toMatchObject({ kind: 'amendment' });
    expect(amended.result.noop).toBeUndefined();
    expect(amended.result.submissionId).not.toBe(finalised.result.submissionId);
    expect(amended.hold.approval.subject.summary).toContain('(the same totals as last reported, split differently by type of earnings)');
    expect((await reportedOf(o, amended.result.submissionId)).ytd).toMatchObject({ allowances: [{ type: 'TD', amountCents: 1_500 }] });

    // Now it stands as reported: nothing flagged, and a repeat is a no-op answering the amendment.
    const after = await ok(o, 'books.stpSubmissions', {});
    expect(after.submissions.every((s: { amendmentNeeded: string[] }) => s.amendmentNeeded.length === 0)).toBe(true);
    const again = await post(o, 'books.stpFinalise', { financialYear: year, reason: 'again' });
    expect(again.status).toBe(200);
    expect(again.body.result).toMatchObject({ submissionId: amended.result.submissionId, noop: true });
  });
});
