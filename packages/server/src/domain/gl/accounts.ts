import { events, type chart } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict, notFound } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { rebuildCashFlowBeforeCommit } from '../reports/cash-flow-days.js';
import { accountBalanceCents } from './post.js';

/**
 * The organisation's own chart: books.accountCreate, accountUpdate, accountArchive. An account is
 * a system account when the product posts to it by role (system_key: control accounts, GST, the
 * bank, PAYG, super, retained earnings…) or it is a bank account record's: those cannot be
 * created over, retyped or archived, since code elsewhere finds them by code or role. Renaming
 * one is allowed: journals keep the code, and the name is only what reports print.
 */
type CreateParams = z.infer<typeof chart.accountCreate.params>;
type UpdateParams = z.infer<typeof chart.accountUpdate.params>;
type ArchiveParams = z.infer<typeof chart.accountArchive.params>;

interface AccountRow {
  code: string;
  name: string;
  type: string;
  system_key: string | null;
  tax_code: string | null;
  reconcilable: number | string;
  archived_at: string | null;
  ledger_id: string | null;
  bank_record: number | string;
}

const COLUMNS = `a.code, a.name, a.type, a.system_key, a.tax_code, a.reconcilable, a.archived_at, a.ledger_id,
  (SELECT COUNT(*) FROM bank_accounts b WHERE b.org_id = a.org_id AND b.account_code = a.code) AS bank_record`;

async function findAccount(q: Queryable, orgId: string, code: string): Promise<AccountRow | undefined> {
  return q.get<AccountRow>(`SELECT ${COLUMNS} FROM accounts a WHERE a.org_id = ? AND a.code = ?`, [orgId, code]);
}

const isSystem = (r: AccountRow) => r.system_key !== null || Number(r.bank_record) > 0;

function toAccount(r: AccountRow, noop = false) {
  return {
    code: r.code,
    name: r.name,
    type: r.type as CreateParams['type'],
    taxCode: r.tax_code,
    reconcilable: Number(r.reconcilable) === 1,
    system: isSystem(r),
    archived: r.archived_at !== null,
    ledgerId: r.ledger_id,
    ...(noop ? { noop: true } : {}),
  };
}

/**
 * Every account of the organisation's chart in code order, as the chart methods answer it (the
 * console's chart page). Bounded by the codes themselves: four digits, so at most 10 000.
 */
export async function listChart(q: Queryable, orgId: string) {
  const rows = await q.all<AccountRow>(`SELECT ${COLUMNS} FROM accounts a WHERE a.org_id = ? ORDER BY a.code LIMIT 10000`, [orgId]);
  return rows.map((r) => toAccount(r));
}

/** One account of the chart as the chart methods answer it, or undefined. */
export async function chartAccountOf(q: Queryable, orgId: string, code: string) {
  const row = await findAccount(q, orgId, code);
  return row ? toAccount(row) : undefined;
}

const systemRefusal = (r: AccountRow, what: string) =>
  conflict(`account ${r.code} (${r.name}) is a system account: the product posts to it by code, so it cannot ${what}`);

/** books.accountCreate: a new code, or the same account again (no-op). */
export async function accountCreate(p: CreateParams, uow: Uow) {
  const existing = await findAccount(uow.tx, uow.orgId, p.code);
  const taxCode = p.taxCode ?? null;
  const reconcilable = p.reconcilable ?? false;
  if (existing) {
    if (isSystem(existing)) throw systemRefusal(existing, 'be created again; choose another code');
    const same =
      existing.name === p.name &&
      existing.type === p.type &&
      existing.tax_code === taxCode &&
      Number(existing.reconcilable) === (reconcilable ? 1 : 0) &&
      existing.archived_at === null;
    if (same) return toAccount(existing, true);
    throw conflict(
      `code: account ${existing.code} (${existing.name}) already exists; choose a free code or change it with books.accountUpdate`,
    );
  }
  const event = await uow.emit(events.accountCreate, {
    entityId: p.code,
    payload: { code: p.code, name: p.name, type: p.type, taxCode, reconcilable },
  });
  await uow.tx.run(
    `INSERT INTO accounts (org_id, code, name, type, system_key, created_at, tax_code, reconcilable, archived_at, ledger_id)
     VALUES (?, ?, ?, ?, NULL, ?, ?, ?, NULL, ?)`,
    [uow.orgId, p.code, p.name, p.type, uow.now, taxCode, reconcilable ? 1 : 0, event.ledgerId],
  );
  return toAccount({
    code: p.code,
    name: p.name,
    type: p.type,
    system_key: null,
    tax_code: taxCode,
    reconcilable: reconcilable ? 1 : 0,
    archived_at: null,
    ledger_id: event.ledgerId,
    bank_record: 0,
  });
}

/** Whether any journal line names the account (its type is then fixed). */
export async function hasPostings(q: Queryable, orgId: string, code: string): Promise<boolean> {
  return (await q.get('SELECT 1 AS x FROM journal_lines WHERE org_id = ? AND account_code = ? LIMIT 1', [orgId, code])) !== undefined;
}

