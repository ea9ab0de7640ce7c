import { loadProfile } from '../../org/profile.js';
import { events, tax } from '@finance-desk/protocol';
import { actionClassOf } from '../../governance/signature.js';
import type { z } from 'zod';
import { badRequest, conflict, invariant, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { basDueOn, basFigures, frequencyOf, type Basis, type Figures } from './figures.js';

const TAX_SIGN_LODGE = actionClassOf(tax.taxSignLodge);

/**
 * books.taxPrepare, books.taxHold, books.taxReturn (docs/books.md "Tax (BAS)"). A BAS is
 * prepared from the ledger for a period that has ended, one per period; it can be held (it then
 * cannot be signed) and returned to prepared with its figures recomputed. Nothing is posted
 * until taxSignLodge (lodge.ts).
 */
export type BasStatus = z.infer<typeof tax.basStatus>;

export interface BasRow {
  id: string;
  period_start: string;
  period_end: string;
  basis: string;
  status: BasStatus;
  figures: string;
  note: string | null;
  journal_id: string | null;
  outbox_id: string | null;
  receipt_file: string | null;
  receipt_sha256: string | null;
  lodged_at: string | null;
  prepared_at: string;
  ledger_id: string;
}

export const BAS_COLUMNS =
  'id, period_start, period_end, basis, status, figures, note, journal_id, outbox_id, receipt_file, receipt_sha256, ' +
  'lodged_at, prepared_at, ledger_id';

export const figuresOf = (row: BasRow): Figures => JSON.parse(row.figures) as Figures;

export const basisOf = (row: Pick<BasRow, 'basis'>): Basis => (row.basis === 'cash' ? 'cash' : 'accrual');

/** The BAS as every result and read shows it: a receipt only once it is lodged. */
export function toBas(row: BasRow) {
  const f = figuresOf(row);
  const lodged = row.status === 'lodged' && row.receipt_file !== null && row.receipt_sha256 !== null && row.lodged_at !== null;
  return {
    id: row.id,
    status: row.status,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    frequency: frequencyOf(row.period_start, row.period_end),
    basis: basisOf(row),
    dueOn: basDueOn(row.period_start, row.period_end),
    labels: f.labels,
    exactCents: f.exactCents,
    summary: f.summary,
    netCents: f.netCents,
    note: row.note,
    journalId: row.journal_id,
    receipt: lodged ? { fileName: row.receipt_file ?? '', sha256: row.receipt_sha256 ?? '', lodgedAt: row.lodged_at ?? '' } : null,
    preparedAt: row.prepared_at,
    ledgerId: row.ledger_id,
  };
}

export async function loadBas(q: Queryable, orgId: string, id: string, lock = ''): Promise<BasRow> {
  const row = await q.get<BasRow>(`SELECT ${BAS_COLUMNS} FROM bas_returns WHERE org_id = ? AND id = ?${lock}`, [orgId, id]);
  if (!row) throw notFound('BAS', id);
  return row;
}

/** Event payloads name the period and the front of the form (integers only, no fractions). */
function eventPayload<X extends object = Record<never, never>>(
  row: Pick<BasRow, 'id' | 'period_start' | 'period_end' | 'basis'>,
  f: Figures,
  extra: X = {} as X,
) {
  return {
    id: row.id,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    basis: basisOf(row),
    labels: f.labels,
    netCents: f.netCents,
    ...extra,
  };
}

type PrepareParams = z.infer<typeof tax.taxPrepare.params>;

/** One BAS per period (a no-op for the same prepared period; CONFLICT for anything else in the way). */
async function existingFor(uow: Uow, p: PrepareParams, basis: string) {
  const rows = await uow.tx.all<BasRow>(
    `SELECT ${BAS_COLUMNS} FROM bas_returns WHERE org_id = ? AND period_start <= ? AND period_end >= ?
     ORDER BY period_start, id`,
    [uow.orgId, p.periodEnd, p.periodStart],
  );
  for (const row of rows) {
    const same = row.period_start === p.periodStart && row.period_end === p.periodEnd;
    if (same && row.status === 'prepared' && row.basis === basis) return { ...toBas(row), noop: true };
    if (!same) {
      throw conflict(
        `BAS ${row.id} (${row.period_start} to ${row.period_end}, ${row.status}) overlaps this period; one BAS covers each period`,
      );
    }
    if (row.status === 'held') throw conflict(`BAS ${row.id} for this period is held; books.taxReturn brings it back to prepared`);
    if (row.status === 'prepared') throw conflict(`BAS ${row.id} for this period is prepared on the ${row.basis} basis`);
    throw conflict(`BAS ${row.id} for this period is ${row.status}; a lodged period cannot be prepared again`);
  }
  return null;
}

export async function taxPrepare(p: PrepareParams, uow: Uow) {
  // An omitted basis is the organisation profile's GST basis (default accrual).
  const basis = p.basis ?? (await loadProfile(uow.tx, uow.orgId)).gstBasis;
  if (p.periodEnd >= uow.today) {
    throw badRequest(`periodEnd: the period has not ended (today is ${uow.today}); prepare its BAS from the day after ${p.periodEnd}`);
  }
  const noop = await existingFor(uow, p, basis);
  if (noop) return noop;
  const id = newId('bas');
  const f = await basFigures(uow.tx, uow.orgId, p.periodStart, p.periodEnd, basis);
  const row0 = { id, period_start: p.periodStart, period_end: p.periodEnd, basis };
  const event = await uow.emit(events.taxPrepare, { entityId: id, payload: eventPayload(row0, f) });
  const row: BasRow = {
    ...row0,
    status: 'prepared',
    figures: JSON.stringify(f),
    note: null,
    journal_id: null,
    outbox_id: null,
    receipt_file: null,
    receipt_sha256: null,
    lodged_at: null,
    prepared_at: uow.now,
    ledger_id: event.ledgerId,
  };
  await uow.tx.run(
    `INSERT INTO bas_returns (org_id, id, period_start, period_end, basis, status, figures, prepared_at, ledger_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [uow.orgId, id, row.period_start, row.period_end, basis, row.status, row.figures, uow.now, event.ledgerId, uow.now],
  );
  return toBas(row);
}

type ReasonParams = z.infer<typeof tax.taxHold.params>;

export async function taxHold(p: ReasonParams, uow: Uow) {
  const row = await loadBas(uow.tx, uow.orgId, p.id, uow.caps.forUpdate);
  if (row.status === 'held') return { ...toBas(row), noop: true };
  if (row.status !== 'prepared') throw conflict(`BAS ${row.id} is ${row.status}; only a prepared BAS can be held`);
  const event = await uow.emit(events.taxHold, {
    entityId: row.id,
    payload: eventPayload(row, figuresOf(row), { reason: p.reason }),
  });
  const moved = await uow.tx.run('UPDATE bas_returns SET status = ?, note = ?, ledger_id = ? WHERE org_id = ? AND id = ? AND status = ?', [
    'held',
    p.reason,
    event.ledgerId,
    uow.orgId,
    row.id,
    'prepared',
  ]);
  invariant(moved.changes === 1, `BAS ${row.id} moves from prepared to held once`);
  return toBas({ ...row, status: 'held', note: p.reason, ledger_id: event.ledgerId });
}

/**
 * Approvals for the BAS as it was can no longer complete the act: an approved one is spent (named
 * by this return's ledgerId), a pending one expires now, so the console moves it out of the
 * inbox instead of asking a human to sign figures that have changed.
 */
async function withdrawApprovals(uow: Uow, basId: string, ledgerId: string): Promise<void> {
  const which = 'org_id = ? AND action_class = ? AND subject_id = ? AND used_at IS NULL';
  const args = [uow.orgId, TAX_SIGN_LODGE, basId];
  await uow.tx.run(`UPDATE approvals SET used_at = ?, used_ledger_id = ? WHERE ${which} AND status = 'approved'`, [
    uow.now,
    ledgerId,
    ...args,
  ]);
  await uow.tx.run(`UPDATE approvals SET expires_at = ? WHERE ${which} AND status = 'pending' AND expires_at > ?`, [
    uow.now,
    ...args,
    uow.now,
  ]);
}

/**
 * A new act every call (each appends its event): figures recomputed from the ledger now. Approvals
 * given for the BAS as it was are spent (and its open holds released), so what a human signs is
 * always the figures the BAS carries when it is lodged.
 */
export async function taxReturn(p: ReasonParams, uow: Uow) {
  const row = await loadBas(uow.tx, uow.orgId, p.id, uow.caps.forUpdate);
  if (row.status !== 'prepared' && row.status !== 'held') {
    throw conflict(`BAS ${row.id} is ${row.status}; only a prepared or held BAS can be returned`);
  }
  const f = await basFigures(uow.tx, uow.orgId, row.period_start, row.period_end, basisOf(row));
  const event = await uow.emit(events.taxReturn, {
    entityId: row.id,
    payload: eventPayload(row, f, { from: row.status, reason: p.reason }),
  });
  const figures = JSON.stringify(f);
  await uow.tx.run('UPDATE bas_returns SET status = ?, figures = ?, note = ?, prepared_at = ?, ledger_id = ? WHERE org_id = ? AND id = ?', [
    'prepared',
    figures,
    p.reason,
    uow.now,
    event.ledgerId,
    uow.orgId,
    row.id,
  ]);
  await withdrawApprovals(uow, row.id, event.ledgerId);
  await uow.tx.run('UPDATE holds SET released_at = ? WHERE org_id = ? AND action_class = ? AND subject_id = ? AND released_at IS NULL', [
    uow.now,
    uow.orgId,
    TAX_SIGN_LODGE,
    row.id,
  ]);
  return toBas({ ...row, status: 'prepared', figures, note: p.reason, prepared_at: uow.now, ledger_id: event.ledgerId });
}
