import { events, maskDigits, people, type EventPayloadOf } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict, invariant } from '../../errors.js';
import { quoted } from '../../governance/quote.js';
import { signatureHandler, type SignatureAct } from '../../governance/signature.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { describePay, loadEmployee, toEmployee, type EmployeeRow } from './employees.js';
import { maskedTfn, taxScaleFor, tfnQuoted } from './tax-treatment.js';

/**
 * books.onboardingAdvance: tax_declaration → super → contract, in order as chase steps go: out
 * of order is CONFLICT naming the next step; repeating the last step done with the same
 * details is a no-op, with other details CONFLICT (there is no silent correction of a TFN or
 * a fund). The contract step is the signature act `books.onboarding_advance`: held for a human
 * whose summary the server writes from the record (agent text quoted, the TFN masked); with the
 * proof the employee becomes `active`. The TFN is written only to its column: the event payload
 * and every answer carry it masked to its last 3 digits.
 */
type Full = z.infer<typeof people.onboardingAdvance.params>;
type Params = Full extends infer T ? (T extends unknown ? Omit<T, 'approvalId' | 'signatureToken'> : never) : never;
type Step = Params['step'];

interface Subject {
  readonly row: EmployeeRow;
  readonly today: string;
}

const ORDER: readonly Step[] = ['tax_declaration', 'super', 'contract'];

/** The step done last: the one before next_step, `contract` once active, null before any. */
function lastDone(row: EmployeeRow): Step | null {
  if (row.next_step === null) return 'contract';
  return ORDER[ORDER.indexOf(row.next_step) - 1] ?? null;
}

/** Whether a repeated step carries the details already recorded (compared, never echoed). */
function sameDetails(p: Params, row: EmployeeRow): boolean {
  switch (p.step) {
    case 'tax_declaration':
      return (
        row.tfn === p.taxFileNumber &&
        row.residency === p.residency &&
        (Number(row.claims_tax_free_threshold) === 1) === p.claimsTaxFreeThreshold
      );
    case 'super':
      return row.super_fund_name === p.fundName && row.super_fund_abn === p.fundAbn && row.super_member_number === p.memberNumber;
    case 'contract':
      return row.title === p.title;
  }
}

function state(p: Params, s: Subject): ResultOf<typeof people.onboardingAdvance> | null {
  const { row } = s;
  if (p.step === row.next_step) return null;
  if (p.step === lastDone(row)) {
    if (sameDetails(p, row)) return { ...toEmployee(row, s.today), noop: true };
    throw conflict(
      `employee ${row.id}: step ${p.step} is already done with other details; ` +
        `the next step is ${row.next_step ?? 'none (onboarding is complete)'}`,
    );
  }
  throw conflict(
    `employee ${row.id}: step ${p.step} is out of order; the next step is ` + `${row.next_step ?? 'none (onboarding is complete)'}`,
  );
}

const BASIS_WORDS = { full_time: 'full-time', part_time: 'part-time', casual: 'casual' } as const;

function taxWords(row: EmployeeRow, today: string): string {
  if (row.tfn === null || row.residency === null || row.tax_declared_on === null) return 'no tax declaration';
  const claims = Number(row.claims_tax_free_threshold) === 1;
  const scale = taxScaleFor(
    { tfn: row.tfn, residency: row.residency, claimsTaxFreeThreshold: claims, declaredOn: row.tax_declared_on },
    today,
  );
  const tfn = tfnQuoted(row.tfn) ? `TFN ${maskedTfn(row.tfn)}` : `no TFN quoted (ATO code ${row.tfn})`;
  const who = row.residency === 'foreign' ? 'foreign resident' : 'Australian resident';
  return `${who}, ${claims ? 'claims' : 'does not claim'} the tax-free threshold, ${tfn}, PAYG withheld at Schedule 1 Scale ${scale}`;
}

