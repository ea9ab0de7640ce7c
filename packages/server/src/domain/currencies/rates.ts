import { currencies as spec, events, limits } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { addDays } from '../../clock.js';
import { DomainError, invariant } from '../../errors.js';
import { mulDivHalfUp } from '../../money.js';
import type { Queryable, SqlValue } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';

/**
 * The owner's exchange rates (books.exchangeRateSet, books.exchangeRates) and how a foreign
 * document or payment finds its rate. A rate is AUD per one unit of the currency, kept as an
 * integer of millionths: "0.912345" is 912345, so converting cents is one integer multiply and
 * a half-up division (mulDivHalfUp), never a float.
 */
type SetParams = z.infer<typeof spec.exchangeRateSet.params>;
type ReadParams = z.infer<typeof spec.exchangeRates.params>;

/** The currency a document row stores: NULL is AUD (every row written before currencies). */
export function isForeign(currency: string | null | undefined): currency is string {
  return currency !== null && currency !== undefined && currency !== spec.HOME_CURRENCY;
}

/** Cents of a foreign currency in AUD cents at a rate in millionths, half up. */
export function toAud(cents: number, rateMicros: number): number {
  return mulDivHalfUp(cents, rateMicros, spec.RATE_SCALE);
}

/** BAD_REQUEST naming `field` unless an AUD figure fits the books' bound on cents. */
export function checkAudBound(audCents: number, field: string): void {
  if (audCents > limits.centsMax) {
    throw new DomainError(
      'BAD_REQUEST',
      `${field}: the AUD value (${audCents} cents) is above the ${limits.centsMax} cents the books take`,
      {
        field,
      },
    );
  }
}

export interface RateFound {
  readonly micros: number;
  /** The table's date of the rate (null when the caller gave it). */
  readonly date: string | null;
}

/** The latest rate of `currency` on or before `date` in the table, or undefined. */
export async function latestRate(q: Queryable, orgId: string, currency: string, date: string) {
  const row = await q.get<{ date: string; rate_micros: number }>(
    'SELECT date, rate_micros FROM exchange_rates WHERE org_id = ? AND currency = ? AND date <= ? ORDER BY date DESC LIMIT 1',
    [orgId, currency, date],
  );
  return row ? { date: row.date, micros: Number(row.rate_micros) } : undefined;
}

/**
 * The rate for a foreign document or payment dated `date`: the one given, else the table's
 * latest on or before `date`, at most EXCHANGE_RATE_AGE_DAYS_MAX days old (an older rate would
 * be a guess). Missing or stale: BAD_REQUEST naming `field`, saying what to do.
 */
export async function resolveRate(
  uow: Uow,
  currency: string,
  date: string,
  given: string | undefined,
  field = 'exchangeRate',
): Promise<RateFound> {
  if (given !== undefined) {
    const micros = spec.rateMicros(given);
    invariant(micros !== null, 'the params schema checked the rate');
    return { micros, date: null };
  }
  const found = await latestRate(uow.tx, uow.orgId, currency, date);
  const oldest = addDays(date, -spec.EXCHANGE_RATE_AGE_DAYS_MAX);
  if (!found || found.date < oldest) {
    const seen = found ? ` (the latest on or before it is of ${found.date})` : '';
    throw new DomainError(
      'BAD_REQUEST',
      `${field}: no ${currency} rate in the exchange rates table from ${oldest} to ${date}${seen}; ` +
        `${field === 'exchangeRate' ? 'give exchangeRate or ' : ''}set the rate with ${spec.exchangeRateSet.name}`,
      { field },
    );
  }
  return found;
}

interface RateRow {
  currency: string;
  date: string;
  rate_micros: number;
  ledger_id: string;
}

export async function exchangeRateSet(p: SetParams, uow: Uow) {
  // The rows the call names, read at once (at most 366, bounded by the params).
  const keys = p.rates.map((r) => [r.currency, r.date] as const);
  const current = new Map<string, number>();
  for (const currency of new Set(keys.map(([c]) => c))) {
    const dates = keys.filter(([c]) => c === currency).map(([, d]) => d);
    const rows = await uow.tx.all<RateRow>(
      `SELECT currency, date, rate_micros, ledger_id FROM exchange_rates WHERE org_id = ? AND currency = ? AND date IN (${dates.map(() => '?').join(', ')})`,
      [uow.orgId, currency, ...dates],
    );
    for (const r of rows) current.set(`${r.currency} ${r.date}`, Number(r.rate_micros));
  }
  const planned = p.rates.map((r) => {
    const micros = spec.rateMicros(r.rate);
    invariant(micros !== null, 'the params schema checked the rate');
    const before = current.get(`${r.currency} ${r.date}`);
    return { currency: r.currency, date: r.date, micros, before, changed: before !== micros };
  });
  const out = planned.map((r) => ({ currency: r.currency, date: r.date, rate: spec.rateString(r.micros), changed: r.changed }));
  const changed = planned.filter((r) => r.changed);
  if (changed.length === 0) return { rates: out, ledgerId: null, noop: true };
  const event = await uow.emit(events.exchangeRateSet, {
    entityId: 'exchange-rates',
    payload: {
      rates: changed.map((r) => ({
        currency: r.currency,
        date: r.date,
        rate: spec.rateString(r.micros),
        previousRate: r.before === undefined ? null : spec.rateString(r.before),
      })),
    },
  });
  for (const r of changed) {
    if (r.before === undefined) {
      await uow.tx.later('INSERT INTO exchange_rates (org_id, currency, date, rate_micros, ledger_id) VALUES (?, ?, ?, ?, ?)', [
        uow.orgId,
        r.currency,
        r.date,
        r.micros,
        event.ledgerId,
      ]);
    } else {
      await uow.tx.later('UPDATE exchange_rates SET rate_micros = ?, ledger_id = ? WHERE org_id = ? AND currency = ? AND date = ?', [
        r.micros,
        event.ledgerId,
        uow.orgId,
        r.currency,
        r.date,
      ]);
    }
  }
  return { rates: out, ledgerId: event.ledgerId };
}

export async function listExchangeRates(p: ReadParams, ctx: ReadContext) {
  const orgId = ctx.principal.orgId;
  const limit = p.limit ?? spec.EXCHANGE_RATES_READ_MAX;
  const filters: [string, string | undefined][] = [
    ['currency = ?', p.currency],
    ['date >= ?', p.from],
    ['date <= ?', p.to],
  ];
  const given = filters.filter((f): f is [string, string] => f[1] !== undefined);
  const where = ['org_id = ?', ...given.map(([sql]) => sql)];
  const args: SqlValue[] = [orgId, ...given.map(([, v]) => v)];
  // One row more than asked says whether more matched.
  const rows = await ctx.db.reader.all<RateRow>(
    `SELECT currency, date, rate_micros, ledger_id FROM exchange_rates WHERE ${where.join(' AND ')} ORDER BY currency, date DESC LIMIT ?`,
    [...args, limit + 1],
  );
  return {
    rates: rows
      .slice(0, limit)
      .map((r) => ({ currency: r.currency, date: r.date, rate: spec.rateString(Number(r.rate_micros)), ledgerId: r.ledger_id })),
    truncated: rows.length > limit,
  };
}
