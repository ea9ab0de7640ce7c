/**
 * People through HTTP, on every engine: onboardingStart, onboardingAdvance
 * (in order; the contract a signature act), leaveRequest, leaveApprove and the employees read.
 * The TFN must never reach an event payload, a summary or an answer in full.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accrueLeave, takeLeave } from '../src/domain/people/leave-ledger.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { inUnitOfWork } from '../src/write-path.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { eventsOf } from './payables-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';
import { testFixture } from './test-events.js';

const TFN = '876543210';
const FUND = { fundName: 'AustralianSuper', fundAbn: '65 714 394 898', memberNumber: 'M-123456' };

const START = {
  name: 'Aroha Ngata',
  email: 'aroha@harbourside.example',
  startDate: '2026-07-01',
  employmentBasis: 'full_time',
  payFrequency: 'fortnightly',
  annualSalaryCents: 7_280_000,
  bsb: '062-703',
  accountNumber: '11223344',
  accountName: 'Aroha Ngata',
};

describe.each(engines)('people: onboarding and leave (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  let other: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
    other = await t.org();
  });
  afterAll(async () => t.close());

  const post = (method: string, params: Record<string, unknown>, o: CreatedOrg = org, headers?: Record<string, string>) =>
    t.post(o.keys.agent, method, params, headers);
  const start = async (params: Record<string, unknown> = {}, o: CreatedOrg = org) => {
    const r = await post('books.onboardingStart', { ...START, ...params }, o);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const taxStep = (id: string, over: Record<string, unknown> = {}) => ({
    id,
    step: 'tax_declaration',
    taxFileNumber: TFN,
    residency: 'resident',
    claimsTaxFreeThreshold: true,
    ...over,
  });
  const advance = (params: Record<string, unknown>, o: CreatedOrg = org) => post('books.onboardingAdvance', params, o);

  /** Through every step and the human's approval of the contract. */
  async function activeEmployee(o: CreatedOrg = org, params: Record<string, unknown> = {}) {
    const e = await start(params, o);
    expect((await advance(taxStep(e.id), o)).status).toBe(200);
    expect((await advance({ id: e.id, step: 'super', ...FUND }, o)).status).toBe(200);
    const { approvalId } = await heldAndRequested(t, o, 'books.onboardingAdvance', { id: e.id, step: 'contract', title: 'Joiner' });
    await decide(t, o, approvalId, true);
    const done = await t.post(
      o.keys.agent,
      'books.onboardingAdvance',
      { id: e.id, step: 'contract', title: 'Joiner', approvalId },
      { 'x-idempotency-key': freshKey() },
    );
    expect(done.body.result.status).toBe('active');
    return done.body.result;
  }

  const allEventText = async (o: CreatedOrg) =>
    (await t.db.reader.all<{ payload: string }>('SELECT payload FROM events WHERE org_id = ?', [o.orgId])).map((e) => e.payload).join('\n');

  it('onboardingStart: onboarding, next step tax_declaration, one event with the bank account masked', async () => {
    const e = await start();
    expect(e).toMatchObject({
      id: expect.stringMatching(/^emp_/),
      status: 'onboarding',
      nextStep: 'tax_declaration',
      annualSalaryCents: 7_280_000,
      hourlyRateCents: null,
      hoursPerWeek: 38,
      bankAccount: { bsb: '062-703', accountNumberMasked: '*****344', accountName: 'AROHA NGATA' },
      taxDeclaration: null,
      superFund: null,
      title: null,
    });
    const ev = (await eventsOf(t, org)).at(-1);
    expect(ev).toMatchObject({
      kind: 'books.employee.onboarding_start',
      entity_id: e.id,
      payload: { bankAccount: '062-703 *****344', nextStep: 'tax_declaration' },
    });
    expect(JSON.stringify(ev)).not.toContain('11223344');
    // The same idempotency key and params replay the first result, no second employee.
    const key = freshKey();
    const a = await post('books.onboardingStart', { ...START, name: 'Key Test' }, org, { 'x-idempotency-key': key });
    const b = await post('books.onboardingStart', { ...START, name: 'Key Test' }, org, { 'x-idempotency-key': key });
    expect(b.body).toMatchObject({ code: 'IDEMPOTENT_REPLAY', result: { id: a.body.result.id } });
  });

  it('onboardingStart: hourly staff with hoursPerWeek; bad input names the field and changes nothing', async () => {
    const hourly = await start({ annualSalaryCents: undefined, hourlyRateCents: 3_250, hoursPerWeek: 30, employmentBasis: 'part_time' });
    expect(hourly).toMatchObject({ hourlyRateCents: 3_250, hoursPerWeek: 30, annualSalaryCents: null });
    const before = (await eventsOf(t, org)).length;
    const cases: [Record<string, unknown>, string][] = [
      [{ hourlyRateCents: 3_000, hoursPerWeek: 38 }, 'hourlyRateCents: give exactly one of annualSalaryCents and hourlyRateCents'],
      [{ annualSalaryCents: undefined }, 'annualSalaryCents: give exactly one of annualSalaryCents and hourlyRateCents'],
      [{ annualSalaryCents: undefined, hourlyRateCents: 3_000 }, 'hoursPerWeek: is required with hourlyRateCents'],
      [
        { annualSalaryCents: undefined, hourlyRateCents: 3_000, hoursPerWeek: 81 },
        'hoursPerWeek: must be a number from 1 to 80 with at most 2 decimal places',
      ],
      [
        { annualSalaryCents: undefined, hourlyRateCents: 3_000, hoursPerWeek: 37.505 },
        'hoursPerWeek: must be a number from 1 to 80 with at most 2 decimal places',
      ],
      [
        { annualSalaryCents: undefined, hourlyRateCents: 3_000, hoursPerWeek: 0.5 },
        'hoursPerWeek: must be a number from 1 to 80 with at most 2 decimal places',
      ],
      [{ employmentBasis: 'part_time' }, 'hoursPerWeek: is required for a part_time employee'],
      [{ employmentBasis: 'contractor' }, 'employmentBasis: must be one of full_time, part_time, casual'],
      [{ payFrequency: undefined }, 'payFrequency: is required'],
      [{ email: 'not an email' }, 'email: must be an email address'],
      [{ startDate: '2026-02-30' }, 'startDate: must be a real calendar date'],
      [{ accountNumber: undefined }, 'accountNumber: is required with bsb, accountName'],
      [{ bsb: '062703' }, 'bsb: must be a BSB of the form NNN-NNN'],
    ];
    for (const [patch, message] of cases) {
      const r = await post('books.onboardingStart', { ...START, ...patch });
      expect(r.status, JSON.stringify(patch)).toBe(400);
      expect(r.body.error.message).toContain(message);
    }
    expect((await eventsOf(t, org)).length).toBe(before);
  });

  it('steps go in order; a step out of order is CONFLICT naming the next step; bad TFN and ABN name the field', async () => {
    const e = await start();
    const early = await advance({ id: e.id, step: 'super', ...FUND });
    expect([early.status, early.body.error.code]).toEqual([409, 'CONFLICT']);
    expect(early.body.error.message).toContain('the next step is tax_declaration');
    const contractEarly = await advance({ id: e.id, step: 'contract', title: 'Joiner' });
    expect(contractEarly.body.error.message).toContain('step contract is out of order; the next step is tax_declaration');
    const badTfn = await advance(taxStep(e.id, { taxFileNumber: '876543211' }));
    expect([badTfn.status, badTfn.body.error.message]).toEqual([
      400,
      expect.stringContaining('taxFileNumber: must pass the ATO TFN check digit'),
    ]);
    expect(badTfn.body.error.message).not.toContain('876543211');
    const wrongField = await advance({ ...taxStep(e.id), fundName: 'x' });
    expect(wrongField.body.error.message).toContain('fundName: unknown field');

    const tax = await post('books.onboardingAdvance', taxStep(e.id), org, { 'x-idempotency-key': freshKey() });
    // The stored idempotent result carries the mask too.
    const stored = await t.db.reader.all<{ result: string }>('SELECT result FROM idempotency WHERE org_id = ?', [org.orgId]);
    expect(stored.map((r) => r.result).join('\n')).toContain('******210');
    expect(stored.map((r) => r.result).join('\n')).not.toContain(TFN);
    expect(tax.body.result).toMatchObject({
      status: 'onboarding',
      nextStep: 'super',
      taxDeclaration: {
        taxFileNumberMasked: '******210',
        tfnQuoted: true,
        residency: 'resident',
        claimsTaxFreeThreshold: true,
        taxScale: 2,
      },
    });
    expect(JSON.stringify(tax.body)).not.toContain(TFN);
    // The same step again with the same details is a no-op (idempotent by state); with other details CONFLICT.
    const again = await advance(taxStep(e.id));
    expect(again.body.result).toMatchObject({ noop: true, ledgerId: tax.body.result.ledgerId, nextStep: 'super' });
    const changed = await advance(taxStep(e.id, { taxFileNumber: '123456782' }));
    expect([changed.status, changed.body.error.message]).toEqual([
      409,
      expect.stringContaining('step tax_declaration is already done with other details; the next step is super'),
    ]);

    const badAbn = await advance({ id: e.id, step: 'super', ...FUND, fundAbn: '65 714 394 899' });
    expect([badAbn.status, badAbn.body.error.message]).toEqual([400, 'fundAbn: must pass the ABN check digits']);
    const sup = await advance({ id: e.id, step: 'super', ...FUND });
    expect(sup.body.result).toMatchObject({
      nextStep: 'contract',
      superFund: { fundName: 'AustralianSuper', fundAbn: '65714394898', memberNumber: 'M-123456' },
    });
    const back = await advance(taxStep(e.id));
    expect(back.body.error.message).toContain('step tax_declaration is out of order; the next step is contract');
  });

  it('the contract is a signature act: hold → approval.request → human approves → retry with proof → active', async () => {
    const e = await start({ name: 'Ben "The Hammer" Castellano' });
    await advance(taxStep(e.id));
    await advance({ id: e.id, step: 'super', ...FUND });
    const contract = { id: e.id, step: 'contract', title: 'Lead joiner' };
    const { hold, approvalId } = await heldAndRequested(t, org, 'books.onboardingAdvance', contract);
    expect(hold.approval.actionClass).toBe('books.onboarding_advance');
    const summary = hold.approval.subject.summary as string;
    // Employee, role, pay and start date in plain words; the agent's text quoted.
    expect(summary).toContain('Employ "Ben \\"The Hammer\\" Castellano"');
    expect(summary).toContain('as "Lead joiner", full-time, starting 2026-07-01');
    expect(summary).toContain('$72,800.00 a year, paid fortnightly ($2,800.00 gross a fortnight)');
    expect(summary).toContain('claims the tax-free threshold, TFN ******210, PAYG withheld at Schedule 1 Scale 2');
    expect(summary).toContain('super to "AustralianSuper" (ABN 65714394898');
    expect(summary).toContain('net pay to BSB 062-703 account *****344');
    expect(summary).not.toContain(TFN);
    // Still onboarding while held.
    const listed = await t.post(org.keys.reader, 'books.employees', {});
    expect(listed.body.result.employees.find((x: any) => x.id === e.id)).toMatchObject({ status: 'onboarding', nextStep: 'contract' });
    // Pending: not ready.
    const early = await post('books.onboardingAdvance', { ...contract, approvalId }, org, { 'x-idempotency-key': freshKey() });
    expect(early.status).toBe(423);
    await decide(t, org, approvalId, true);
    const done = await post('books.onboardingAdvance', { ...contract, approvalId }, org, { 'x-idempotency-key': freshKey() });
    expect(done.body.result).toMatchObject({ id: e.id, status: 'active', nextStep: null, title: 'Lead joiner' });
    const ev = (await eventsOf(t, org)).at(-1);
    expect(ev).toMatchObject({
      kind: 'books.employee.onboarding_advance',
      payload: { step: 'contract', status: 'active', nextStep: null, approvalId },
    });
    // The proof is spent; the same contract again is a no-op.
    const reused = await post('books.onboardingAdvance', { ...contract, approvalId }, org, { 'x-idempotency-key': freshKey() });
    expect([reused.status, reused.body.error.message]).toEqual([409, expect.stringContaining('already used')]);
    const noop = await advance(contract);
    expect(noop.body.result).toMatchObject({ noop: true, status: 'active', ledgerId: done.body.result.ledgerId });
    // The TFN is in no event payload of the organisation, hold summaries included.
    expect(await allEventText(org)).not.toContain(TFN);
    const holds = await t.db.reader.all<{ summary: string; params: string }>('SELECT summary, params FROM holds WHERE org_id = ?', [
      org.orgId,
    ]);
    expect(JSON.stringify(holds)).not.toContain(TFN);
  });

  it('the console shows the contract in plain words, and the owner approves it there', async () => {
    const e = await start({
      name: 'Chloe Tran',
      annualSalaryCents: undefined,
      hourlyRateCents: 3_250,
      hoursPerWeek: 25,
      employmentBasis: 'part_time',
      payFrequency: 'weekly',
    });
    await advance(taxStep(e.id, { claimsTaxFreeThreshold: false }));
    await advance({ id: e.id, step: 'super', ...FUND });
    const contract = { id: e.id, step: 'contract', title: 'Apprentice joiner' };
    const { approvalId } = await heldAndRequested(t, org, 'books.onboardingAdvance', contract);
    const login = await fetch(`${t.url}/console/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ org: org.slug, email: org.owner.email, password: org.owner.password }).toString(),
      redirect: 'manual',
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const page = await (await fetch(`${t.url}/console`, { headers: { cookie } })).text();
    expect(page).toContain('Issue an employment contract');
    expect(page).toContain(
      'as &quot;Apprentice joiner&quot;, part-time, starting 2026-07-01: $32.50 an hour for 25 hours a week, paid weekly ($812.50 gross a week)',
    );
    expect(page).toContain('does not claim the tax-free threshold, TFN ******210, PAYG withheld at Schedule 1 Scale 1');
    expect(page).not.toContain(TFN);
    const session = await (await fetch(`${t.url}/console/api/session`, { headers: { cookie } })).json();
    const decided = await fetch(`${t.url}/console/api/approvals/${approvalId}/approve`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': session.csrfToken, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(decided.status).toBe(200);
    const done = await post('books.onboardingAdvance', { ...contract, approvalId }, org, { 'x-idempotency-key': freshKey() });
    expect(done.body.result).toMatchObject({ status: 'active', title: 'Apprentice joiner', hoursPerWeek: 25 });
  });

  it('the contract needs decision rights; a reader cannot advance; another organisation gets NOT_FOUND', async () => {
    const bare = await t.org(undefined, { decisionRights: false });
    const e = await start({}, bare);
    await advance(taxStep(e.id), bare);
    await advance({ id: e.id, step: 'super', ...FUND }, bare);
    const refused = await advance({ id: e.id, step: 'contract', title: 'Joiner' }, bare);
    expect([refused.status, refused.body.error.message]).toEqual([
      423,
      expect.stringContaining('no decision rights are declared for books.onboarding_advance'),
    ]);
    const mine = await start();
    expect((await t.post(org.keys.reader, 'books.onboardingAdvance', taxStep(mine.id))).status).toBe(403);
    expect((await t.post(org.keys.reader, 'books.onboardingStart', START)).body.error.message).toBe(
      'missing scope books.write for books.onboardingStart',
    );
    const foreign = await advance(taxStep(mine.id), other);
    expect([foreign.status, foreign.body.error.message]).toEqual([404, `employee ${mine.id} not found`]);
  });

  it('not-quoted codes are kept as the code and withheld at the right scale; a foreign resident is Scale 3', async () => {
    const a = await start();
    const noTfn = await advance(taxStep(a.id, { taxFileNumber: '000000000' }));
    expect(noTfn.body.result.taxDeclaration).toMatchObject({ taxFileNumberMasked: '000000000', tfnQuoted: false, taxScale: 4 });
    const b = await start();
    const foreign = await advance(taxStep(b.id, { residency: 'foreign', claimsTaxFreeThreshold: false }));
    expect(foreign.body.result.taxDeclaration).toMatchObject({ residency: 'foreign', taxScale: 3 });
    const c = await start();
    const bad = await advance(taxStep(c.id, { residency: 'foreign' }));
    expect(bad.body.error.message).toBe('claimsTaxFreeThreshold: a foreign resident cannot claim the tax-free threshold');
  });

  it('leave: only for active, non-casual staff; above the balance with a warning; approval is a no-op the second time', async () => {
    const pending = await start();
    const leave = { leaveType: 'annual', startDate: '2026-09-07', endDate: '2026-09-11', hours: 38 };
    const notYet = await post('books.leaveRequest', { employeeId: pending.id, ...leave });
    expect([notYet.status, notYet.body.error.message]).toEqual([409, expect.stringContaining('is onboarding (next step tax_declaration)')]);
    const e = await activeEmployee();
    const r = await post('books.leaveRequest', { employeeId: e.id, ...leave });
    expect(r.body.result).toMatchObject({
      id: expect.stringMatching(/^lv_/),
      status: 'requested',
      warning: '38 hours exceed the available annual leave of 0 hours by 38 hours; approving it grants leave in advance of accrual',
      availableAfterMilliHours: -38_000,
    });
    const approved = await post('books.leaveApprove', { id: r.body.result.id });
    expect(approved.body.result).toMatchObject({ status: 'approved', warning: expect.stringContaining('exceed') });
    const again = await post('books.leaveApprove', { id: r.body.result.id });
    expect(again.body.result).toMatchObject({ noop: true, ledgerId: approved.body.result.ledgerId });
    expect((await post('books.leaveApprove', { id: r.body.result.id }, other)).status).toBe(404);
    expect((await post('books.leaveApprove', { id: 'lv_nosuch' })).body.error).toEqual({
      code: 'NOT_FOUND',
      message: 'leave request lv_nosuch not found',
    });
    // A repeated idempotency key replays the first request instead of filing a second one.
    const key = freshKey();
    const k1 = await post('books.leaveRequest', { employeeId: e.id, ...leave, hours: 3 }, org, { 'x-idempotency-key': key });
    const k2 = await post('books.leaveRequest', { employeeId: e.id, ...leave, hours: 3 }, org, { 'x-idempotency-key': key });
    expect(k2.body).toMatchObject({ code: 'IDEMPOTENT_REPLAY', result: { id: k1.body.result.id } });
    expect((await post('books.leaveRequest', { employeeId: e.id, ...leave }, other)).status).toBe(404);

    const casual = await activeEmployee(org, {
      employmentBasis: 'casual',
      annualSalaryCents: undefined,
      hourlyRateCents: 4_000,
      hoursPerWeek: 20,
    });
    const refused = await post('books.leaveRequest', { employeeId: casual.id, ...leave });
    expect([refused.status, refused.body.error.message]).toEqual([
      409,
      expect.stringContaining('casual employees accrue no paid annual or personal leave'),
    ]);

    const bad: [Record<string, unknown>, string][] = [
      [{ hours: 0 }, 'hours: must be a number greater than 0 and at most 2000 with at most 2 decimal places'],
      [{ hours: 7.555 }, 'hours: must be a number greater than 0 and at most 2000 with at most 2 decimal places'],
      [{ endDate: '2026-09-01' }, 'endDate: must not be before startDate'],
      [{ endDate: '2026-09-07', hours: 25 }, 'hours: must be at most 24 (24 a day from startDate to endDate)'],
      [{ leaveType: 'long_service' }, 'leaveType: must be one of annual, personal'],
      [{ startDate: '2026-06-01', endDate: '2026-06-02' }, "startDate: must not be before the employee's start date 2026-07-01"],
    ];
    for (const [patch, message] of bad) {
      const x = await post('books.leaveRequest', { employeeId: e.id, ...leave, ...patch });
      expect([x.status, x.body.error.message], JSON.stringify(patch)).toEqual([400, message]);
    }
    expect((await t.post(org.keys.reader, 'books.leaveRequest', { employeeId: e.id, ...leave })).status).toBe(403);
  });

  it('balances: accruals from pay runs less leave taken, approved and requested, in the employees read', async () => {
    const e = await activeEmployee();
    // Four fortnights of 76 ordinary hours accrue through the ledger API a pay run will use.
    for (let n = 1; n <= 4; n += 1) {
      await inUnitOfWork(t.db, org.orgId, '', async (uow) => {
        const ev = await uow.emit(testFixture, { entityId: e.id, payload: null });
        await accrueLeave(uow, {
          employeeId: e.id,
          basis: 'full_time',
          payRunId: `pay_t${n}`,
          onDate: '2026-07-16',
          ordinaryMilliHours: 76_000,
          ledgerId: ev.ledgerId,
        });
        return {};
      });
    }
    // 304 h × 4/52 = 23.384 h annual; × 2/52 = 11.692 h personal.
    const within = await post('books.leaveRequest', {
      employeeId: e.id,
      leaveType: 'personal',
      startDate: '2026-08-03',
      endDate: '2026-08-03',
      hours: 8,
    });
    expect(within.body.result).toMatchObject({ warning: null, availableAfterMilliHours: 3_692 });
    await post('books.leaveApprove', { id: within.body.result.id });
    await post('books.leaveRequest', { employeeId: e.id, leaveType: 'annual', startDate: '2026-08-10', endDate: '2026-08-10', hours: 7 });
    const read = await t.post(org.keys.reader, 'books.employees', { status: 'active' });
    const row = read.body.result.employees.find((x: any) => x.id === e.id);
    expect(row.leave).toEqual({
      annual: { balanceMilliHours: 23_384, approvedMilliHours: 0, requestedMilliHours: 7_000, availableMilliHours: 16_384 },
      personal: { balanceMilliHours: 11_692, approvedMilliHours: 8_000, requestedMilliHours: 0, availableMilliHours: 3_692 },
    });
    expect(row.taxDeclaration).toMatchObject({ taxFileNumberMasked: '******210', taxScale: 2 });
    // Paid in a pay run: the hours leave the balance and are no longer counted as approved.
    await inUnitOfWork(t.db, org.orgId, '', async (uow) => {
      const ev = await uow.emit(testFixture, { entityId: e.id, payload: null });
      await takeLeave(uow, { leaveId: within.body.result.id, payRunId: 'pay_t5', onDate: '2026-08-13', ledgerId: ev.ledgerId });
      return {};
    });
    const after = (await t.post(org.keys.reader, 'books.employees', {})).body.result.employees.find((x: any) => x.id === e.id);
    expect(after.leave.personal).toEqual({
      balanceMilliHours: 3_692,
      approvedMilliHours: 0,
      requestedMilliHours: 0,
      availableMilliHours: 3_692,
    });
    expect(JSON.stringify((await t.post(org.keys.reader, 'books.employees', {})).body)).not.toContain(TFN);
  });

  it('hostile bodies with real employee and leave ids of both organisations: never 5xx, a refusal appends nothing', async () => {
    const ids = [(await start()).id, (await activeEmployee()).id, (await start({}, other)).id, 'emp_nosuch'];
    const leave = await post('books.leaveRequest', {
      employeeId: ids[1]!,
      leaveType: 'annual',
      startDate: '2026-10-01',
      endDate: '2026-10-01',
      hours: 4,
    });
    ids.push(leave.body.result.id);
    const head = async () =>
      Number((await t.db.reader.get<{ s: number | null }>('SELECT MAX(seq) AS s FROM events WHERE org_id = ?', [org.orgId]))?.s ?? 0);
    const anyValue = fc.oneof(
      fc.constantFrom(...ids),
      fc.string({ maxLength: 12 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom(
        '000000000',
        '111111111',
        '123456789',
        '65714394898',
        '2026-07-01',
        '2026-02-30',
        'tax_declaration',
        'super',
        'contract',
        'annual',
        'resident',
        'foreign',
      ),
    );
    const body = fc.record({
      method: fc.constantFrom(
        'books.onboardingAdvance',
        'books.leaveRequest',
        'books.leaveApprove',
        'books.onboardingStart',
        'books.employees',
      ),
      params: fc.record(
        {
          id: fc.constantFrom(...ids),
          employeeId: fc.constantFrom(...ids),
          step: fc.constantFrom('tax_declaration', 'super', 'contract', 'x'),
          // The TFN only where it belongs: agent text elsewhere is echoed, as it should be.
          taxFileNumber: fc.oneof(anyValue, fc.constant(TFN)),
          residency: anyValue,
          claimsTaxFreeThreshold: anyValue,
          fundName: anyValue,
          fundAbn: anyValue,
          memberNumber: anyValue,
          title: anyValue,
          leaveType: anyValue,
          startDate: anyValue,
          endDate: anyValue,
          hours: anyValue,
          approvalId: anyValue,
          status: anyValue,
          cursor: anyValue,
        },
        { requiredKeys: [] },
      ),
    });
    await fc.assert(
      fc.asyncProperty(body, async ({ method, params }) => {
        const before = await head();
        const r = await post(method, params);
        const tag = `${method} ${JSON.stringify(params)} → ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`;
        expect(r.status, tag).toBeLessThan(500);
        if (r.status !== 200) expect(await head(), tag).toBe(before);
        expect(JSON.stringify(r.body), tag).not.toContain(TFN);
      }),
      { numRuns: 150 },
    );
    expect(await allEventText(org)).not.toContain(TFN);
  }, 120_000);

  it('employees read: scope, paging, status filter, a bad cursor names the cursor, other organisations unseen', async () => {
    expect((await t.post(org.keys.observer, 'books.employees', {})).body.error.message).toBe(
      'missing scope books.read for books.employees',
    );
    const first = await t.post(org.keys.reader, 'books.employees', { limit: 1 });
    expect(first.body.result.employees).toHaveLength(1);
    const second = await t.post(org.keys.reader, 'books.employees', { limit: 1, cursor: first.body.result.nextCursor });
    expect(second.body.result.employees[0].id > first.body.result.employees[0].id).toBe(true);
    const onboarding = await t.post(org.keys.reader, 'books.employees', { status: 'onboarding' });
    expect(onboarding.body.result.employees.every((x: any) => x.status === 'onboarding')).toBe(true);
    const mine = await start({}, other);
    const bad = await t.post(org.keys.reader, 'books.employees', { cursor: mine.id });
    expect([bad.status, bad.body.error.message]).toEqual([
      400,
      `cursor: no employee ${mine.id} in this organisation; pass the nextCursor of a previous page`,
    ]);
    const all = await t.post(org.keys.reader, 'books.employees', { limit: 200 });
    expect(all.body.result.employees.map((x: any) => x.id)).not.toContain(mine.id);
    await t.verifyAll();
  });
});
