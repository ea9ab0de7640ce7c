/**
 * An employer's whole financial year, 1 July 2025 – 30 June 2026, through HTTP on both engines,
 * every figure worked by hand below (docs/examples/payroll-year.md tells the same year). Nothing
 * expected here is computed by the code under test: the table is literals.
 *
 * Harbour Lane Cafe, Sydney, pays two full-time staff fortnightly, Monday to Sunday fortnights
 * paid the Wednesday after: 26 runs, the first for 23 June – 6 July 2025 paid 9 July 2025, the
 * last for 8 – 21 June 2026 paid 24 June 2026. Both started on 23 June 2025, both resident and
 * claiming the tax-free threshold (Scale 2), both with AustralianSuper.
 *
 * Rules (the sources, not the code): PAYG by ATO Schedule 1 in force on the payment date (the
 * 2024-07-01 coefficients: the ATO made no change for 2025-26): fortnightly earnings ÷ 2, cents
 * dropped, 99 cents added = weekly x; y = a·x − b rounded to the dollar; the fortnight's amount is
 * 2y. Scale 2 bands used: x < 625: a 0.26, b 107.8462; x < 721: a 0.18, b 57.8462; x < 1,282:
 * a 0.3227, b 180.0385; x < 2,596: a 0.32, b 176.5769. Super guarantee 12% (payments from 1 July
 * 2025) of ordinary time earnings (gross less overtime), half up. Leave: 4/52 of ordinary hours
 * (annual), 2/52 (personal), the running total floored to the milli-hour.
 *
 * Aroha Ngata, salaried, 38 h a week. $65,000 a year ÷ 26 = $2,500.00 a fortnight; a rise to
 *   $67,600 effective 7 July 2025 (the first fortnight starting in July; a rise applies from the
 *   first period starting on or after its date, so run 1, which started 23 June, is on the old
 *   salary) = $2,600.00.
 *   - $2,500: x = 1,250.99; 0.3227x − 180.0385 = 223.66 → $224, PAYG $448; super $300.00; net $2,052.00.
 *   - $2,600: x = 1,300.99; 0.32x − 176.5769 = 239.74 → $240, PAYG $480; super $312.00; net $2,120.00.
 * Ben Carter, hourly $31.50, 7.6-hour days, 38 h a week; hours given each run (76 = 10 days × 7.6).
 *   - 76 h = $2,394.00: x = 1,197.99; 0.3227x − 180.0385 = 206.55 → $207, PAYG $414; super
 *     $287.28; net $1,980.00.
 *   - run 6 (1 – 14 September, paid 17 September): 76 h and 4.5 h overtime × 1.5 = 31.50 × 4.5 ×
 *     1.5 = $212.625 → $212.63; gross $2,606.63; x = 1,303.99; 0.32x − 176.5769 = 240.70 → $241,
 *     PAYG $482; super on $2,394.00 only (overtime is not OTE) $287.28; net $2,124.63.
 *   - run 8 (29 September – 12 October, paid 15 October): Labour Day, Monday 6 October, worked at
 *     ×2.5: 68.4 h (9 days) = $2,154.60 and penalty 7.6 h × $31.50 × 2.5 = $598.50; gross
 *     $2,753.10; x = 1,376.99; 0.32x − 176.5769 = 264.06 → $264, PAYG $528; super 12% × $2,753.10
 *     (penalties are OTE) = $330.372 → $330.37; net $2,225.10. Leave accrues on 68.4 + 7.6 = 76 h.
 *   - He resigns (voluntary), employment ending Sunday 25 January 2026, with 17.5% leave loading.
 *     His final pay is run 16 (19 January – 1 February, paid 4 February), no hours given:
 *     prorated ordinary pay $31.50 × 76 h × 7 ÷ 14 days = $1,197.00 (38 h). Ordinary hours all
 *     year: runs 1–15, 15 × 76 = 1,140 h, plus 38 h = 1,178 h; annual leave ⌊1,178,000 × 4 ÷ 52⌋ =
 *     90,615 milli-hours, none taken (⌊1,140,000 × 4 ÷ 52⌋ = 87,692 accrued before this run, 2,923
 *     by it). Unused leave 90.615 h × $31.50 = $2,854.3725 → $2,854.37; loading 17.5% = $499.51475
 *     → $499.51; together $3,353.88. PAYG on $1,197: x = 598.99, 0.26x − 107.8462 = 47.89 → $48,
 *     $96. On the leave, the marginal method: $3,353.88 ÷ 26 = $128 (cents dropped); on $1,197 +
 *     $128 = $1,325: x = 662.99, 0.18x − 57.8462 = 61.49 → $61, $122; ($122 − $96) × 26 = $676,
 *     less than 47% × $3,353 = $1,575: $676.00. Gross $1,197.00 + $3,353.88 = $4,550.88; PAYG
 *     $96 + $676 = $772.00; super 12% × $1,197.00 = $143.64 (none on the leave); net $3,778.88.
 *     Later runs leave him out.
 *
 * Super paid with books.superPay, each held for and approved by a human: July–September through
 * its last payment date (17 September, 6 runs): Aroha $300 + 5 × $312 = $1,860.00, Ben 6 ×
 * $287.28 = $1,723.68, $3,583.68. October–December through 24 December (7 runs): Aroha 7 × $312 =
 * $2,184.00, Ben 6 × $287.28 + $330.37 = $2,054.05, $4,238.05. January–March through 18 March (6
 * runs): Aroha $1,872.00, Ben 2 × $287.28 + $143.64 = $718.20, $2,590.20. April–June: each run's
 * $312.00 alone, 7 payments. 2300 Superannuation payable is back to $0 after each.
 *
 * The year to date (STP finalisation, lodged in July 2026 in the story, today in the test):
 * Aroha gross $2,500 + 25 × $2,600 = $67,500.00, PAYG $448 + 25 × $480 = $12,448.00, super $300 + 25
 * × $312 = $8,100.00, net $55,052.00; annual leave 26 × 76 = 1,976 h → 152 h ($5,200.00 at
 * $67,600 ÷ 1,976 an hour), personal 76 h ($2,600.00). Ben gross 13 × $2,394 + $2,606.63 + $2,753.10
 * + $4,550.88 = $41,032.61 (salary and wages $37,466.10, overtime $212.63, unused leave on
 * termination $3,353.88), PAYG 13 × $414 + $482 + $528 + $772 = $7,164.00, super 13 × $287.28 +
 * $287.28 + $330.37 + $143.64 = $4,495.93, net $33,868.61; cessation 25 January 2026, type V.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { consoleJson, consoleSignIn } from './console-helpers.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { today } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

const AROHA = { name: 'Aroha Ngata', startDate: '2025-06-23', annualSalaryCents: 6_500_000 };
const BEN = { name: 'Ben Carter', startDate: '2025-06-23', hourlyRateCents: 3_150, hoursPerWeek: 38 };

/** One employee's line of a run by earnings type; terminationCents is unused leave and loading. */
interface Pay {
  ordinaryCents: number;
  overtimeCents: number;
  penaltyCents: number;
  terminationCents: number;
  grossCents: number;
  paygCents: number;
  superCents: number;
  netCents: number;
}
const pay = (p: Partial<Pay> & Pick<Pay, 'ordinaryCents' | 'grossCents' | 'paygCents' | 'superCents' | 'netCents'>): Pay => ({
  overtimeCents: 0,
  penaltyCents: 0,
  terminationCents: 0,
  ...p,
});

