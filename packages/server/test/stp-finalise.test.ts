/**
 * STP finalisation and amendment through HTTP on both engines: a year of signed runs for two
 * employees is finalised by a human's signature (hold → approval → retry with the proof), the
 * update event queued through the lodgement adapter with each payee's YTD (the sums of their
 * signed runs) and finalEvent, and lodged once the adapter confirms. A run recalled or signed
 * later shows as amendmentNeeded; amending needs a reason; the same figures again are a no-op.
 * books.stpSubmissions lists every kind, newest first, paged, and no TFN reaches a reader.
 * Migration 39's backfill of existing submissions is checked on an older schema.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalFacts } from '../src/governance/approval-facts.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { consoleGet, consoleSignIn } from './console-helpers.js';
import { agentCalls, engines, openTestDatabase, startTestServer, type TestServer } from './harness.js';
import { eventsOf, inDays, today } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

const TFN = '876543210';
const AROHA = { name: 'Aroha Ngata', annualSalaryCents: 7_280_000 };
const CHLOE = { name: 'Chloe Park', annualSalaryCents: 3_770_000 };
const FORTNIGHT = { payFrequency: 'fortnightly' };
const RUNS = [
  { periodStart: '2026-06-19', periodEnd: '2026-07-02', paymentDate: '2026-07-02', ...FORTNIGHT },
  { periodStart: '2026-07-03', periodEnd: '2026-07-16', paymentDate: '2026-07-16', ...FORTNIGHT },
  { periodStart: '2026-07-17', periodEnd: '2026-07-30', paymentDate: '2026-07-30', ...FORTNIGHT },
];
const YEAR = '2026-27';

/** The label of the financial year `years` after today's. */
function yearFromToday(years: number): string {
  const d = today();
  const start = Number(d.slice(0, 4)) - (Number(d.slice(5, 7)) >= 7 ? 0 : 1) + years;
  return `${start}-${String((start + 1) % 100).padStart(2, '0')}`;
}

interface Line {
  employeeId: string;
  grossCents: number;
  paygCents: number;
  superCents: number;
}

