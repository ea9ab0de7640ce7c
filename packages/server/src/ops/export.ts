import { booksReads, budgets, payables, quotes, receivables, TIER_SCOPES, type MethodSpec } from '@finance-desk/protocol';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { monthWindows } from '../domain/reports/budget-report.js';
import { methodRegistry } from '../registry.js';
import type { Principal } from '../principal.js';
import type { Database } from '../storage/types.js';

/**
 * `finance-desk export`: an organisation's journals, documents and reports as CSV
 * files for an accountant or another system. Everything is read through the same declared read
 * methods an agent with books.read calls (so the figures are the API's figures), as an operator
 * principal with the reader tier's scopes. Columns come from each method's declared result
 * schema, so a field added to a declaration appears in the export without touching this file.
 *
 * CSV: RFC 4180 (CRLF, quotes doubled), UTF-8; money stays integer cents. A text cell that a
 * spreadsheet would run as a formula (= + - @ tab CR first) is prefixed with `'` (OWASP CSV
 * injection): customer and agent text must never become a formula on an accountant's machine.
 */
export interface ExportOptions {
  readonly orgId: string;
  readonly orgSlug: string;
  readonly from: string;
  readonly to: string;
  readonly dir: string;
}

export interface ExportReport {
  readonly dir: string;
  readonly files: readonly { readonly file: string; readonly rows: number }[];
}

/** Pages of a paged read are at most this long; an export reads at most this many pages per list. */
const PAGE = 200;
const PAGES_MAX = 100_000;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects went to JSON.stringify; the rest are primitives
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

class CsvFile {
  rows = 0;
  private readonly stream;
  constructor(
    readonly path: string,
    private readonly columns: readonly string[],
  ) {
    this.stream = createWriteStream(path, { mode: 0o600 });
    this.stream.write(`${columns.map(csvCell).join(',')}\r\n`);
  }
  async write(row: Record<string, unknown>): Promise<void> {
    this.rows += 1;
    if (!this.stream.write(`${this.columns.map((c) => csvCell(row[c])).join(',')}\r\n`)) await once(this.stream, 'drain');
  }
  async close(): Promise<void> {
    this.stream.end();
    await once(this.stream, 'finish');
  }
}

/** The keys of the object schema of the items of `listKey` in a declared list result. */
function itemColumns(spec: MethodSpec, listKey: string): string[] {
  const shape = (spec.result as unknown as z.ZodObject<Record<string, z.ZodType>>).shape;
  const list = shape[listKey] as unknown as z.ZodArray<z.ZodObject<Record<string, z.ZodType>>> | undefined;
  if (!list) throw new Error(`${spec.name}: no ${listKey} in its declared result`);
  return Object.keys(list.element.shape);
}

async function run(
  spec: MethodSpec,
  params: Record<string, unknown>,
  ctx: { db: Database; principal: Principal },
): Promise<Record<string, unknown>> {
  const binding = methodRegistry.get(spec.name);
  if (!binding?.read) throw new Error(`${spec.name} is not a read`);
  const parsed = spec.params.parse(params);
  return (await binding.read(parsed, ctx)) as Record<string, unknown>;
}

async function* pages(spec: MethodSpec, listKey: string, params: Record<string, unknown>, ctx: { db: Database; principal: Principal }) {
  let cursor: string | null = null;
  for (let page = 0; page < PAGES_MAX; page += 1) {
    const result = await run(spec, { ...params, limit: PAGE, ...(cursor ? { cursor } : {}) }, ctx);
    for (const item of result[listKey] as Record<string, unknown>[]) yield item;
    cursor = result.nextCursor as string | null;
    if (!cursor) return;
  }
  throw new Error(`${spec.name}: more than ${PAGES_MAX * PAGE} rows`);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An item's nested objects as dotted columns (`earnings.paidLeaveCents`), so each figure is its own cell. */
function flatItem(item: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(item).flatMap(([k, v]) =>
    isRecord(v) ? flatItem(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v] as [string, unknown]],
  );
}

/**
 * A report as rows: every array of objects in it becomes rows tagged with their `path`
 * (e.g. `assets.lines`), every other value a row with its `path` and `value`.
 */
export function reportRows(report: unknown): { columns: string[]; rows: Record<string, unknown>[] } {
  const rows: Record<string, unknown>[] = [];
  const columns = new Set<string>(['path']);
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value) && value.every(isRecord)) {
      for (const item of value) {
        const flat = flatItem(item);
        for (const [k] of flat) columns.add(k);
        rows.push({ path, ...Object.fromEntries(flat) });
      }
      return;
    }
    if (isRecord(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k);
      return;
    }
    rows.push({ path, value });
  };
  walk(report, '');
  columns.add('value');
  return { columns: [...columns], rows };
}

/**
 * budget_vs_actual over the export's period widened to whole months (budgets are monthly), read
 * in periods of at most the report's months; every row carries the from and to of its period.
 */
async function budgetCsv(options: ExportOptions, ctx: { db: Database; principal: Principal }): Promise<CsvFile> {
  const columns = new Set<string>(['from', 'to']);
  const rows: Record<string, unknown>[] = [];
  for (const period of monthWindows(options.from, options.to, budgets.BUDGET_REPORT_MONTHS_MAX)) {
    const flat = reportRows(await run(booksReads.reports, { type: 'budget_vs_actual', ...period }, ctx));
    for (const c of flat.columns) columns.add(c);
    for (const row of flat.rows) rows.push({ ...period, ...row });
  }
  const csv = new CsvFile(join(options.dir, 'budget_vs_actual.csv'), [...columns]);
  for (const row of rows) await csv.write(row);
  return csv;
}