/** THE TABLE: each kind of run, how many of the 26 it is, and each employee's line (null: not paid). */
const TABLE = {
  first: {
    count: 1,
    aroha: pay({ ordinaryCents: 250_000, grossCents: 250_000, paygCents: 44_800, superCents: 30_000, netCents: 205_200 }),
    ben: pay({ ordinaryCents: 239_400, grossCents: 239_400, paygCents: 41_400, superCents: 28_728, netCents: 198_000 }),
  },
  ordinary: {
    count: 12,
    aroha: pay({ ordinaryCents: 260_000, grossCents: 260_000, paygCents: 48_000, superCents: 31_200, netCents: 212_000 }),
    ben: pay({ ordinaryCents: 239_400, grossCents: 239_400, paygCents: 41_400, superCents: 28_728, netCents: 198_000 }),
  },
  overtime: {
    count: 1,
    aroha: pay({ ordinaryCents: 260_000, grossCents: 260_000, paygCents: 48_000, superCents: 31_200, netCents: 212_000 }),
    ben: pay({
      ordinaryCents: 239_400,
      overtimeCents: 21_263,
      grossCents: 260_663,
      paygCents: 48_200,
      superCents: 28_728,
      netCents: 212_463,
    }),
  },
  publicHoliday: {
    count: 1,
    aroha: pay({ ordinaryCents: 260_000, grossCents: 260_000, paygCents: 48_000, superCents: 31_200, netCents: 212_000 }),
    ben: pay({
      ordinaryCents: 215_460,
      penaltyCents: 59_850,
      grossCents: 275_310,
      paygCents: 52_800,
      superCents: 33_037,
      netCents: 222_510,
    }),
  },
  final: {
    count: 1,
    aroha: pay({ ordinaryCents: 260_000, grossCents: 260_000, paygCents: 48_000, superCents: 31_200, netCents: 212_000 }),
    ben: pay({
      ordinaryCents: 119_700,
      terminationCents: 335_388,
      grossCents: 455_088,
      paygCents: 77_200,
      superCents: 14_364,
      netCents: 377_888,
    }),
  },
  arohaAlone: {
    count: 10,
    aroha: pay({ ordinaryCents: 260_000, grossCents: 260_000, paygCents: 48_000, superCents: 31_200, netCents: 212_000 }),
    ben: null,
  },
} as const;
type Kind = keyof typeof TABLE;