/** What the human approves: the employee, role, pay and start date, in plain words. */
function summary(p: Params, s: Subject): string {
  const { row } = s;
  const title = p.step === 'contract' ? p.title : '';
  const fund = row.super_fund_name
    ? `super to ${quoted(row.super_fund_name)} (ABN ${row.super_fund_abn ?? ''}, member ${quoted(row.super_member_number ?? '')})`
    : 'no super fund';
  const bank =
    row.bank_bsb && row.bank_account_number
      ? `net pay to BSB ${row.bank_bsb} account ${maskDigits(row.bank_account_number)}`
      : 'no bank account given yet';
  return (
    `Employ ${quoted(row.name)} (${row.id}) as ${quoted(title)}, ${BASIS_WORDS[row.employment_basis]}, ` +
    `starting ${row.start_date}: ${describePay(row)}; ${taxWords(row, s.today)}; ${fund}; ${bank}`
  );
}

/** Record a step: its event payload (typed by step, protocol events.onboardingAdvance) names the next one. */
async function move(
  uow: Uow,
  s: Subject,
  set: string,
  values: readonly (string | number)[],
  payload: EventPayloadOf<typeof events.onboardingAdvance>,
) {
  const from = s.row.next_step;
  invariant(from === payload.step, 'a step is only executed when it is the next one');
  const next: Step | null = payload.nextStep;
  const event = await uow.emit(events.onboardingAdvance, { entityId: s.row.id, payload });
  const moved = await uow.tx.run(
    `UPDATE employees SET ${set}, next_step = ?, status = ?, updated_at = ?, ledger_id = ?
     WHERE org_id = ? AND id = ? AND next_step = ?`,
    [...values, next, next === null ? 'active' : 'onboarding', uow.now, event.ledgerId, uow.orgId, s.row.id, from],
  );
  invariant(moved.changes === 1, 'an onboarding step is recorded once');
  return toEmployee(await loadEmployee(uow.tx, uow.orgId, s.row.id), uow.today);
}

async function execute(p: Params, s: Subject, uow: Uow): Promise<ResultOf<typeof people.onboardingAdvance>> {
  switch (p.step) {
    case 'tax_declaration': {
      const claims = p.claimsTaxFreeThreshold ? 1 : 0;
      const scale = taxScaleFor(
        { tfn: p.taxFileNumber, residency: p.residency, claimsTaxFreeThreshold: p.claimsTaxFreeThreshold, declaredOn: uow.today },
        uow.today,
      );
      return move(
        uow,
        s,
        'tfn = ?, residency = ?, claims_tax_free_threshold = ?, tax_declared_on = ?',
        [p.taxFileNumber, p.residency, claims, uow.today],
        {
          step: 'tax_declaration',
          // Never the TFN itself: its last 3 digits, or the not-quoted code (which identifies no one).
          taxFileNumber: maskedTfn(p.taxFileNumber),
          residency: p.residency,
          claimsTaxFreeThreshold: p.claimsTaxFreeThreshold,
          taxScale: scale,
          status: 'onboarding',
          nextStep: 'super',
        },
      );
    }
    case 'super':
      return move(uow, s, 'super_fund_name = ?, super_fund_abn = ?, super_member_number = ?', [p.fundName, p.fundAbn, p.memberNumber], {
        step: 'super',
        fundName: p.fundName,
        fundAbn: p.fundAbn,
        memberNumber: p.memberNumber,
        status: 'onboarding',
        nextStep: 'contract',
      });
    case 'contract':
      return move(uow, s, 'title = ?', [p.title], {
        step: 'contract',
        title: p.title,
        startDate: s.row.start_date,
        status: 'active',
        nextStep: null,
      });
  }
}

export const onboardingAct: SignatureAct<Params, Subject, typeof people.onboardingAdvance> = {
  spec: people.onboardingAdvance,
  load: async (p, uow) => ({ row: await loadEmployee(uow.tx, uow.orgId, p.id, uow.caps.forUpdate), today: uow.today }),
  subjectId: (s) => s.row.id,
  // Only the contract is a signature act (it makes the employment contract).
  needsProof: (p) => p.step === 'contract',
  summary,
  state,
  execute,
};

export const onboardingAdvance = signatureHandler<Full, Subject, typeof people.onboardingAdvance>(onboardingAct);
