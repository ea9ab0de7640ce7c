/**
 * books.employeeUpdate through HTTP, on every engine: an active employee's terms changed from a
 * date, the history kept, pay runs using the terms in force (pay and hours on the period's first
 * day, the tax declaration and bank account on the payment date), and a new bank account held for
 * a human. Expected gross figures are hand-computed: annual salary ÷ 26 for a fortnight, half up
 * ($72,800 → $2,800.00; $80,000 → $3,076.92).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { parseAba } from './aba-parse.js';
import { agentCalls, engines, startTestServer, type TestServer } from './harness.js';
import { eventsOf, FUNDING, inDays, today } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

const TFN = '876543210';
/** Another TFN passing the ATO check digit (weights 1,4,3,7,5,8,6,9,10: sum 165 = 15 × 11). */
const NEW_TFN = '462819376';
const AROHA = { name: 'Aroha Ngata', annualSalaryCents: 7_280_000, bsb: '062-703', accountNumber: '11223344', accountName: 'Aroha Ngata' };
const NEW_BANK = { bsb: '033-001', accountNumber: '99887766', accountName: 'Aroha Ngata' };

describe.each(engines)('books.employeeUpdate (%s)', (engine) => {
  let t: TestServer;
  let dir: string;
  let other: CreatedOrg;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-employee-update-'));
    t = await startTestServer(engine, { paymentsOutboxDir: dir });
    other = await t.org();
  });
  afterAll(async () => t.close());

  const { post, ok } = agentCalls(() => t);
  const update = (o: CreatedOrg, params: Record<string, unknown>, headers?: Record<string, string>) =>
    post(o, 'books.employeeUpdate', params, headers);
  const fortnight = (periodStart: string, periodEnd: string, paymentDate: string, employeeId: string) => ({
    periodStart,
    periodEnd,
    paymentDate,
    payFrequency: 'fortnightly',
    employeeIds: [employeeId],
  });
  const history = (o: CreatedOrg, employeeId: string) =>
    t.db.reader.all<{ seq: number | string; kind: string; effective_from: string; fields: string; tfn: string | null; ledger_id: string }>(
      'SELECT seq, kind, effective_from, fields, tfn, ledger_id FROM employee_changes WHERE org_id = ? AND employee_id = ? ORDER BY seq',
      [o.orgId, employeeId],
    );
  const employeeRead = async (o: CreatedOrg, id: string) =>
    ((await t.post(o.keys.reader, 'books.employees', {})).body.result.employees as any[]).find((e) => e.id === id);

  it('a pay rise effective 1 July: the June run pays the old salary, the July run the new, to the cent; history kept', async () => {
    const o = await t.org();
    const id = await activeEmployee(t, o, { ...AROHA, startDate: '2026-06-03' });
    const june = await ok(o, 'books.payrollDraft', fortnight('2026-06-17', '2026-06-30', '2026-06-30', id));
    expect(june.lines[0].grossCents).toBe(280_000); // $72,800 ÷ 26
    await signPayRun(t, o, june.id);

    const rise = await ok(o, 'books.employeeUpdate', { id, effectiveFrom: '2026-07-01', annualSalaryCents: 8_000_000 });
    expect(rise).toMatchObject({
      id,
      status: 'active',
      annualSalaryCents: 8_000_000, // in force today (after 1 July)
      pendingFrom: null,
      change: { effectiveFrom: '2026-07-01', changed: ['annualSalaryCents'] },
    });
    expect(rise.noop).toBeUndefined();
    // One event (the signed run's STP lodgement may also land meanwhile: it is the system's).
    const events = (await eventsOf(t, o)).filter((e) => e.kind === 'books.employee.update');
    expect(events).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({
      kind: 'books.employee.update',
      entity_id: id,
      payload: { effectiveFrom: '2026-07-01', changed: ['annualSalaryCents'], annualSalaryCents: 8_000_000 },
    });
    expect(rise.ledgerId).toBe(events.at(-1).row_hash.slice(0, 8));

    // The period starting 1 July pays $80,000 ÷ 26 = $3,076.923… → $3,076.92.
    const july = await ok(o, 'books.payrollDraft', fortnight('2026-07-01', '2026-07-14', '2026-07-16', id));
    expect(july.lines[0].grossCents).toBe(307_692);

    // History: the terms onboarding set (start), then the rise; never a TFN in the JSON.
    const rows = await history(o, id);
    expect(rows.map((r) => [Number(r.seq), r.kind, r.effective_from])).toEqual([
      [1, 'start', '2026-06-03'],
      [2, 'change', '2026-07-01'],
    ]);
    expect(JSON.parse(rows[0]?.fields ?? '{}')).toMatchObject({ annualSalaryCents: 7_280_000, hoursPerWeek: 38 });
    expect(JSON.parse(rows[1]?.fields ?? '{}')).toEqual({ annualSalaryCents: 8_000_000 });
    expect(rows[1]?.ledger_id).toBe(rise.ledgerId);
    for (const r of rows) expect(r.fields).not.toContain(TFN);
    expect(rows[0]?.tfn).toBe(TFN);
    expect(rows[1]?.tfn).toBeNull();

    // The signed July run paid the old terms from its period: a back-dated change over it is CONFLICT naming it.
    await signPayRun(t, o, july.id);
    const late = await update(o, { id, effectiveFrom: '2026-06-20', hoursPerWeek: 35 });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toContain(`pay run ${july.id} (signed, 2026-07-01 to 2026-07-14, paid 2026-07-16)`);
    expect(late.body.error.message).toContain('back pay is not modelled');
  });

  it('a change effective mid-period applies from the next period; a future-dated change is pending', async () => {
    const o = await t.org();
    const id = await activeEmployee(t, o, AROHA);
    await ok(o, 'books.employeeUpdate', { id, effectiveFrom: '2026-07-20', annualSalaryCents: 7_800_000 });
    const mid = await ok(o, 'books.payrollDraft', fortnight('2026-07-15', '2026-07-28', '2026-07-30', id));
    expect(mid.lines[0].grossCents).toBe(280_000);
    const next = await ok(o, 'books.payrollDraft', fortnight('2026-07-29', '2026-08-11', '2026-08-13', id));
    expect(next.lines[0].grossCents).toBe(300_000); // $78,000 ÷ 26
    // In the future: the answer and the read show today's terms and when the change comes.
    const later = inDays(30);
    const pending = await ok(o, 'books.employeeUpdate', { id, effectiveFrom: later, annualSalaryCents: 9_100_000 });
    expect(pending).toMatchObject({ annualSalaryCents: 7_800_000, pendingFrom: later, change: { effectiveFrom: later } });
    expect(await employeeRead(o, id)).toMatchObject({ annualSalaryCents: 7_800_000, pendingFrom: later });
  });

  it('a new bank account is held for a human (was/now in full); with the proof the next run pays it, a run drafted before keeps the old', async () => {
    const o = await t.org();
    const id = await activeEmployee(t, o, AROHA);
    const first = await ok(o, 'books.payrollDraft', {
      ...fortnight(inDays(-13), inDays(0), inDays(1), id),
      funding: FUNDING,
    });
    const params = { id, ...NEW_BANK, hoursPerWeek: 40, effectiveFrom: today() };
    const before = (await eventsOf(t, o)).length;
    const { hold, approvalId } = await heldAndRequested(t, o, 'books.employeeUpdate', params);
    expect(hold.approval.actionClass).toBe('books.onboarding_advance');
    expect(hold.approval.subject.summary).toBe(
      `Change the terms of "Aroha Ngata" (${id}) from ${today()}: net pay bank account was BSB 062-703 account 11223344 ("AROHA NGATA"), ` +
        'now BSB 033-001 account 99887766 ("AROHA NGATA"); ordinary hours was 38 hours a week, now 40 hours a week',
    );
    // Held: nothing changed yet (the hold and the request are the only events).
    expect((await eventsOf(t, o)).map((e) => e.kind).slice(before)).toEqual(['books.signature.hold', 'approval.requested']);
    expect((await employeeRead(o, id)).bankAccount).toEqual({
      bsb: '062-703',
      accountNumberMasked: '*****344',
      accountName: 'AROHA NGATA',
    });
    expect(await history(o, id)).toEqual([]);
    await decide(t, o, approvalId, true);
    const done = await ok(o, 'books.employeeUpdate', { ...params, approvalId }, { 'x-idempotency-key': freshKey() });
    expect(done).toMatchObject({
      bankAccount: { bsb: '033-001', accountNumberMasked: '*****766', accountName: 'AROHA NGATA' },
      hoursPerWeek: 40,
      change: { effectiveFrom: today(), changed: ['hoursPerWeek', 'bankAccount'] },
    });
    const event = (await eventsOf(t, o)).at(-1);
    expect(event).toMatchObject({
      kind: 'books.employee.update',
      payload: { changed: ['hoursPerWeek', 'bankAccount'], bankAccount: '033-001 *****766', milliHoursPerWeek: 40_000, approvalId },
    });
    expect(JSON.stringify(event.payload)).not.toContain('99887766');
    // The same change again: a no-op by state, no proof needed (the account is no longer a change).
    const again = await ok(o, 'books.employeeUpdate', params);
    expect(again).toMatchObject({ noop: true, change: null, ledgerId: done.ledgerId });

    // The next run pays the new account; the run drafted before the change keeps the old one.
    const second = await ok(o, 'books.payrollDraft', { ...fortnight(inDays(1), inDays(14), inDays(15), id), funding: FUNDING });
    const a = await signPayRun(t, o, first.id);
    const b = await signPayRun(t, o, second.id);
    expect(a.hold.approval.subject.summary).toContain('to BSB 062-703 account 11223344');
    expect(b.hold.approval.subject.summary).toContain('to BSB 033-001 account 99887766');
    await t.server.outbox.kick();
    const account = (fileName: string) =>
      parseAba(readFileSync(join(dir, fileName)).toString('latin1')).details.map((x) => [x.bsb, x.accountNumber?.trim()]);
    expect(account(a.result.fileName)).toEqual([['062-703', '11223344']]);
    expect(account(b.result.fileName)).toEqual([['033-001', '99887766']]);
  });

  it('a tax declaration change moves the scale from its payment date; the TFN only in its columns', async () => {
    const o = await t.org();
    const id = await activeEmployee(t, o, AROHA);
    const declaration = { taxFileNumber: NEW_TFN, residency: 'resident', claimsTaxFreeThreshold: false };
    const r = await ok(o, 'books.employeeUpdate', { id, effectiveFrom: '2026-08-01', ...declaration });
    expect(r.taxDeclaration).toMatchObject({ taxFileNumberMasked: '******376', claimsTaxFreeThreshold: false, taxScale: 1 });
    expect(r.change).toEqual({ effectiveFrom: '2026-08-01', changed: ['taxDeclaration'] });
    expect(JSON.stringify(r)).not.toContain(NEW_TFN);
    const event = (await eventsOf(t, o)).at(-1);
    expect(event.payload).toEqual({
      effectiveFrom: '2026-08-01',
      changed: ['taxDeclaration'],
      taxDeclaration: { taxFileNumber: '******376', residency: 'resident', claimsTaxFreeThreshold: false },
    });
    // Paid 30 July: the old declaration (Scale 2); paid 13 August: the new (Scale 1), which withholds more.
    const july = await ok(o, 'books.payrollDraft', fortnight('2026-07-15', '2026-07-28', '2026-07-30', id));
    const august = await ok(o, 'books.payrollDraft', fortnight('2026-07-29', '2026-08-11', '2026-08-13', id));
    expect([july.lines[0].taxScale, august.lines[0].taxScale]).toEqual([2, 1]);
    expect(july.lines[0].grossCents).toBe(august.lines[0].grossCents);
    expect(august.lines[0].paygCents).toBeGreaterThan(july.lines[0].paygCents);
    const rows = await history(o, id);
    expect(rows.map((x) => [x.kind, x.tfn])).toEqual([
      ['start', TFN],
      ['change', NEW_TFN],
    ]);
    expect(JSON.parse(rows[1]?.fields ?? '{}')).toEqual({
      taxDeclaration: { residency: 'resident', claimsTaxFreeThreshold: false, declaredOn: today() },
    });
    const all = (await t.db.reader.all<{ payload: string }>('SELECT payload FROM events WHERE org_id = ?', [o.orgId])).map(
      (e) => e.payload,
    );
    expect(all.join('\n')).not.toContain(NEW_TFN);
    // Super fund: no proof needed, recorded from today.
    const fund = await ok(o, 'books.employeeUpdate', { id, fundName: 'Hostplus', fundAbn: '68 657 495 890', memberNumber: 'H-77' });
    expect(fund).toMatchObject({
      superFund: { fundName: 'Hostplus', fundAbn: '68657495890', memberNumber: 'H-77' },
      change: { effectiveFrom: today(), changed: ['superFund'] },
    });
  });

  it('refusals: bad input names the field and changes nothing; onboarding is CONFLICT; unknown or another org’s id NOT_FOUND; a reader key refused', async () => {
    const o = await t.org();
    const id = await activeEmployee(t, o, AROHA);
    const before = (await eventsOf(t, o)).length;
    const cases: [Record<string, unknown>, string][] = [
      [{ id, payFrequency: 'weekly' }, 'payFrequency: unknown field'],
      [{ id, employmentBasis: 'part_time' }, 'employmentBasis: unknown field'],
      [{ id }, 'id: give at least one of annualSalaryCents'],
      [{ id, annualSalaryCents: 8_000_000 }, 'effectiveFrom: is required with annualSalaryCents'],
      [{ id, effectiveFrom: '2026-08-01', hourlyRateCents: 4_000 }, 'hourlyRateCents: employee'],
      [{ id, effectiveFrom: '2026-06-30', annualSalaryCents: 8_000_000 }, 'effectiveFrom: must be on or after employee'],
      [{ id, effectiveFrom: '2026-02-30', hoursPerWeek: 30 }, 'effectiveFrom: must be a real calendar date'],
      [{ id, bsb: '033-001' }, 'accountNumber: is required with bsb'],
      [
        { id, taxFileNumber: '876543211', residency: 'resident', claimsTaxFreeThreshold: true },
        'taxFileNumber: must pass the ATO TFN check digit',
      ],
      [
        { id, taxFileNumber: NEW_TFN, residency: 'foreign', claimsTaxFreeThreshold: true },
        'claimsTaxFreeThreshold: a foreign resident cannot',
      ],
      [{ id, fundName: 'X', fundAbn: '12 345 678 901', memberNumber: 'M' }, 'fundAbn: must pass the ABN check digits'],
    ];
    for (const [params, message] of cases) {
      const r = await update(o, params);
      expect(r.status, JSON.stringify(params)).toBe(400);
      expect(r.body.error.message).toContain(message);
      expect(r.body.error.message).not.toContain('876543211');
    }
    expect((await update(o, cases[4]?.[0] ?? {})).body.error.message).toContain(
      'is salaried (annualSalaryCents); a change of pay basis is not supported',
    );
    expect((await eventsOf(t, o)).length).toBe(before);
    expect(await history(o, id)).toEqual([]);

    // Still onboarding: CONFLICT naming the state.
    const onboarding = await ok(o, 'books.onboardingStart', {
      ...AROHA,
      name: 'Ben Carter',
      email: 'ben@harbourside.example',
      startDate: '2026-07-01',
      employmentBasis: 'full_time',
      payFrequency: 'fortnightly',
    });
    const c = await update(o, { id: onboarding.id, title: 'Apprentice' });
    expect(c.status).toBe(409);
    expect(c.body.error.message).toContain(`employee ${onboarding.id} (Ben Carter) is onboarding (next step tax_declaration)`);

    // Unknown, and another organisation's employee: NOT_FOUND.
    expect((await update(o, { id: 'emp_nope', title: 'x' })).status).toBe(404);
    const theirs = await activeEmployee(t, other, AROHA);
    const foreign = await update(o, { id: theirs, title: 'Spy' });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');
    // A reader key cannot write.
    const reader = await t.post(o.keys.reader, 'books.employeeUpdate', { id, title: 'Lead' });
    expect(reader.status).toBe(403);
    expect(reader.body.error.code).toBe('FORBIDDEN_SCOPE');
    expect((await eventsOf(t, o)).length).toBe(before + 1); // onboardingStart only
  });

  it('idempotency: the same key replays; the same values are a no-op; other values for the same date are CONFLICT naming it', async () => {
    const o = await t.org();
    const id = await activeEmployee(t, o, AROHA);
    const key = freshKey();
    const params = { id, effectiveFrom: '2026-09-01', annualSalaryCents: 7_500_000, title: 'Head joiner' };
    const first = await update(o, params, { 'x-idempotency-key': key });
    expect(first.status).toBe(200);
    const count = (await eventsOf(t, o)).length;
    const replay = await update(o, params, { 'x-idempotency-key': key });
    expect(replay.body).toMatchObject({ code: 'IDEMPOTENT_REPLAY', result: first.body.result });
    const same = await ok(o, 'books.employeeUpdate', params);
    expect(same).toMatchObject({ noop: true, change: null, ledgerId: first.body.result.ledgerId });
    expect((await eventsOf(t, o)).length).toBe(count);
    // Other values for a term already changed on that date: CONFLICT naming that change.
    const clash = await update(o, { id, effectiveFrom: '2026-09-01', annualSalaryCents: 7_600_000 });
    expect(clash.status).toBe(409);
    expect(clash.body.error.message).toContain(
      `employee ${id} already has a change effective 2026-09-01 (ledger #${first.body.result.ledgerId}) that sets annualSalaryCents`,
    );
    // Another term on the same date, or the same term on another date, is a change of its own.
    const hours = await ok(o, 'books.employeeUpdate', { id, effectiveFrom: '2026-09-01', hoursPerWeek: 36 });
    expect(hours.change).toEqual({ effectiveFrom: '2026-09-01', changed: ['hoursPerWeek'] });
    const earlier = await ok(o, 'books.employeeUpdate', { id, effectiveFrom: '2026-08-15', annualSalaryCents: 7_400_000 });
    expect(earlier.change).toEqual({ effectiveFrom: '2026-08-15', changed: ['annualSalaryCents'] });
    // Recorded out of date order, applied in date order: the 1 September salary stands from its date.
    const aug = await ok(o, 'books.payrollDraft', fortnight('2026-08-19', '2026-09-01', '2026-09-03', id));
    const sep = await ok(o, 'books.payrollDraft', fortnight('2026-09-02', '2026-09-15', '2026-09-17', id));
    expect([aug.lines[0].grossCents, sep.lines[0].grossCents]).toEqual([284_615, 288_462]); // $74,000 ÷ 26, $75,000 ÷ 26
    expect((await history(o, id)).map((r) => r.effective_from)).toEqual(['2026-07-01', '2026-09-01', '2026-09-01', '2026-08-15']);
  });
});