/** Ben's final pay (run 16) as the draft's line shows it. */
const BEN_FINAL_PAY = {
  terminationDate: '2026-01-25',
  cessationTypeCode: 'V',
  daysEmployed: 7,
  daysInPeriod: 14,
  unusedLeaveMilliHours: 90_615,
  unusedLeaveCents: 285_437,
  leaveLoadingCents: 49_951,
  terminationPaygCents: 67_600,
};

/** The 26 runs: period, payment date, kind. */
const RUNS: readonly [string, string, string, Kind][] = [
  ['2025-06-23', '2025-07-06', '2025-07-09', 'first'],
  ['2025-07-07', '2025-07-20', '2025-07-23', 'ordinary'],
  ['2025-07-21', '2025-08-03', '2025-08-06', 'ordinary'],
  ['2025-08-04', '2025-08-17', '2025-08-20', 'ordinary'],
  ['2025-08-18', '2025-08-31', '2025-09-03', 'ordinary'],
  ['2025-09-01', '2025-09-14', '2025-09-17', 'overtime'],
  ['2025-09-15', '2025-09-28', '2025-10-01', 'ordinary'],
  ['2025-09-29', '2025-10-12', '2025-10-15', 'publicHoliday'],
  ['2025-10-13', '2025-10-26', '2025-10-29', 'ordinary'],
  ['2025-10-27', '2025-11-09', '2025-11-12', 'ordinary'],
  ['2025-11-10', '2025-11-23', '2025-11-26', 'ordinary'],
  ['2025-11-24', '2025-12-07', '2025-12-10', 'ordinary'],
  ['2025-12-08', '2025-12-21', '2025-12-24', 'ordinary'],
  ['2025-12-22', '2026-01-04', '2026-01-07', 'ordinary'],
  ['2026-01-05', '2026-01-18', '2026-01-21', 'ordinary'],
  ['2026-01-19', '2026-02-01', '2026-02-04', 'final'],
  ['2026-02-02', '2026-02-15', '2026-02-18', 'arohaAlone'],
  ['2026-02-16', '2026-03-01', '2026-03-04', 'arohaAlone'],
  ['2026-03-02', '2026-03-15', '2026-03-18', 'arohaAlone'],
  ['2026-03-16', '2026-03-29', '2026-04-01', 'arohaAlone'],
  ['2026-03-30', '2026-04-12', '2026-04-15', 'arohaAlone'],
  ['2026-04-13', '2026-04-26', '2026-04-29', 'arohaAlone'],
  ['2026-04-27', '2026-05-10', '2026-05-13', 'arohaAlone'],
  ['2026-05-11', '2026-05-24', '2026-05-27', 'arohaAlone'],
  ['2026-05-25', '2026-06-07', '2026-06-10', 'arohaAlone'],
  ['2026-06-08', '2026-06-21', '2026-06-24', 'arohaAlone'],
];