/**
 * depreciation_schedule for each income year (1 July to 30 June) the export's period touches;
 * every row carries its year's from and to.
 */
async function depreciationCsv(options: ExportOptions, ctx: { db: Database; principal: Principal }): Promise<CsvFile> {
  const columns = new Set<string>(['from', 'to']);
  const rows: Record<string, unknown>[] = [];
  const yearOf = (date: string) => Number(date.slice(0, 4)) - (date.slice(5, 7) >= '07' ? 0 : 1);
  for (let y = yearOf(options.from); y <= yearOf(options.to); y += 1) {
    const period = { from: `${y}-07-01`, to: `${y + 1}-06-30` };
    const flat = reportRows(await run(booksReads.reports, { type: 'depreciation_schedule', ...period }, ctx));
    for (const c of flat.columns) columns.add(c);
    for (const row of flat.rows) rows.push({ ...period, ...row });
  }
  const csv = new CsvFile(join(options.dir, 'depreciation_schedule.csv'), [...columns]);
  for (const row of rows) await csv.write(row);
  return csv;
}

export async function exportOrganisation(db: Database, options: ExportOptions): Promise<ExportReport> {
  if (existsSync(options.dir) && readdirSync(options.dir).length > 0) {
    throw new Error(`--dir: ${options.dir} is not empty; choose a new or empty directory`);
  }
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  const principal: Principal = {
    orgId: options.orgId,
    orgSlug: options.orgSlug,
    credentialId: 'operator',
    tier: 'reader',
    scopes: TIER_SCOPES.reader,
    actor: 'operator',
    agent: null,
  };
  const ctx = { db, principal };
  const files: { file: string; rows: number }[] = [];
  const done = async (csv: CsvFile) => {
    await csv.close();
    files.push({ file: csv.path, rows: csv.rows });
  };

  // Journals of the period, one row per line, with the journal's own fields on each.
  const journalCols = itemColumns(booksReads.journals, 'journals').filter((c) => c !== 'lines');
  const lineCols = Object.keys(booksReads.journalLine.shape);
  const journals = new CsvFile(join(options.dir, 'journals.csv'), [...journalCols.map((c) => `journal.${c}`), ...lineCols]);
  for await (const j of pages(booksReads.journals, 'journals', { from: options.from, to: options.to }, ctx)) {
    const head = Object.fromEntries(journalCols.map((c) => [`journal.${c}`, j[c]]));
    for (const line of j.lines as Record<string, unknown>[]) await journals.write({ ...head, ...line });
  }
  await done(journals);

  // Documents: every invoice, quote and bill of the organisation, as the API lists them.
  for (const [spec, key, file] of [
    [receivables.invoices, 'invoices', 'invoices.csv'],
    [quotes.quotes, 'quotes', 'quotes.csv'],
    [payables.bills, 'bills', 'bills.csv'],
  ] as const) {
    const csv = new CsvFile(join(options.dir, file), itemColumns(spec, key));
    for await (const doc of pages(spec, key, {}, ctx)) await csv.write(doc);
    await done(csv);
  }

  // Reports: as at `to`, or for the period from..to.
  for (const type of booksReads.REPORT_TYPES) {
    // Per account, not one report: account_transactions.csv below.
    if (type === 'account_transactions') continue;
    if (type === 'budget_vs_actual') {
      await done(await budgetCsv(options, ctx));
      continue;
    }
    if (type === 'depreciation_schedule') {
      await done(await depreciationCsv(options, ctx));
      continue;
    }
    const params = booksReads.AS_OF_REPORTS.includes(type) ? { type, asOf: options.to } : { type, from: options.from, to: options.to };
    const { columns, rows } = reportRows(await run(booksReads.reports, params, ctx));
    const csv = new CsvFile(join(options.dir, `${type}.csv`), columns);
    for (const row of rows) await csv.write(row);
    await done(csv);
  }

  // The general ledger: per account with an opening balance or postings in the period, its opening
  // row, each line with the running balance, and its closing row.
  const lineShape = booksReads.accountTransactions.shape.lines.element.shape;
  const ledgerCols = [
    'accountCode',
    'accountName',
    'row',
    ...Object.keys(lineShape).flatMap((k) => (k === 'source' ? ['source.kind', 'source.id'] : [k])),
  ];
  const ledger = new CsvFile(join(options.dir, 'account_transactions.csv'), ledgerCols);
  const chart = (await run(booksReads.accounts, { asOf: options.to }, ctx)).accounts as { code: string; name: string }[];
  for (const account of chart) {
    let cursor: string | null = null;
    for (let page = 0; page < PAGES_MAX; page += 1) {
      const params = { type: 'account_transactions', accountCode: account.code, from: options.from, to: options.to, limit: PAGE };
      const r = await run(booksReads.reports, cursor ? { ...params, cursor } : params, ctx);
      const lines = r.lines as Record<string, unknown>[];
      const head = { accountCode: account.code, accountName: account.name };
      if (page === 0 && lines.length === 0 && r.openingBalanceCents === 0) break;
      if (page === 0) await ledger.write({ ...head, row: 'opening', date: options.from, balanceCents: r.openingBalanceCents });
      for (const line of lines) await ledger.write({ ...head, row: 'line', ...Object.fromEntries(flatItem(line)) });
      cursor = r.nextCursor as string | null;
      if (!cursor) {
        await ledger.write({ ...head, row: 'closing', date: options.to, balanceCents: r.closingBalanceCents });
        break;
      }
    }
  }
  await done(ledger);
  return { dir: options.dir, files };
}
