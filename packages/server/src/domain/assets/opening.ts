import type { corrections } from '@finance-desk/protocol';
import type { z } from 'zod';
import { DomainError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';
import type { PostingLine } from '../gl/post.js';
import { daysInclusive } from './depreciation.js';
import { recordDepreciation } from './store.js';

/**
 * Fixed assets carried in by books.openingBalances. The old books hold each at cost on 1500 with
 * the depreciation taken so far on 1510; the conversion journal posts exactly that per asset
 * (docId = the asset), and each asset enters the register active, started on the conversion date
 * (the register equals 1500 − 1510 from then) and depreciated to it: the next run depreciates it
 * from the day after, prime cost on its cost and diminishing value on its written-down value, as
 * if the register had always held it. The depreciation carried in is one 1510 amount dated the
 * conversion date, kept apart (opening_accumulated_cents) so the depreciation schedule does not
 * count it as the year's. Its acquired date is when it was first used: the tax schedule's start.
 */
type OpeningAsset = NonNullable<z.infer<typeof corrections.openingBalances.params>['assets']>[number];

export interface PlannedOpeningAsset {
  readonly id: string;
  readonly a: OpeningAsset;
}

const bad = (field: string, message: string) => new DomainError('BAD_REQUEST', `${field}: ${message}`, { field });

/** Each acquired on or before the conversion date (the schema keeps accumulated depreciation within cost). */
export function checkOpeningAssets(assets: readonly OpeningAsset[], conversionDate: string): void {
  for (const [i, a] of assets.entries()) {
    if (a.acquiredDate > conversionDate) {
      throw bad(
        `assets[${i}].acquiredDate`,
        `${a.acquiredDate} is after conversionDate ${conversionDate}; bring it in by books.journalPost instead`,
      );
    }
  }
}

export const planOpeningAssets = (assets: readonly OpeningAsset[]): PlannedOpeningAsset[] => assets.map((a) => ({ id: newId('ast'), a }));

/** Dr 1500 at cost and Cr 1510 at the depreciation taken, per asset. */
export function openingAssetLines(planned: readonly PlannedOpeningAsset[]): PostingLine[] {
  return planned.flatMap(({ id, a }) => [
    { account: { key: 'fixed_assets' }, debitCents: a.costCents, docId: id, description: `Opening balance: ${a.name} (${id}) at cost` },
    {
      account: { key: 'accumulated_depreciation' },
      creditCents: a.accumulatedDepreciationCents,
      docId: id,
      description: `Opening balance: ${a.name} (${id}) depreciation to conversion`,
    },
  ]);
}

/** After the conversion's event: each asset on the register, depreciated to the conversion date. */
export async function registerOpeningAssets(
  uow: Uow,
  planned: readonly PlannedOpeningAsset[],
  conversion: { readonly date: string; readonly journalId: string; readonly ledgerId: string },
): Promise<void> {
  for (const [i, { id, a }] of planned.entries()) {
    await uow.tx.run(
      `INSERT INTO assets (org_id, id, name, method, life_years, start_date, cost_cents, source_kind, source_id,
         source_line_no, journal_id, status, accumulated_cents, depreciated_to, ledger_id, created_at, tax_treatment,
         acquired_on, opening_accumulated_cents)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'opening_balances', ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?)`,
      [
        uow.orgId,
        id,
        a.name,
        a.method,
        a.effectiveLifeYears,
        conversion.date,
        a.costCents,
        uow.orgId,
        i + 1,
        conversion.journalId,
        a.accumulatedDepreciationCents,
        conversion.date,
        conversion.ledgerId,
        uow.now,
        a.taxTreatment ?? 'same_as_book',
        a.acquiredDate,
        a.accumulatedDepreciationCents,
      ],
    );
    if (a.accumulatedDepreciationCents > 0) {
      await recordDepreciation(uow, {
        assetId: id,
        date: conversion.date,
        runId: null,
        from: a.acquiredDate,
        days: daysInclusive(a.acquiredDate, conversion.date),
        amountCents: a.accumulatedDepreciationCents,
        journalId: conversion.journalId,
      });
    }
  }
}
