/**
 * books.employeeTerminate through HTTP on both engines, and the final pay run it makes of the run
 * whose period contains the termination date.
 *
 * The worked resignation (every figure by hand): Aroha, $72,800 a year, 38 hours a week, paid
 * fortnightly from 1 July 2026. Four full fortnights signed (each $2,800.00 gross, $534.00 PAYG on
 * scale 2, $336.00 super): 4 × 76 = 304 ordinary hours, annual leave ⌊304,000 × 4 ÷ 52⌋ = 23,384
 * milli-hours. She resigns on Wednesday 2 September, in the fortnight 26 August – 8 September
 * (paid 10 September), with 8 hours of annual leave on 31 August and 17.5% leave loading:
 * - prorated gross: $72,800 × 8 days ÷ (26 × 14 days) = $1,600.00 exactly; ordinary hours
 *   76,000 × 8 ÷ 14 = 43,428.57 → 43,429 milli-hours; the leave's share 160,000 × 8,000 ÷ 43,429
 *   = 29,472.9 → $294.73;
 * - this run's accrual: ⌊347,429 × 4 ÷ 52⌋ − 23,384 = 26,725 − 23,384 = 3,341; unused annual
 *   leave 26,725 − 8,000 = 18,725 milli-hours (18.725 h);
 * - its value: 7,280,000 × 18,725 ÷ (52 × 38 × 1,000) = 68,986.84 → $689.87; loading 17.5% of
 *   it = 12,072.7 → $120.73; together $810.60;
 * - PAYG: Schedule 1 (scale 2, fortnightly, 2026-27) on $1,600 is $166 (weekly $800.99 →
 *   $82.54 → $83, × 2); on the leave the marginal method: $810 ÷ 26 = $31; Schedule 1 on $1,631 is
 *   $170; ($170 − $166) × 26 = $104, less than 47% of $810 ($380): $104.00. PAYG $270.00;
 * - super 12% of $1,600.00 only (none on the leave): $192.00;
 * - gross $1,600.00 + $810.60 = $2,410.60; net $2,410.60 − $270.00 = $2,140.60.
 * A genuine redundancy withholds 32% of the leave instead: 32% of $810 = $259.20 → $259.00; its
 * pay event and the year's finalisation carry the cessation (R) and the leave as lump sum A type R.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { agentCalls, engines, startTestServer, type TestServer } from './harness.js';
import { eventsOf, inDays, today } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

const TFN = '876543210';
const AROHA = { name: 'Aroha Ngata', annualSalaryCents: 7_280_000 };
const CHLOE = { name: 'Chloe Park', annualSalaryCents: 3_770_000, email: 'chloe@harbourside.example' };
const fortnight = (periodStart: string, periodEnd: string, paymentDate: string, employeeIds?: string[]) => ({
  periodStart,
  periodEnd,
  paymentDate,
  payFrequency: 'fortnightly',
  ...(employeeIds ? { employeeIds } : {}),
});
const EARLIER = [
  ['2026-07-01', '2026-07-14', '2026-07-16'],
  ['2026-07-15', '2026-07-28', '2026-07-30'],
  ['2026-07-29', '2026-08-11', '2026-08-13'],
  ['2026-08-12', '2026-08-25', '2026-08-27'],
] as const;
const FINAL = ['2026-08-26', '2026-09-08', '2026-09-10'] as const;
const NEXT = ['2026-09-09', '2026-09-22', '2026-09-24'] as const;

describe.each(engines)('books.employeeTerminate and the final pay (%s)', (engine) => {
  let t: TestServer;
  let dir: string;
  let other: CreatedOrg;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-termination-'));
    t = await startTestServer(engine, { lodgementOutboxDir: dir });
    other = await t.org();
  });
  afterAll(async () => t.close());

  const { post, ok } = agentCalls(() => t);
  const terminate = (o: CreatedOrg, params: Record<string, unknown>, headers?: Record<string, string>) =>
    post(o, 'books.employeeTerminate', params, headers);
  const employeeRead = async (o: CreatedOrg, id: string) =>
    ((await t.post(o.keys.reader, 'books.employees', {})).body.result.employees as any[]).find((e) => e.id === id);
  const annualLedger = (o: CreatedOrg, employeeId: string) =>
    t.db.reader.all<{ kind: string; milli_hours: number | string }>(
      `SELECT kind, milli_hours FROM leave_ledger WHERE org_id = ? AND employee_id = ? AND leave_type = 'annual' ORDER BY on_date, kind`,
      [o.orgId, employeeId],
    );

  /** The STP document a submission delivered (waiting for the lodgement adapter): a run's pay event, or a submission by id. */
  async function lodgedDoc(o: CreatedOrg, runId: string, submissionId?: string) {
    for (let i = 0; i < 100; i += 1) {
      await t.server.outbox.kick();
      const row = await t.db.reader.get<{ id: string; status: string; receipt_sha256: string | null }>(
        submissionId === undefined
          ? `SELECT id, status, receipt_sha256 FROM stp_submissions WHERE org_id = ? AND pay_run_id = ? AND kind = 'pay'`
          : 'SELECT id, status, receipt_sha256 FROM stp_submissions WHERE org_id = ? AND id = ?',
        [o.orgId, submissionId ?? runId],
      );
      if (row?.status === 'lodged') {
        const bytes = readFileSync(join(dir, `${row.id}.json`));
        expect(row.receipt_sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
        return JSON.parse(bytes.toString('utf8'));
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`the pay event of ${runId} was not lodged`);
  }

  /** Aroha through four signed fortnights, 8 hours of annual leave on 31 August approved, terminated on 2 September. */
  async function resigned(o: CreatedOrg, reason = 'voluntary') {
    const aroha = await activeEmployee(t, o, AROHA, { tfn: TFN });
    for (const [s, e, pay] of EARLIER) {
      const run = await ok(o, 'books.payrollDraft', fortnight(s, e, pay, [aroha]));
      expect(run.lines[0]).toMatchObject({ grossCents: 280_000, paygCents: 53_400, superCents: 33_600 });
      await signPayRun(t, o, run.id);
    }
    const lv = await ok(o, 'books.leaveRequest', {
      employeeId: aroha,
      leaveType: 'annual',
      startDate: '2026-08-31',
      endDate: '2026-08-31',
      hours: 8,
    });
    await ok(o, 'books.leaveApprove', { id: lv.id });
    const done = await ok(o, 'books.employeeTerminate', {
      employeeId: aroha,
      terminationDate: '2026-09-02',
      reason,
      leaveLoadingPercent: 17.5,
    });
    return { aroha, leaveId: lv.id as string, done };
  }

  it('a resignation mid-fortnight: the final run pays to the date, the unused leave and loading, PAYG by hand, no super on the leave', async () => {
    const o = await t.org();
    const chloe = await activeEmployee(t, o, CHLOE, { tfn: TFN });
    const before = (await eventsOf(t, o)).length;
    const { aroha, leaveId, done } = await resigned(o);
    expect(done).toEqual({
      employeeId: aroha,
      name: 'Aroha Ngata',
      status: 'active',
      terminationDate: '2026-09-02',
      reason: 'voluntary',
      cessationTypeCode: 'V',
      leaveLoadingPercent: '17.50',
      finalPayRunId: null,
      ledgerId: done.ledgerId,
    });
    const terminateEvents = (await eventsOf(t, o)).slice(before).filter((e) => e.kind === 'books.employee.terminate');
    expect(terminateEvents).toHaveLength(1);
    expect(terminateEvents[0].payload).toEqual({
      terminationDate: '2026-09-02',
      reason: 'voluntary',
      cessationTypeCode: 'V',
      leaveLoadingPercent: '17.50',
      replaced: null,
    });
    expect(done.ledgerId).toBe(terminateEvents[0].row_hash.slice(0, 8));

    // Still active until the final pay is signed; a run past the date refuses her, naming the date.
    const early = await post(o, 'books.payrollDraft', fortnight(...NEXT, [aroha]));
    expect(early.status).toBe(409);
    expect(early.body.error.message).toContain(`employee ${aroha} (Aroha Ngata) is terminated on 2026-09-02`);

    const run = await ok(o, 'books.payrollDraft', fortnight(...FINAL, [aroha]));
    expect(run.lines).toHaveLength(1);
    expect(run.lines[0]).toMatchObject({
      employeeId: aroha,
      grossCents: 241_060,
      paygCents: 27_000,
      superCents: 19_200,
      netCents: 214_060,
      leaveHours: 8,
      leaveCents: 29_473,
      leaveIds: [leaveId],
      termination: {
        terminationDate: '2026-09-02',
        cessationTypeCode: 'V',
        daysEmployed: 8,
        daysInPeriod: 14,
        unusedLeaveMilliHours: 18_725,
        unusedLeaveCents: 68_987,
        leaveLoadingCents: 12_073,
        terminationPaygCents: 10_400,
      },
    });
    expect(run.totals).toMatchObject({ grossCents: 241_060, paygCents: 27_000, superCents: 19_200, netCents: 214_060 });

    // The signer reads the final pay in words; signing pays the leave out and terminates her.
    const { hold, result } = await signPayRun(t, o, run.id);
    expect(hold.approval.subject.summary).toContain(
      '"Aroha Ngata" gross $2,410.60 (incl. 8 h leave $294.73) (final pay: employed to 2026-09-02, 8 of 14 days of the period; ' +
        'unused annual leave 18.725 h paid out $689.87 plus leave loading $120.73, tax on it $104.00, no super on it), tax $270.00',
    );
    expect(result.status).toBe('signed');
    expect(result.lines[0].termination.unusedLeaveCents).toBe(68_987);
    // The leave ledger: accruals − leave taken − paid out = the balance, now 0.
    const ledger = await annualLedger(o, aroha);
    const of = (kind: string) => ledger.filter((r) => r.kind === kind).reduce((s, r) => s + Number(r.milli_hours), 0);
    expect(of('accrual')).toBe(26_725);
    expect(of('taken')).toBe(-8_000);
    expect(of('payout')).toBe(-18_725);
    expect(of('accrual') + of('taken') + of('payout')).toBe(0);
    const read = await employeeRead(o, aroha);
    expect(read.status).toBe('terminated');
    expect(read.leave.annual.balanceMilliHours).toBe(0);

    // STP: the final run's pay event carries the cessation and the unused leave as its own type.
    const doc = await lodgedDoc(o, run.id);
    const payee = doc.stp_pay_event.payees.find((p: any) => p.employeeId === aroha);
    expect(payee.cessation).toEqual({ date: '2026-09-02', typeCode: 'V' });
    expect(payee.ytd).toMatchObject({
      salaryWagesCents: 1_361_060 - 29_473 - 81_060,
      paidLeaveCents: 29_473,
      unusedLeaveOnTerminationCents: 81_060,
      grossCents: 1_361_060,
      paygWithheldCents: 4 * 53_400 + 27_000,
      superLiabilityCents: 4 * 33_600 + 19_200,
    });
    expect(payee.ytd.lumpSumA).toBeUndefined();

    // payroll_activity shows the termination pay as its own earnings type.
    const report = (await t.post(o.keys.reader, 'books.reports', { type: 'payroll_activity', from: '2026-07-01', to: '2026-09-30' })).body
      .result;
    expect(report.employees.find((e: any) => e.employeeId === aroha)).toMatchObject({
      earnings: { salaryWagesCents: 1_250_527, paidLeaveCents: 29_473, unusedLeaveOnTerminationCents: 81_060 },
      grossCents: 1_361_060,
    });
    expect(report.totals.earnings.unusedLeaveOnTerminationCents).toBe(81_060);

    // Later runs: the default set leaves her out; naming her is CONFLICT naming her and the date.
    const next = await ok(o, 'books.payrollDraft', fortnight(...NEXT));
    expect(next.lines.map((l: any) => l.employeeId)).toEqual([chloe]);
    const named = await post(o, 'books.payrollDraft', fortnight('2026-09-23', '2026-10-06', '2026-10-08', [aroha]));
    expect(named.status).toBe(409);
    expect(named.body.error.message).toContain(`employee ${aroha} (Aroha Ngata) was terminated on 2026-09-02: pay run ${run.id}`);

    // Terminated: the same termination is a no-op; another is CONFLICT naming the final run.
    const again = await ok(o, 'books.employeeTerminate', {
      employeeId: aroha,
      terminationDate: '2026-09-02',
      reason: 'voluntary',
      leaveLoadingPercent: 17.5,
    });
    expect(again).toMatchObject({ status: 'terminated', finalPayRunId: run.id, noop: true, ledgerId: done.ledgerId });
    const other2 = await terminate(o, { employeeId: aroha, terminationDate: '2026-09-03', reason: 'voluntary' });
    expect(other2.status).toBe(409);
    expect(other2.body.error.message).toContain(`pay run ${run.id} paid the final pay`);
  });

  it('a genuine redundancy withholds 32% of the unused leave and reports it as lump sum A type R', async () => {
    const o = await t.org();
    const { aroha, done } = await resigned(o, 'redundancy');
    expect(done.cessationTypeCode).toBe('R');
    const run = await ok(o, 'books.payrollDraft', fortnight(...FINAL, [aroha]));
    expect(run.lines[0]).toMatchObject({
      grossCents: 241_060,
      paygCents: 16_600 + 25_900,
      superCents: 19_200,
      netCents: 241_060 - 42_500,
      termination: { cessationTypeCode: 'R', unusedLeaveCents: 68_987, leaveLoadingCents: 12_073, terminationPaygCents: 25_900 },
    });
    await signPayRun(t, o, run.id);
    const payee = (await lodgedDoc(o, run.id)).stp_pay_event.payees[0];
    expect(payee.cessation).toEqual({ date: '2026-09-02', typeCode: 'R' });
    expect(payee.ytd).toMatchObject({ lumpSumA: [{ type: 'R', amountCents: 81_060 }], salaryWagesCents: 1_361_060 - 29_473 - 81_060 });
    expect(payee.ytd.unusedLeaveOnTerminationCents).toBeUndefined();

    // The year's finalisation carries the cessation too.
    const params = { financialYear: '2026-27', employeeIds: [aroha] };
    const { approvalId } = await heldAndRequested(t, o, 'books.stpFinalise', params);
    await decide(t, o, approvalId, true);
    const final = await ok(o, 'books.stpFinalise', { ...params, approvalId }, { 'x-idempotency-key': freshKey() });
    expect(final).toMatchObject({ kind: 'finalisation', employees: [{ employeeId: aroha, grossCents: 1_361_060 }] });
    const finalPayee = (await lodgedDoc(o, '', final.submissionId)).stp_pay_event.payees[0];
    expect(finalPayee).toMatchObject({ finalEvent: true, cessation: { date: '2026-09-02', typeCode: 'R' } });
    expect(finalPayee.ytd).toMatchObject({ lumpSumA: [{ type: 'R', amountCents: 81_060 }] });
  });

  it('bad input names the field and changes nothing; an ETP is refused saying why; scope; another organisation is NOT_FOUND', async () => {
    const o = await t.org();
    const aroha = await activeEmployee(t, o, AROHA, { tfn: TFN });
    const before = (await eventsOf(t, o)).length;
    const base = { employeeId: aroha, terminationDate: today(), reason: 'voluntary' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, terminationDate: '2026-06-30' }, 'terminationDate: must not be before employee'],
      [{ ...base, terminationDate: inDays(91) }, `terminationDate: must be at most 90 days after today (${inDays(90)})`],
      [{ ...base, terminationDate: '2026-02-30' }, 'terminationDate: must be a real calendar date'],
      [{ ...base, reason: 'resigned' }, 'reason: must be one of voluntary, ill_health, deceased, redundancy, dismissal'],
      [{ ...base, leaveLoadingPercent: 17.555 }, 'leaveLoadingPercent: must be a number from 0 to 100 with at most 2 decimal places'],
      [{ ...base, leaveLoadingPercent: 101 }, 'leaveLoadingPercent: must be a number from 0 to 100'],
      [{ ...base, leaveLoadingPercent: '17.5' }, 'leaveLoadingPercent: must be a number from 0 to 100'],
      [{ ...base, leaveLoadingPercent: -1 }, 'leaveLoadingPercent: must be a number from 0 to 100'],
      [{ ...base, notice: 4 }, 'notice: unknown field'],
      [{ employeeId: aroha, reason: 'voluntary' }, 'terminationDate: is required'],
    ];
    for (const [params, message] of cases) {
      const r = await terminate(o, params);
      expect(r.status, JSON.stringify(params)).toBe(400);
      expect(r.body.error.message).toContain(message);
    }
    const etp = await terminate(o, { ...base, employmentTerminationPaymentCents: 500_000 });
    expect(etp.status).toBe(400);
    expect(etp.body.error.message).toContain('employmentTerminationPaymentCents: employment termination payments');
    expect(etp.body.error.message).toContain('are not supported');
    expect(etp.body.error.message).toContain('the STP ETP payment codes are not modelled');
    expect((await eventsOf(t, o)).length).toBe(before);

    const reader = await t.post(o.keys.reader, 'books.employeeTerminate', base);
    expect(reader.status).toBe(403);
    expect(reader.body.error.code).toBe('FORBIDDEN_SCOPE');
    const elsewhere = await terminate(other, base);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.code).toBe('NOT_FOUND');
    expect((await terminate(o, { ...base, employeeId: 'emp_missing' })).status).toBe(404);
    expect((await eventsOf(t, o)).length).toBe(before);
  });

  it('CONFLICT: onboarding, a signed run past the date, a draft covering it; other details before the final run replace it; idempotency key', async () => {
    const o = await t.org();
    const onboarding = await ok(o, 'books.onboardingStart', {
      ...AROHA,
      name: 'Ben Carter',
      email: 'ben@harbourside.example',
      startDate: '2026-07-01',
      employmentBasis: 'full_time',
      payFrequency: 'fortnightly',
    });
    const b = await terminate(o, { employeeId: onboarding.id, terminationDate: '2026-08-01', reason: 'voluntary' });
    expect(b.status).toBe(409);
    expect(b.body.error.message).toContain(`employee ${onboarding.id} (Ben Carter) is onboarding`);

    const aroha = await activeEmployee(t, o, AROHA, { tfn: TFN });
    const first = await ok(o, 'books.payrollDraft', fortnight('2026-07-01', '2026-07-14', '2026-07-16', [aroha]));
    // A draft covering the date: recall it first.
    const drafted = await terminate(o, { employeeId: aroha, terminationDate: '2026-07-10', reason: 'dismissal' });
    expect(drafted.status).toBe(409);
    expect(drafted.body.error.message).toContain(`pay run ${first.id} (draft, 2026-07-01 to 2026-07-14) pays employee ${aroha}`);
    await signPayRun(t, o, first.id);
    // Signed over the date: the final pay can no longer be the run containing it.
    const signed = await terminate(o, { employeeId: aroha, terminationDate: '2026-07-14', reason: 'dismissal' });
    expect(signed.status).toBe(409);
    expect(signed.body.error.message).toContain(`pay run ${first.id} (signed, 2026-07-01 to 2026-07-14) already paid employee ${aroha}`);

    // Recorded with an idempotency key: the replay answers the same result, no new event.
    const key = freshKey();
    const params = { employeeId: aroha, terminationDate: '2026-07-20', reason: 'dismissal', leaveLoadingPercent: 12.5 };
    const firstCall = await terminate(o, params, { 'x-idempotency-key': key });
    expect(firstCall.status).toBe(200);
    const count = (await eventsOf(t, o)).length;
    const replay = await terminate(o, params, { 'x-idempotency-key': key });
    expect(replay.body).toEqual({ ok: true, code: 'IDEMPOTENT_REPLAY', result: firstCall.body.result });
    // By state: the same termination without a key is a no-op.
    expect(await ok(o, 'books.employeeTerminate', params)).toMatchObject({ noop: true, ledgerId: firstCall.body.result.ledgerId });
    expect((await eventsOf(t, o)).length).toBe(count);

    // Other details before the final run is signed replace it, naming what was replaced.
    const moved = await ok(o, 'books.employeeTerminate', { employeeId: aroha, terminationDate: '2026-07-22', reason: 'contract_end' });
    expect(moved).toMatchObject({
      terminationDate: '2026-07-22',
      reason: 'contract_end',
      cessationTypeCode: 'C',
      leaveLoadingPercent: null,
    });
    const events = (await eventsOf(t, o)).filter((e) => e.kind === 'books.employee.terminate');
    expect(events.at(-1).payload.replaced).toEqual({ terminationDate: '2026-07-20', reason: 'dismissal' });
    // Once the final run is drafted, a change is CONFLICT naming the draft.
    const final = await ok(o, 'books.payrollDraft', fortnight('2026-07-15', '2026-07-28', '2026-07-30', [aroha]));
    expect(final.lines[0].termination).toMatchObject({ terminationDate: '2026-07-22', cessationTypeCode: 'C', daysEmployed: 8 });
    const late = await terminate(o, { employeeId: aroha, terminationDate: '2026-07-24', reason: 'contract_end' });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toContain(`pay run ${final.id} (draft, 2026-07-15 to 2026-07-28)`);
  });

  it('recalling a signed final pay before its payment date makes the employee active again with the leave back', async () => {
    const o = await t.org();
    const aroha = await activeEmployee(t, o, { ...AROHA, startDate: inDays(-20) }, { tfn: TFN });
    await ok(o, 'books.employeeTerminate', { employeeId: aroha, terminationDate: today(), reason: 'deceased' });
    const run = await ok(o, 'books.payrollDraft', fortnight(inDays(-6), inDays(7), inDays(9), [aroha]));
    const line = run.lines[0];
    // After a death nothing is withheld; the leave is paid out.
    expect(line.paygCents).toBe(0);
    expect(line.termination).toMatchObject({ cessationTypeCode: 'D', daysEmployed: 7, daysInPeriod: 14, terminationPaygCents: 0 });
    expect(line.termination.unusedLeaveMilliHours).toBeGreaterThan(0);
    expect(line.netCents).toBe(line.grossCents);
    await signPayRun(t, o, run.id);
    expect((await employeeRead(o, aroha)).status).toBe('terminated');
    await ok(o, 'books.payrollRecall', { id: run.id, reason: 'wrong date' });
    const read = await employeeRead(o, aroha);
    expect(read.status).toBe('active');
    expect(read.leave.annual.balanceMilliHours).toBe(0);
    expect(await annualLedger(o, aroha)).toEqual([]);
    // The termination stands, unpaid: the period drafted again is the final pay again.
    const again = await ok(o, 'books.payrollDraft', fortnight(inDays(-6), inDays(7), inDays(9), [aroha]));
    expect(again.lines[0].termination).toEqual(line.termination);
    const held = await heldAndRequested(t, o, 'books.payrollSign', { id: again.id });
    expect(held.hold.approval.subject.summary).toContain('final pay: employed to');
  });
});
