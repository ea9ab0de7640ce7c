import type { assets } from '@finance-desk/protocol';
import { events } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';
import { newJournalId, postJournal, type PostingLine } from '../gl/post.js';
import { daysInclusive, depreciationCents, isMonthEnd, periodStart } from './depreciation.js';
import { activeAssets, pendingAssetCount, recordDepreciation, type AssetRow } from './store.js';

/**
 * books.assetDepreciationRun: every active asset depreciated to a month's last day, one
 * journal Dr 6400 Depreciation / Cr 1510 Accumulated depreciation with a pair of lines per asset
 * (docId = the asset, so 1510 is traceable per asset), dated periodEnd. Runs go forward: a rerun
 * of a periodEnd is a no-op answering the first run; an earlier month than the last run is
 * CONFLICT, since later periods have already been depreciated from the book value it would change.
 * Pending assets (no effective life yet) are skipped and counted (`pendingSkipped`); registered
 * later, they are depreciated by the next run from their start date.
 */
type Params = z.infer<typeof assets.assetDepreciationRun.params>;

interface RunRow {
  id: string;
  period_end: string;
  total_cents: number;
  pending_skipped: number;
  journal_id: string | null;
  ledger_id: string;
}

interface Amount {
  readonly asset: AssetRow;
  readonly from: string;
  readonly days: number;
  readonly amountCents: number;
}

async function runResult(uow: Uow, run: RunRow) {
  const rows = await uow.tx.all<{ asset_id: string; amount_cents: number }>(
    'SELECT asset_id, amount_cents FROM asset_depreciation WHERE org_id = ? AND run_id = ? ORDER BY asset_id',
    [uow.orgId, run.id],
  );
  return {
    runId: run.id,
    periodEnd: run.period_end,
    assets: rows.map((r) => ({ assetId: r.asset_id, amountCents: Number(r.amount_cents) })),
    totalCents: Number(run.total_cents),
    pendingSkipped: Number(run.pending_skipped),
    journalId: run.journal_id,
    ledgerId: run.ledger_id,
  };
}

/** Refusals about periodEnd itself (BAD_REQUEST naming it) or about the runs so far (CONFLICT). */
async function checkPeriodEnd(uow: Uow, periodEnd: string): Promise<RunRow | null> {
  if (!isMonthEnd(periodEnd)) throw badRequest(`periodEnd: must be the last day of a month (${periodEnd} is not)`);
  if (periodEnd > uow.today) throw badRequest(`periodEnd: ${periodEnd} is in the future (today is ${uow.today})`);
  const runs = await uow.tx.all<RunRow>(
    `SELECT id, period_end, total_cents, pending_skipped, journal_id, ledger_id FROM asset_runs
     WHERE org_id = ? AND period_end >= ? ORDER BY period_end DESC`,
    [uow.orgId, periodEnd],
  );
  const same = runs.find((r) => r.period_end === periodEnd);
  if (same) return same;
  const last = runs[0];
  if (last) throw conflict(`depreciation has been run to ${last.period_end}; a run for an earlier month (${periodEnd}) cannot follow it`);
  return null;
}

function amountsFor(rows: readonly AssetRow[], periodEnd: string): Amount[] {
  return rows.flatMap((asset) => {
    const from = periodStart(asset.start_date, asset.depreciated_to);
    const days = daysInclusive(from, periodEnd);
    const amountCents = depreciationCents({
      method: asset.method,
      costCents: asset.cost_cents,
      lifeYears: asset.life_years,
      accumulatedCents: asset.accumulated_cents,
      days,
    });
    return amountCents > 0 ? [{ asset, from, days, amountCents }] : [];
  });
}

/** Dr 6400 / Cr 1510 for each asset's amount; 1510's line names the asset (docId). */
export function depreciationLines(asset: AssetRow, amountCents: number, what: string): PostingLine[] {
  const description = `${what}: ${asset.name} (${asset.id})`;
  return [
    { account: { key: 'depreciation' }, debitCents: amountCents, description, docId: asset.id },
    { account: { key: 'accumulated_depreciation' }, creditCents: amountCents, description, docId: asset.id },
  ];
}

export async function assetDepreciationRun(p: Params, uow: Uow) {
  const done = await checkPeriodEnd(uow, p.periodEnd);
  if (done) return { ...(await runResult(uow, done)), noop: true };
  const held = await activeAssets(uow, p.periodEnd);
  const pendingSkipped = await pendingAssetCount(uow, p.periodEnd);
  const amounts = amountsFor(held, p.periodEnd);
  const runId = newId('dep');
  const totalCents = amounts.reduce((s, a) => s + a.amountCents, 0);
  const journalId = amounts.length > 0 ? newJournalId() : null;
  const list = [...amounts].sort((a, b) => (a.asset.id < b.asset.id ? -1 : 1));
  if (journalId !== null) {
    await postJournal(uow, {
      id: journalId,
      date: p.periodEnd,
      memo: `Depreciation to ${p.periodEnd}`,
      source: { kind: 'asset_depreciation', id: runId },
      lines: list.flatMap((a) => depreciationLines(a.asset, a.amountCents, `Depreciation to ${p.periodEnd}`)),
    });
  }
  const event = await uow.emit(events.assetDepreciate, {
    entityId: runId,
    payload: {
      runId,
      periodEnd: p.periodEnd,
      totalCents,
      journalId,
      assets: list.map((a) => ({ assetId: a.asset.id, amountCents: a.amountCents })),
      pendingSkipped,
    },
  });
  await uow.tx.run(
    'INSERT INTO asset_runs (org_id, id, period_end, total_cents, pending_skipped, journal_id, ledger_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [uow.orgId, runId, p.periodEnd, totalCents, pendingSkipped, journalId, event.ledgerId, uow.now],
  );
  for (const a of list) {
    await recordDepreciation(uow, {
      assetId: a.asset.id,
      date: p.periodEnd,
      runId,
      from: a.from,
      days: a.days,
      amountCents: a.amountCents,
      journalId: journalId ?? '',
    });
  }
  // Every asset held is depreciated to periodEnd, also one with nothing left to depreciate.
  for (const a of held) {
    const mine = amounts.find((x) => x.asset.id === a.id)?.amountCents ?? 0;
    await uow.tx.run('UPDATE assets SET accumulated_cents = accumulated_cents + ?, depreciated_to = ? WHERE org_id = ? AND id = ?', [
      mine,
      p.periodEnd,
      uow.orgId,
      a.id,
    ]);
  }
  return {
    runId,
    periodEnd: p.periodEnd,
    assets: list.map((a) => ({ assetId: a.asset.id, amountCents: a.amountCents })),
    totalCents,
    pendingSkipped,
    journalId,
    ledgerId: event.ledgerId,
  };
}