describe.each(engines)('STP finalisation and amendment (%s)', (engine) => {
  let t: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-stp-final-'));
    t = await startTestServer(engine, { lodgementOutboxDir: dir });
  });
  afterAll(async () => t.close());

  const { post, ok } = agentCalls(() => t);
  const employee = (o: CreatedOrg, start: Record<string, unknown>) => activeEmployee(t, o, start, { tfn: TFN });
  const signed = async (o: CreatedOrg, params: Record<string, unknown>) => {
    const run = await ok(o, 'books.payrollDraft', params);
    return (await signPayRun(t, o, run.id as string)).result as { id: string; lines: Line[] };
  };

  /** Held, approved by the owner, retried with the proof: the executed result and the hold. */
  async function finalise(o: CreatedOrg, params: Record<string, unknown>, key = freshKey()) {
    const { hold, approvalId } = await heldAndRequested(t, o, 'books.stpFinalise', params);
    await decide(t, o, approvalId, true);
    const done = await post(o, 'books.stpFinalise', { ...params, approvalId }, { 'x-idempotency-key': key });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    return { hold, approvalId, result: done.body.result, key };
  }

  const submissionsCount = async (o: CreatedOrg) =>
    Number((await t.db.reader.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM stp_submissions WHERE org_id = ?', [o.orgId]))?.n);

  async function waitLodged(o: CreatedOrg, id: string) {
    for (let i = 0; i < 200; i += 1) {
      await t.server.outbox.kick();
      const row = await t.db.reader.get<{ status: string }>('SELECT status FROM stp_submissions WHERE org_id = ? AND id = ?', [
        o.orgId,
        id,
      ]);
      if (row?.status === 'lodged') return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`STP submission ${id} was not lodged`);
  }

  /** Every submission through books.stpSubmissions, page by page. */
  async function allSubmissions(o: CreatedOrg, filter: Record<string, unknown> = {}, limit = 2) {
    const out: any[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page += 1) {
      const r = await t.post(o.keys.reader, 'books.stpSubmissions', { ...filter, limit, ...(cursor ? { cursor } : {}) });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      out.push(...r.body.result.submissions);
      cursor = r.body.result.nextCursor;
      if (cursor === null) return out;
    }
    throw new Error('too many pages');
  }

  /** The sums of the runs' lines for one employee: what a YTD must be. */
  function sums(runs: readonly { lines: Line[] }[], employeeId: string) {
    const lines = runs.flatMap((r) => r.lines.filter((l) => l.employeeId === employeeId));
    const add = (k: 'grossCents' | 'paygCents' | 'superCents') => lines.reduce((n, l) => n + l[k], 0);
    return { grossCents: add('grossCents'), paygWithheldCents: add('paygCents'), superLiabilityCents: add('superCents') };
  }

  /**
   * How many events the organisation's acts appended: the lodgement channel confirms queued
   * submissions in the background (books.stp.lodged, by the system), so those are not counted.
   */
  const acts = async (o: CreatedOrg) => (await eventsOf(t, o)).filter((e) => e.kind !== 'books.stp.lodged').length;

  async function noTfnInEvents(o: CreatedOrg) {
    const rows = await t.db.reader.all<{ payload: string }>('SELECT payload FROM events WHERE org_id = ?', [o.orgId]);
    for (const r of rows) expect(r.payload).not.toContain(TFN);
  }

  it('finalises a year held for a human, lodges it, flags later changes, amends with a reason, and lists every kind', async () => {
    const o = await t.org();
    const aroha = await employee(o, AROHA);
    const chloe = await employee(o, CHLOE);
    const r1 = await signed(o, RUNS[0]!);
    const r2 = await signed(o, RUNS[1]!);
    // A draft paid in the year blocks finalising: sign or recall it first.
    const draft3 = await ok(o, 'books.payrollDraft', RUNS[2]!);
    const blocked = await post(o, 'books.stpFinalise', { financialYear: YEAR });
    expect(blocked.status).toBe(409);
    expect(blocked.body.error.message).toContain(draft3.id);
    expect(blocked.body.error.message).toContain('sign or recall');
    const r3 = (await signPayRun(t, o, draft3.id as string)).result as { id: string; lines: Line[] };
    // A run paid later in the year (before its payment date, so it can still be recalled).
    const pay = inDays(7);
    const later = await signed(o, { periodStart: inDays(-6), periodEnd: pay, paymentDate: pay, ...FORTNIGHT });
    const all = [r1, r2, r3, later];

    // Held: the human reads the year, each employee's YTD, and what finalising does.
    const before = await submissionsCount(o);
    const { hold, approvalId, result, key } = await finalise(o, { financialYear: YEAR });
    const summary = hold.approval.subject.summary as string;
    expect(hold.approval.actionClass).toBe('books.payroll_sign');
    expect(hold.subjectId).toMatch(/^stpfy_2026-27_[0-9a-f]{16}$/);
    expect(summary).toContain('Finalise Single Touch Payroll for the financial year 2026-27 (1 July 2026 to 30 June 2027) for 2 employees');
    expect(summary).toContain('"Aroha Ngata" YTD gross $11,200.00, PAYG withheld $2,136.00, super $1,344.00');
    expect(summary).toContain('"Chloe Park"');
    expect(summary).toContain('income statements for 2026-27 tax ready');
    expect(summary).not.toContain(TFN);
    expect(result).toMatchObject({
      submissionId: expect.stringMatching(/^stp_/),
      kind: 'finalisation',
      status: 'queued',
      financialYear: YEAR,
    });
    expect(result.employees).toEqual(
      [
        { employeeId: aroha, name: 'Aroha Ngata', ...sums(all, aroha) },
        { employeeId: chloe, name: 'Chloe Park', ...sums(all, chloe) },
      ].sort((a, b) => a.employeeId.localeCompare(b.employeeId)),
    );
    expect(sums(all, aroha)).toEqual({ grossCents: 4 * 280_000, paygWithheldCents: 4 * 53_400, superLiabilityCents: 4 * 33_600 });
    expect(await submissionsCount(o)).toBe(before + 1);
    // The same key again replays the answer: no second submission.
    const replay = await post(o, 'books.stpFinalise', { financialYear: YEAR, approvalId }, { 'x-idempotency-key': key });
    expect(replay.body.result).toEqual(result);
    expect(await submissionsCount(o)).toBe(before + 1);

    // Its event: ids, kind, year, employees, the proof; never a TFN.
    const ev = (await eventsOf(t, o)).filter((e) => e.kind === 'books.stp.finalise');
    expect(ev).toHaveLength(1);
    expect(ev[0].payload).toEqual({
      submissionId: result.submissionId,
      kind: 'finalisation',
      financialYear: YEAR,
      employeeIds: [aroha, chloe].sort(),
      reason: null,
      approvalId,
    });

    // The document: the lodgement kind of every STP event, about no pay run, each payee final with YTD = the runs' sums.
    await waitLodged(o, result.submissionId);
    const bytes = readFileSync(join(dir, `${result.submissionId}.json`));
    const doc = JSON.parse(bytes.toString('utf8'));
    expect(doc).toMatchObject({ kind: 'stp_pay_event', id: result.submissionId });
    expect(doc.stp_pay_event).toMatchObject({
      submissionKind: 'finalisation',
      reason: null,
      payRun: null,
      financialYear: { start: '2026-07-01', end: '2027-06-30' },
    });
    for (const id of [aroha, chloe]) {
      const p = doc.stp_pay_event.payees.find((x: any) => x.employeeId === id);
      const s = sums(all, id);
      expect(p).toMatchObject({ tfn: TFN, finalEvent: true, employmentBasis: 'full_time' });
      expect(p.ytd).toMatchObject({
        grossCents: s.grossCents,
        salaryWagesCents: s.grossCents,
        paidLeaveCents: 0,
        paygWithheldCents: s.paygWithheldCents,
        superLiabilityCents: s.superLiabilityCents,
      });
    }
    const lodged = (await eventsOf(t, o)).filter((e) => e.kind === 'books.stp.lodged' && e.payload.id === result.submissionId);
    expect(lodged).toHaveLength(1);
    expect(lodged[0].payload).toMatchObject({ payRunId: null, kind: 'finalisation' });

    // The same figures again: a no-op answering the submission, no hold, no event.
    const seq = await acts(o);
    const again = await ok(o, 'books.stpFinalise', { financialYear: YEAR });
    expect(again).toMatchObject({ submissionId: result.submissionId, kind: 'finalisation', status: 'lodged', noop: true });
    expect(await acts(o)).toBe(seq);

    // A reader sees the finalisation, lodged with its receipt; nothing to amend yet.
    let listed = await allSubmissions(o, { kind: 'finalisation' });
    expect(listed).toEqual([
      {
        id: result.submissionId,
        kind: 'finalisation',
        status: 'lodged',
        payRunId: null,
        financialYear: YEAR,
        employeeCount: 2,
        reason: null,
        amendmentNeeded: [],
        createdAt: expect.any(String),
        lodgedAt: expect.any(String),
        receipt: { fileName: `${result.submissionId}.json`, sha256: createHash('sha256').update(bytes).digest('hex') },
      },
    ]);

    // Recalling a run of the finalised year leaves it finalised, and flags both employees to amend.
    await ok(o, 'books.payrollRecall', { id: later.id, reason: 'paid twice' });
    listed = await allSubmissions(o, { kind: 'finalisation' });
    expect(listed[0].amendmentNeeded).toEqual([aroha, chloe].sort());
    // Amending needs a reason (nothing changes without one).
    const seq2 = await acts(o);
    const noReason = await post(o, 'books.stpFinalise', { financialYear: YEAR });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.field).toBe('reason');
    expect(await acts(o)).toBe(seq2);
    const amended = await finalise(o, { financialYear: YEAR, reason: 'pay run recalled' });
    expect(amended.hold.approval.subject.summary).toContain(
      'Amend the Single Touch Payroll finalisation of the financial year 2026-27 (1 July 2026 to 30 June 2027) for 2 employees, because "pay run recalled"',
    );
    expect(amended.hold.approval.subject.summary).toContain('(last reported: gross $11,200.00');
    expect(amended.result).toMatchObject({ kind: 'amendment', status: 'queued' });
    const now3 = [r1, r2, r3];
    expect(amended.result.employees.find((e: any) => e.employeeId === chloe)).toMatchObject(sums(now3, chloe));
    await waitLodged(o, amended.result.submissionId);
    const amendDoc = JSON.parse(readFileSync(join(dir, `${amended.result.submissionId}.json`), 'utf8'));
    expect(amendDoc.stp_pay_event).toMatchObject({ submissionKind: 'amendment', reason: 'pay run recalled', payRun: null });
    expect(amendDoc.stp_pay_event.payees.find((x: any) => x.employeeId === aroha).ytd.grossCents).toBe(3 * 280_000);
    // The amendment is now each employee's newest: nothing to amend on either.
    expect((await allSubmissions(o, { financialYear: YEAR })).every((s) => s.amendmentNeeded.length === 0)).toBe(true);
    expect((await ok(o, 'books.stpFinalise', { financialYear: YEAR, employeeIds: [chloe] })).submissionId).toBe(
      amended.result.submissionId,
    );

    // A run signed later in the year flags the employees it pays on the amendment.
    const pay2 = inDays(21);
    await signed(o, { periodStart: inDays(8), periodEnd: pay2, paymentDate: pay2, ...FORTNIGHT, employeeIds: [aroha] });
    await ok(o, 'books.stpResubmit', { payRunId: r1.id, reason: 'the ATO asked again' });
    const every = await allSubmissions(o);
    expect(every.map((s) => s.id)).toEqual([...every.map((s) => s.id)].sort().reverse());
    expect(new Set(every.map((s) => s.kind))).toEqual(new Set(['pay', 'correction', 'resubmission', 'finalisation', 'amendment']));
    expect(every.find((s) => s.kind === 'amendment')).toMatchObject({
      id: amended.result.submissionId,
      reason: 'pay run recalled',
      amendmentNeeded: [aroha],
      payRunId: null,
      employeeCount: 2,
    });
    expect(every.find((s) => s.kind === 'correction')).toMatchObject({ payRunId: later.id, financialYear: YEAR, employeeCount: 2 });
    expect(every.filter((s) => s.kind === 'pay').map((s) => s.payRunId)).toHaveLength(5);
    expect(await allSubmissions(o, { kind: 'pay', financialYear: YEAR }, 50)).toHaveLength(5);
    expect(await allSubmissions(o, { financialYear: '2025-26' })).toEqual([]);
    expect(JSON.stringify(every)).not.toContain(TFN);
    // Another organisation sees none of them.
    expect(await allSubmissions(await t.org())).toEqual([]);

    // A reader key gets the finalisation document with the TFNs masked.
    const files = (await t.get(o.keys.reader, 'books.files?kind=stp_pay_event&limit=200')).body.files as any[];
    const file = files.find((f) => f.source === result.submissionId);
    const served = await t.get(o.keys.reader, `books.file?id=${file.id}`);
    expect(served.body).toMatchObject({ masked: true, sha256: createHash('sha256').update(bytes).digest('hex') });
    const text = Buffer.from(served.body.contentBase64 as string, 'base64').toString('utf8');
    expect(text).not.toContain(TFN);
    expect(JSON.parse(text).stp_pay_event.payees.map((p: any) => p.tfn)).toEqual(['******210', '******210']);
    await noTfnInEvents(o);
  });

  it('refuses: a year not begun or malformed, an employee with no signed run, another organisation, a reader; nothing changes', async () => {
    const o = await t.org();
    const aroha = await employee(o, AROHA);
    await signed(o, RUNS[0]!);
    const chloe = await employee(o, CHLOE);
    const seq = await acts(o);
    const subs = await submissionsCount(o);

    const future = await post(o, 'books.stpFinalise', { financialYear: yearFromToday(1) });
    expect(future.status).toBe(400);
    expect(future.body.error.field).toBe('financialYear');
    expect(future.body.error.message).toContain('has not begun');
    for (const bad of ['2026', '2026-28', '2026/27']) {
      const r = await post(o, 'books.stpFinalise', { financialYear: bad });
      expect(r.status, bad).toBe(400);
      expect(r.body.error.field).toBe('financialYear');
    }
    const twice = await post(o, 'books.stpFinalise', { financialYear: YEAR, employeeIds: [aroha, aroha] });
    expect(twice.status).toBe(400);
    expect(twice.body.error.field).toBe('employeeIds');

    const unpaid = await post(o, 'books.stpFinalise', { financialYear: YEAR, employeeIds: [aroha, chloe] });
    expect(unpaid.status).toBe(409);
    expect(unpaid.body.error.message).toContain(chloe);
    expect(unpaid.body.error.message).not.toContain(aroha);
    // An earlier year nobody was paid in has nothing to finalise.
    const empty = await post(o, 'books.stpFinalise', { financialYear: '2024-25' });
    expect(empty.status).toBe(409);
    expect(empty.body.error.message).toContain('nothing to finalise');

    const stranger = await t.org();
    expect((await post(stranger, 'books.stpFinalise', { financialYear: YEAR, employeeIds: [aroha] })).status).toBe(404);
    expect((await t.post(o.keys.reader, 'books.stpFinalise', { financialYear: YEAR })).status).toBe(403);
    const badCursor = await t.post(o.keys.reader, 'books.stpSubmissions', { cursor: 'stp_nope' });
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.error.field).toBe('cursor');
    const badKind = await t.post(o.keys.reader, 'books.stpSubmissions', { kind: 'final' });
    expect(badKind.status).toBe(400);
    expect(badKind.body.error.field).toBe('kind');

    expect(await acts(o)).toBe(seq);
    expect(await submissionsCount(o)).toBe(subs);
  });

  it('a proof for one set of figures cannot finalise another; the card is titled for the act, not a pay run', async () => {
    const o = await t.org();
    const aroha = await employee(o, AROHA);
    await signed(o, RUNS[0]!);
    const { approvalId, hold } = await heldAndRequested(t, o, 'books.stpFinalise', { financialYear: YEAR });
    const s = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    const inbox = await consoleGet(t, s, '/console');
    expect(inbox.text).toContain('Finalise or amend Single Touch Payroll for a financial year');
    expect(inbox.text).not.toContain('Sign a pay run');
    expect(inbox.text).toContain('Aroha Ngata');
    expect(inbox.text).toContain('tax ready');
    // The facts of a finalisation are not a pay run's (no payment, no account): none, and no throw.
    const facts = await approvalFacts(
      t.db.reader,
      o.orgId,
      { actionClass: 'books.payroll_sign', subjectId: hold.subjectId as string, params: {} },
      today(),
    );
    expect(facts).toMatchObject({ amount: null, toWhom: null, fromAccount: null, paymentDate: null });

    await decide(t, o, approvalId, true);
    // A run signed between the approval and the retry changes the figures, so the subject.
    await signed(o, RUNS[1]!);
    const stale = await post(o, 'books.stpFinalise', { financialYear: YEAR, approvalId }, { 'x-idempotency-key': freshKey() });
    expect(stale.status).toBe(409);
    expect(stale.body.error.message).toContain(`bound to subject ${hold.subjectId as string}`);
    const fresh = await finalise(o, { financialYear: YEAR, employeeIds: [aroha] });
    expect(fresh.result.employees[0]).toMatchObject({ employeeId: aroha, grossCents: 2 * 280_000 });
  });
});