/** Super paid a quarter at a time through its last payment date: the total, each employee's part, the runs. */
const QUARTERS = [
  { through: '2025-09-17', runs: 6, totalCents: 358_368, arohaCents: 186_000, benCents: 172_368, due: '2025-10-28' },
  { through: '2025-12-24', runs: 7, totalCents: 423_805, arohaCents: 218_400, benCents: 205_405, due: '2026-01-28' },
  { through: '2026-03-18', runs: 6, totalCents: 259_020, arohaCents: 187_200, benCents: 71_820, due: '2026-04-28' },
] as const;

/** The year to date of each. */
const YTD = {
  aroha: { grossCents: 6_750_000, paygWithheldCents: 1_244_800, superLiabilityCents: 810_000, netCents: 5_505_200 },
  ben: {
    grossCents: 4_103_261,
    salaryWagesCents: 3_746_610,
    overtimeCents: 21_263,
    unusedLeaveOnTerminationCents: 335_388,
    paygWithheldCents: 716_400,
    superLiabilityCents: 449_593,
    netCents: 3_386_861,
  },
};

describe.each(engines)("a cafe's payroll year 2025-26 by hand (%s)", (engine) => {
  let t: TestServer;
  let lodged: string;
  let o: CreatedOrg;
  let aroha: string;
  let ben: string;
  let superAccount: string;
  const runIds: string[] = [];

  beforeAll(async () => {
    lodged = mkdtempSync(join(tmpdir(), 'fd-year-stp-'));
    t = await startTestServer(engine, { lodgementOutboxDir: lodged, paymentsOutboxDir: mkdtempSync(join(tmpdir(), 'fd-year-pay-')) });
    o = await t.org('Harbour Lane Cafe');
  });
  afterAll(async () => t.close());

  const ok = async (method: string, params: Record<string, unknown>, headers?: Record<string, string>) => {
    const r = await t.post(o.keys.agent, method, params, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  /** Held, approved by the owner, retried with the proof: the hold and the result. */
  async function signed(method: string, params: Record<string, unknown>) {
    const { hold, approvalId } = await heldAndRequested(t, o, method, params);
    await decide(t, o, approvalId, true);
    return { hold, result: await ok(method, { ...params, approvalId }, { 'x-idempotency-key': freshKey() }) };
  }
  const balance2300 = async () => {
    const r = await t.db.reader.get<{ n: number | string | null }>(
      `SELECT SUM(credit_cents) - SUM(debit_cents) AS n FROM journal_lines WHERE org_id = ? AND account_code = '2300'`,
      [o.orgId],
    );
    return Number(r?.n ?? 0);
  };
  const annualLedger = async (employeeId: string, kind: string) => {
    const r = await t.db.reader.get<{ n: number | string | null }>(
      `SELECT SUM(milli_hours) AS n FROM leave_ledger WHERE org_id = ? AND employee_id = ? AND leave_type = 'annual' AND kind = ?`,
      [o.orgId, employeeId, kind],
    );
    return Number(r?.n ?? 0);
  };

  /** A line of a run by earnings type, as the table writes it. */
  function byType(line: any): Pay {
    const items = (type: string) => ((line.earnings ?? []) as any[]).filter((e) => e.type === type).reduce((n, e) => n + e.amountCents, 0);
    const termination = line.termination ? line.termination.unusedLeaveCents + line.termination.leaveLoadingCents : 0;
    return {
      ordinaryCents: line.grossCents - items('overtime') - items('penalty') - termination,
      overtimeCents: items('overtime'),
      penaltyCents: items('penalty'),
      terminationCents: termination,
      grossCents: line.grossCents,
      paygCents: line.paygCents,
      superCents: line.superCents,
      netCents: line.netCents,
    };
  }

  /** Ben's hours and earnings lines for each kind of run (none: his ordinary hours, or the final pay prorated). */
  function inputs(kind: Kind): Record<string, unknown> {
    if (kind === 'publicHoliday') {
      return {
        hours: [{ employeeId: ben, hours: 68.4 }],
        earnings: [{ employeeId: ben, type: 'penalty', hours: 7.6, multiplier: 2.5 }],
      };
    }
    if (kind === 'overtime') {
      return { hours: [{ employeeId: ben, hours: 76 }], earnings: [{ employeeId: ben, type: 'overtime', hours: 4.5, multiplier: 1.5 }] };
    }
    if (kind === 'final' || kind === 'arohaAlone') return {};
    return { hours: [{ employeeId: ben, hours: 76 }] };
  }

  /** Draft run i (0-based) for everyone active, check every line against the table, sign it. */
  async function payRun(i: number) {
    const [periodStart, periodEnd, paymentDate, kind] = RUNS[i]!;
    const run = await ok('books.payrollDraft', { periodStart, periodEnd, paymentDate, payFrequency: 'fortnightly', ...inputs(kind) });
    const row = TABLE[kind];
    const line = (id: string) => run.lines.find((l: any) => l.employeeId === id);
    expect(run.lines).toHaveLength(row.ben === null ? 1 : 2);
    expect(byType(line(aroha)), `run ${i + 1} Aroha`).toEqual(row.aroha);
    if (row.ben !== null) expect(byType(line(ben)), `run ${i + 1} Ben`).toEqual(row.ben);
    const { hold, result } = await signPayRun(t, o, run.id);
    expect(result.status).toBe('signed');
    runIds.push(run.id);
    return { run, hold, line };
  }

  /** Super through a date (a quarter) or of one run, held for the human; 2300 is back to 0 after it. */
  async function paySuper(params: Record<string, unknown>) {
    const { hold, result } = await signed('books.superPay', { ...params, paymentDate: today(), fundingAccountId: superAccount });
    expect(await balance2300()).toBe(0);
    return { summary: hold.approval.subject.summary as string, result };
  }

  it('the table adds up to 26 runs, each listed once', () => {
    expect(Object.values(TABLE).reduce((n, r) => n + r.count, 0)).toBe(RUNS.length);
    for (const [kind, row] of Object.entries(TABLE)) expect(RUNS.filter((r) => r[3] === kind).length, kind).toBe(row.count);
  });

  it('onboarding before the year and a pay rise from the first fortnight starting in July', async () => {
    aroha = await activeEmployee(t, o, AROHA);
    ben = await activeEmployee(t, o, BEN);
    const s = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    const acct = await consoleJson(t, s, 'POST', '/console/api/bank-accounts', {
      kind: 'bank',
      name: 'Cafe cheque account',
      bsb: '062-000',
      accountNumber: '12345678',
    });
    expect(acct.status, acct.text).toBe(200);
    superAccount = acct.body.result.account.id;
    const rise = await ok('books.employeeUpdate', { id: aroha, effectiveFrom: '2025-07-07', annualSalaryCents: 6_760_000 });
    expect(rise.change).toEqual({ effectiveFrom: '2025-07-07', changed: ['annualSalaryCents'] });
  });

  it('July–September: the old salary once, the rise, overtime; super for the quarter through its last payment date', async () => {
    for (let i = 0; i < 6; i += 1) await payRun(i);
    expect(await balance2300()).toBe(358_368);
    const q = QUARTERS[0];
    const { summary, result } = await paySuper({ through: q.through });
    expect(result.totalCents).toBe(q.totalCents);
    expect(result.payRuns.map((r: any) => r.payRunId)).toEqual(runIds.slice(0, 6));
    expect(result.funds).toEqual([expect.objectContaining({ fundName: 'AustralianSuper', amountCents: q.totalCents, employeeCount: 2 })]);
    expect(summary).toContain(`Pay $3,583.68 of super guarantee on ${today()}`);
    expect(summary).toContain('"Aroha Ngata" $1,860.00');
    expect(summary).toContain('"Ben Carter" $1,723.68');
    expect(summary).toContain(`${runIds[0]} (2025-06-23 to 2025-07-06, paid 2025-07-09, super $587.28, due ${q.due}`);
  });

  it('October–December: the Labour Day shift at ×2.5; super for the quarter', async () => {
    for (let i = 6; i < 13; i += 1) await payRun(i);
    const q = QUARTERS[1];
    const { summary, result } = await paySuper({ through: q.through });
    expect(result.totalCents).toBe(q.totalCents);
    expect(result.payRuns.map((r: any) => r.payRunId)).toEqual(runIds.slice(6, 13));
    expect(summary).toContain('"Aroha Ngata" $2,184.00');
    expect(summary).toContain('"Ben Carter" $2,054.05');
    expect(summary).toContain(`paid 2025-10-15, super $642.37, due ${q.due}`);
  });

  it('January–March: Ben resigns, his final pay pays out his unused leave with loading; super for the quarter', async () => {
    for (let i = 13; i < 15; i += 1) await payRun(i);
    const done = await ok('books.employeeTerminate', {
      employeeId: ben,
      terminationDate: '2026-01-25',
      reason: 'voluntary',
      leaveLoadingPercent: 17.5,
    });
    expect(done).toMatchObject({ status: 'active', terminationDate: '2026-01-25', cessationTypeCode: 'V', leaveLoadingPercent: '17.50' });
    const { line, hold } = await payRun(15);
    expect(line(ben).termination).toEqual(BEN_FINAL_PAY);
    expect(hold.approval.subject.summary).toContain(
      '"Ben Carter" gross $4,550.88 (final pay: employed to 2026-01-25, 7 of 14 days of the period; unused annual leave 90.615 h ' +
        'paid out $2,854.37 plus leave loading $499.51, tax on it $676.00, no super on it), tax $772.00',
    );
    // His leave: every accrual of the year, then paid out to nothing.
    expect(await annualLedger(ben, 'accrual')).toBe(90_615);
    expect(await annualLedger(ben, 'payout')).toBe(-90_615);
    // Later runs leave him out (the table's arohaAlone rows have one line).
    for (let i = 16; i < 19; i += 1) await payRun(i);
    const q = QUARTERS[2];
    const { summary, result } = await paySuper({ through: q.through });
    expect(result.totalCents).toBe(q.totalCents);
    expect(result.payRuns.map((r: any) => r.payRunId)).toEqual(runIds.slice(13, 19));
    expect(summary).toContain('"Aroha Ngata" $1,872.00');
    expect(summary).toContain('"Ben Carter" $718.20');
  });

  it('April–June: super paid run by run', async () => {
    for (let i = 19; i < 26; i += 1) {
      const { run } = await payRun(i);
      const { result } = await paySuper({ payRunIds: [run.id] });
      expect(result).toMatchObject({ totalCents: 31_200, payRuns: [{ payRunId: run.id, superCents: 31_200 }] });
    }
    const paid = await t.db.reader.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM super_payments WHERE org_id = ?', [o.orgId]);
    expect(Number(paid?.n)).toBe(10);
  });

  it('the year in the reports: payroll activity by earnings type, Aroha’s leave at 30 June', async () => {
    const report = async (params: Record<string, unknown>) => {
      const r = await t.post(o.keys.reader, 'books.reports', params);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.result;
    };
    const activity = await report({ type: 'payroll_activity', from: '2025-07-01', to: '2026-06-30' });
    const of = (id: string) => activity.employees.find((e: any) => e.employeeId === id);
    expect(of(aroha)).toMatchObject({
      earnings: { salaryWagesCents: 6_750_000, paidLeaveCents: 0 },
      grossCents: YTD.aroha.grossCents,
      paygWithheldCents: YTD.aroha.paygWithheldCents,
      superCents: YTD.aroha.superLiabilityCents,
      netCents: YTD.aroha.netCents,
    });
    expect(of(ben)).toMatchObject({
      earnings: {
        salaryWagesCents: YTD.ben.salaryWagesCents,
        paidLeaveCents: 0,
        overtimeCents: YTD.ben.overtimeCents,
        unusedLeaveOnTerminationCents: YTD.ben.unusedLeaveOnTerminationCents,
      },
      grossCents: YTD.ben.grossCents,
      paygWithheldCents: YTD.ben.paygWithheldCents,
      superCents: YTD.ben.superLiabilityCents,
      netCents: YTD.ben.netCents,
    });
    const leave = await report({ type: 'leave_balances', asOf: '2026-06-30' });
    expect(leave.employees).toEqual([
      expect.objectContaining({
        employeeId: aroha,
        annualSalaryCents: 6_760_000,
        annual: { milliHours: 152_000, valueCents: 520_000 },
        personal: { milliHours: 76_000, valueCents: 260_000 },
      }),
    ]);
  });

  it('STP finalised for both after the year, Ben with his cessation', async () => {
    const { hold, result } = await signed('books.stpFinalise', { financialYear: '2025-26' });
    const summary = hold.approval.subject.summary as string;
    expect(summary).toContain('Finalise Single Touch Payroll for the financial year 2025-26 (1 July 2025 to 30 June 2026) for 2 employees');
    expect(summary).toContain('"Aroha Ngata" YTD gross $67,500.00, PAYG withheld $12,448.00, super $8,100.00');
    expect(summary).toContain('"Ben Carter" YTD gross $41,032.61, PAYG withheld $7,164.00, super $4,495.93');
    expect(result).toMatchObject({ kind: 'finalisation', financialYear: '2025-26' });
    const byId = (id: string) => result.employees.find((e: any) => e.employeeId === id);
    const { netCents: _a, ...arohaYtd } = YTD.aroha;
    expect(byId(aroha)).toEqual({ employeeId: aroha, name: 'Aroha Ngata', ...arohaYtd });
    expect(byId(ben)).toEqual({
      employeeId: ben,
      name: 'Ben Carter',
      grossCents: YTD.ben.grossCents,
      paygWithheldCents: YTD.ben.paygWithheldCents,
      superLiabilityCents: YTD.ben.superLiabilityCents,
    });

    // The document lodged: each payee's final year to date, split by type; Ben's cessation.
    let doc: any;
    for (let i = 0; i < 100 && doc === undefined; i += 1) {
      await t.server.outbox.kick();
      const row = await t.db.reader.get<{ status: string; receipt_sha256: string | null }>(
        'SELECT status, receipt_sha256 FROM stp_submissions WHERE org_id = ? AND id = ?',
        [o.orgId, result.submissionId],
      );
      if (row?.status === 'lodged') {
        const bytes = readFileSync(join(lodged, `${result.submissionId}.json`));
        expect(row.receipt_sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
        doc = JSON.parse(bytes.toString('utf8'));
      } else await new Promise((r) => setTimeout(r, 20));
    }
    expect(doc, 'the finalisation was lodged').toBeDefined();
    const payee = (id: string) => doc.stp_pay_event.payees.find((p: any) => p.employeeId === id);
    expect(payee(aroha)).toMatchObject({
      finalEvent: true,
      ytd: { salaryWagesCents: 6_750_000, paidLeaveCents: 0, ...arohaYtd },
    });
    expect(payee(aroha).cessation).toBeUndefined();
    const { netCents: _b, ...benYtd } = YTD.ben;
    expect(payee(ben)).toMatchObject({
      finalEvent: true,
      cessation: { date: '2026-01-25', typeCode: 'V' },
      ytd: { paidLeaveCents: 0, ...benYtd },
    });
  });
});