/** books.accountUpdate: name, type (no postings, not a system account), taxCode, reconcilable. */
export async function accountUpdate(p: UpdateParams, uow: Uow) {
  const row = await findAccount(uow.tx, uow.orgId, p.code);
  if (!row) throw notFound('account', p.code);
  if (row.archived_at !== null) throw conflict(`account ${row.code} (${row.name}) is archived; it cannot be changed`);
  const next = {
    name: p.name ?? row.name,
    type: p.type ?? row.type,
    taxCode: p.taxCode !== undefined ? p.taxCode : row.tax_code,
    reconcilable: p.reconcilable ?? Number(row.reconcilable) === 1,
  };
  const changed = [
    ...(next.name !== row.name ? (['name'] as const) : []),
    ...(next.type !== row.type ? (['type'] as const) : []),
    ...(next.taxCode !== row.tax_code ? (['taxCode'] as const) : []),
    ...(next.reconcilable !== (Number(row.reconcilable) === 1) ? (['reconcilable'] as const) : []),
  ];
  if (changed.length === 0) return toAccount(row, true);
  if (changed.includes('type')) {
    if (isSystem(row)) throw systemRefusal(row, 'change type');
    if (await hasPostings(uow.tx, uow.orgId, row.code)) {
      throw conflict(
        `type: account ${row.code} (${row.name}) has postings; its type cannot change (add a new account and journal the balance across)`,
      );
    }
  }
  const event = await uow.emit(events.accountUpdate, {
    entityId: row.code,
    payload: {
      code: row.code,
      changed,
      ...(changed.includes('name') ? { name: next.name, previousName: row.name } : {}),
      ...(changed.includes('type') ? { type: next.type as CreateParams['type'] } : {}),
      ...(changed.includes('taxCode') ? { taxCode: next.taxCode as CreateParams['taxCode'] | null } : {}),
      ...(changed.includes('reconcilable') ? { reconcilable: next.reconcilable } : {}),
    },
  });
  await uow.tx.run('UPDATE accounts SET name = ?, type = ?, tax_code = ?, reconcilable = ?, ledger_id = ? WHERE org_id = ? AND code = ?', [
    next.name,
    next.type,
    next.taxCode,
    next.reconcilable ? 1 : 0,
    event.ledgerId,
    uow.orgId,
    row.code,
  ]);
  // Whether an asset account is reconcilable says whether its lines are cash: the statement of
  // cash flows' kept rows are rebuilt (its type cannot change once it has postings, and a bank
  // account record only ever adopts 1000, cash already).
  if (changed.includes('reconcilable') && (await hasPostings(uow.tx, uow.orgId, row.code))) {
    rebuildCashFlowBeforeCommit(uow.tx, uow.orgId);
  }
  return toAccount({
    ...row,
    name: next.name,
    type: next.type,
    tax_code: next.taxCode,
    reconcilable: next.reconcilable ? 1 : 0,
    ledger_id: event.ledgerId,
  });
}

/** Documents still open (not paid, voided, credited, written off or returned) with a line coded to `code`. */
async function openDocuments(q: Queryable, orgId: string, code: string): Promise<string[]> {
  const rows = await q.all<{ id: string }>(
    `SELECT i.id FROM invoices i WHERE i.org_id = ? AND i.status IN ('draft', 'sent', 'part_paid')
       AND EXISTS (SELECT 1 FROM invoice_lines l WHERE l.org_id = i.org_id AND l.invoice_id = i.id AND l.account_code = ?)
     UNION ALL
     SELECT b.id FROM bills b WHERE b.org_id = ? AND b.status IN ('captured', 'held', 'on_hold', 'approved')
       AND EXISTS (SELECT 1 FROM bill_lines l WHERE l.org_id = b.org_id AND l.bill_id = b.id AND l.account_code = ?)
     UNION ALL
     SELECT c.id FROM expense_claims c WHERE c.org_id = ? AND c.status IN ('submitted', 'approved') AND c.account_code = ?
     LIMIT 5`,
    [orgId, code, orgId, code, orgId, code],
  );
  return rows.map((r) => r.id);
}

/** books.accountArchive: zero balance, no open documents, not a system account; again: no-op. */
export async function accountArchive(p: ArchiveParams, uow: Uow) {
  const row = await findAccount(uow.tx, uow.orgId, p.code);
  if (!row) throw notFound('account', p.code);
  if (row.archived_at !== null) return toAccount(row, true);
  if (isSystem(row)) throw systemRefusal(row, 'be archived');
  const balance = await accountBalanceCents(uow.tx, uow.orgId, row.code);
  if (balance !== 0) {
    throw conflict(
      `account ${row.code} (${row.name}) has a balance of ${balance} cents (debit positive); journal it to zero before archiving`,
    );
  }
  const open = await openDocuments(uow.tx, uow.orgId, row.code);
  if (open.length > 0) {
    throw conflict(
      `account ${row.code} (${row.name}) is used by open documents (${open.join(', ')}); settle or void them before archiving`,
    );
  }
  const event = await uow.emit(events.accountArchive, { entityId: row.code, payload: { code: row.code, name: row.name } });
  await uow.tx.run('UPDATE accounts SET archived_at = ?, ledger_id = ? WHERE org_id = ? AND code = ?', [
    uow.now,
    event.ledgerId,
    uow.orgId,
    row.code,
  ]);
  return toAccount({ ...row, archived_at: uow.now, ledger_id: event.ledgerId });
}