describe.each(engines)('migration 39: STP submissions keep their rows and gain their year (%s)', (engine) => {
  it('backfills financial_year from the run and employee_count from its lines; pay_run_id may be null after', async () => {
    const { db, drop } = await openTestDatabase(engine);
    try {
      await db.migrate({ throughId: 38 });
      await db.write(async (tx) => {
        const run = (id: string, paymentDate: string) =>
          tx.run(
            `INSERT INTO pay_runs (org_id, id, status, period_start, period_end, payment_date, pay_frequency, run_key, params_hash,
               gross_cents, payg_cents, super_cents, net_cents, created_at, ledger_id)
             VALUES ('org_a', ?, 'signed', ?, ?, ?, 'fortnightly', ?, 'h', 100, 10, 12, 90, '2026-01-01T00:00:00.000Z', '1')`,
            [id, paymentDate, paymentDate, paymentDate, id],
          );
        const line = (runId: string, employeeId: string) =>
          tx.run(
            `INSERT INTO pay_run_lines (org_id, pay_run_id, employee_id, line_no, name, employment_basis, gross_cents, payg_cents,
               super_cents, net_cents, leave_hours, leave_cents, leave_ids, ordinary_milli_hours, tax_scale, confirmed)
             VALUES ('org_a', ?, ?, 1, 'N', 'full_time', 100, 10, 12, 90, 0, 0, '[]', 0, 2, 1)`,
            [runId, employeeId],
          );
        const sub = (id: string, runId: string) =>
          tx.run(
            `INSERT INTO stp_submissions (org_id, id, pay_run_id, kind, status, outbox_id, created_at, ledger_id)
             VALUES ('org_a', ?, ?, 'pay', 'queued', 'lodg_1', '2026-01-01T00:00:00.000Z', '2')`,
            [id, runId],
          );
        await run('pay_june', '2026-06-30');
        await run('pay_july', '2026-07-01');
        await line('pay_june', 'emp_1');
        await line('pay_july', 'emp_1');
        await line('pay_july', 'emp_2');
        await sub('stp_1', 'pay_june');
        await sub('stp_2', 'pay_july');
        return null;
      });
      await db.migrate();
      const rows = await db.reader.all<Record<string, unknown>>(
        'SELECT id, pay_run_id, financial_year, employee_count, kind, status FROM stp_submissions ORDER BY id',
      );
      expect(rows.map((r) => ({ ...r, employee_count: Number(r.employee_count) }))).toEqual([
        { id: 'stp_1', pay_run_id: 'pay_june', financial_year: '2025-26', employee_count: 1, kind: 'pay', status: 'queued' },
        { id: 'stp_2', pay_run_id: 'pay_july', financial_year: '2026-27', employee_count: 2, kind: 'pay', status: 'queued' },
      ]);
      await db.write((tx) =>
        tx.run(
          `INSERT INTO stp_submissions (org_id, id, pay_run_id, financial_year, employee_count, kind, status, outbox_id, created_at, ledger_id)
           VALUES ('org_a', 'stp_3', NULL, '2026-27', 2, 'finalisation', 'queued', 'lodg_2', '2026-01-02T00:00:00.000Z', '3')`,
        ),
      );
      await expect(
        db.write((tx) =>
          tx.run(
            `INSERT INTO stp_submissions (org_id, id, pay_run_id, financial_year, employee_count, kind, status, outbox_id, created_at, ledger_id)
             VALUES ('org_a', 'stp_3', NULL, '2026-27', 2, 'finalisation', 'queued', 'lodg_2', '2026-01-02T00:00:00.000Z', '3')`,
          ),
        ),
      ).rejects.toThrow();
    } finally {
      await db.close();
      await drop();
    }
  });
});
