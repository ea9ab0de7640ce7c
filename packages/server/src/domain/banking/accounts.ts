import {
  bankAccounts as spec,
  events,
  validate,
  type BankAccountCreate,
  type BankAccountKind,
} from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { DomainError, badRequest, conflict } from '../../errors.js';
import { newId } from '../../ids.js';
import { placeholders } from '../../storage/sql.js';
import type { Database, Queryable } from '../../storage/types.js';
import { inUnitOfWork } from '../../write-path.js';
import { accountBalanceCents } from '../gl/post.js';

/**
 * Bank, credit-card and loan accounts as records (issue 12 item 3; docs/decisions.md "Issue 12 —
 * bank accounts, transfers, split lines"). A record owns one chart account numbered in its kind's
 * range (BANK_ACCOUNT_RANGES: 1010–1099 bank, 2610–2699 card, 2700–2799 loan), named after the
 * record. Only an owner creates one (console form or `finance-desk bank-account add`), one event
 * each. 1000 Business bank account is the default and is listed as one without being stored.
 */
export type BankAccount = z.infer<typeof spec.bankAccount>;

export const DEFAULT_BANK_ACCOUNT = '1000';

interface Row {
  id: string;
  kind: BankAccountKind;
  name: string;
  account_code: string;
  bsb: string | null;
  account_number: string | null;
  created_at: string;
}

/** The record owning a chart account, or null (1000 and every other account have none). */
export async function bankAccountRecord(q: Queryable, orgId: string, code: string): Promise<Row | null> {
  const row = await q.get<Row>(
    'SELECT id, kind, name, account_code, bsb, account_number, created_at FROM bank_accounts WHERE org_id = ? AND account_code = ?',
    [orgId, code],
  );
  return row ?? null;
}

/** Parse what an owner typed; BAD_REQUEST naming each field (D5). */
export function parseBankAccountCreate(input: unknown): BankAccountCreate {
  const out = validate(spec.bankAccountCreate, input);
  if (!out.ok) throw new DomainError('BAD_REQUEST', out.message);
  return out.value;
}

async function chooseCode(q: Queryable, orgId: string, input: BankAccountCreate): Promise<string> {
  const range = spec.BANK_ACCOUNT_RANGES[input.kind];
  if (input.accountCode !== undefined) {
    const taken = await q.get<{ name: string }>('SELECT name FROM accounts WHERE org_id = ? AND code = ?', [orgId, input.accountCode]);
    if (taken) throw conflict(`accountCode: account ${input.accountCode} (${taken.name}) already exists; choose a free code or leave it out`);
    return input.accountCode;
  }
  const used = new Set(
    (
      await q.all<{ code: string }>('SELECT code FROM accounts WHERE org_id = ? AND code >= ? AND code <= ?', [
        orgId,
        String(range.from),
        String(range.to),
      ])
    ).map((r) => r.code),
  );
  for (let n = range.from; n <= range.to; n += 1) if (!used.has(String(n))) return String(n);
  throw conflict(`kind: every account code from ${range.from} to ${range.to} is taken; no more ${input.kind} accounts can be added`);
}

export interface CreatedBankAccount {
  readonly account: BankAccount;
  readonly ledgerId: string;
  readonly noop?: boolean;
}

/**
 * Create a record and its chart account (console: actor = the owner's user id; CLI: actor "").
 * The same kind, name and details again is a no-op answering the existing record (D3); the same
 * name for another kind or other details is CONFLICT.
 */
export async function createBankAccount(
  db: Database,
  o: { orgId: string; actor: string; input: BankAccountCreate },
): Promise<CreatedBankAccount> {
  const input = o.input;
  return inUnitOfWork(db, o.orgId, o.actor, async (uow) => {
    const same = await uow.tx.get<Row & { ledger_id: string }>(
      'SELECT id, kind, name, account_code, bsb, account_number, created_at, ledger_id FROM bank_accounts WHERE org_id = ? AND name = ?',
      [uow.orgId, input.name],
    );
    if (same) {
      const identical =
        same.kind === input.kind &&
        same.bsb === (input.bsb ?? null) &&
        same.account_number === (input.accountNumber ?? null) &&
        (input.accountCode === undefined || input.accountCode === same.account_code);
      if (!identical) throw conflict(`name: a ${same.kind} account named "${same.name}" already exists (${same.account_code}); choose another name`);
      const [account] = await withBalances(uow.tx, uow.orgId, [toAccount(same)]);
      if (!account) throw new Error('unreachable: one account in, one out');
      return { account, ledgerId: same.ledger_id, noop: true };
    }
    const count = await uow.tx.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM bank_accounts WHERE org_id = ?', [uow.orgId]);
    if (Number(count?.n ?? 0) >= spec.bankAccountLimits.accountsMax) {
      throw conflict(`this organisation already has ${spec.bankAccountLimits.accountsMax} bank accounts; no more can be added`);
    }
    const code = await chooseCode(uow.tx, uow.orgId, input);
    const type = spec.BANK_ACCOUNT_RANGES[input.kind].type;
    const id = newId('bac');
    const event = await uow.emit(events.bankAccountCreate, {
      entityId: id,
      payload: {
        bankAccountId: id,
        kind: input.kind,
        name: input.name,
        accountCode: code,
        accountType: type,
        bsb: input.bsb ?? null,
        // The full number is on the record; the chain, copied into audit packs, keeps its ending.
        accountNumberEnding: input.accountNumber === undefined ? null : input.accountNumber.slice(-3),
      },
    });
    await uow.tx.run('INSERT INTO accounts (org_id, code, name, type, system_key, created_at) VALUES (?, ?, ?, ?, NULL, ?)', [
      uow.orgId,
      code,
      input.name,
      type,
      uow.now,
    ]);
    await uow.tx.run(
      `INSERT INTO bank_accounts (org_id, id, kind, name, account_code, bsb, account_number, created_by, created_at, ledger_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [uow.orgId, id, input.kind, input.name, code, input.bsb ?? null, input.accountNumber ?? null, uow.actor, uow.now, event.ledgerId],
    );
    const account: BankAccount = {
      id,
      kind: input.kind,
      name: input.name,
      accountCode: code,
      bsb: input.bsb ?? null,
      accountNumber: input.accountNumber ?? null,
      isDefault: false,
      ledgerBalanceCents: 0,
      unreconciledLines: 0,
      unreconciledCents: 0,
      createdAt: uow.now,
    };
    return { account, ledgerId: event.ledgerId };
  });
}

function toAccount(r: Row): Omit<BankAccount, 'ledgerBalanceCents' | 'unreconciledLines' | 'unreconciledCents'> {
  return {
    id: r.id,
    kind: r.kind,
    name: r.name,
    accountCode: r.account_code,
    bsb: r.bsb,
    accountNumber: r.account_number,
    isDefault: false,
    createdAt: r.created_at,
  };
}

const UNRECONCILED = ['unmatched', 'part_matched', 'held'];

async function withBalances(
  q: Queryable,
  orgId: string,
  list: readonly Omit<BankAccount, 'ledgerBalanceCents' | 'unreconciledLines' | 'unreconciledCents'>[],
): Promise<BankAccount[]> {
  const codes = list.map((a) => a.accountCode);
  const open = new Map<string, { n: number; cents: number }>();
  if (codes.length > 0) {
    const rows = await q.all<{ account_code: string; n: number | string; cents: number | string | null }>(
      `SELECT account_code, COUNT(*) AS n,
         SUM(CASE WHEN amount_cents > 0 THEN amount_cents - matched_cents ELSE amount_cents + matched_cents END) AS cents
       FROM bank_feed_lines WHERE org_id = ? AND account_code IN (${placeholders(codes.length)})
         AND status IN (${placeholders(UNRECONCILED.length)}) GROUP BY account_code`,
      [orgId, ...codes, ...UNRECONCILED],
    );
    for (const r of rows) open.set(r.account_code, { n: Number(r.n), cents: Number(r.cents ?? 0) });
  }
  const out: BankAccount[] = [];
  // One balance query per account: at most accountsMax + 1, each served by the account index.
  for (const a of list) {
    out.push({
      ...a,
      ledgerBalanceCents: await accountBalanceCents(q, orgId, a.accountCode),
      unreconciledLines: open.get(a.accountCode)?.n ?? 0,
      unreconciledCents: open.get(a.accountCode)?.cents ?? 0,
    });
  }
  return out;
}

/** 1000 first (the default), then the records by account code. */
export async function listBankAccounts(q: Queryable, orgId: string): Promise<BankAccount[]> {
  const main = await q.get<{ name: string; created_at: string }>(
    "SELECT name, created_at FROM accounts WHERE org_id = ? AND code = ? AND system_key = 'bank'",
    [orgId, DEFAULT_BANK_ACCOUNT],
  );
  const rows = await q.all<Row>(
    `SELECT id, kind, name, account_code, bsb, account_number, created_at FROM bank_accounts WHERE org_id = ?
     ORDER BY account_code LIMIT ${spec.bankAccountLimits.accountsMax}`,
    [orgId],
  );
  const list = [
    ...(main
      ? [
          {
            id: null,
            kind: 'bank' as const,
            name: main.name,
            accountCode: DEFAULT_BANK_ACCOUNT,
            bsb: null,
            accountNumber: null,
            isDefault: true,
            createdAt: main.created_at,
          },
        ]
      : []),
    ...rows.map(toAccount),
  ];
  return withBalances(q, orgId, list);
}

export async function bankAccountsRead(_p: z.infer<typeof spec.bankAccounts.params>, ctx: ReadContext) {
  return { accounts: await listBankAccounts(ctx.db.reader, ctx.principal.orgId) };
}

/**
 * A bank account feed lines can go into (books.feedLines, invoiceRecordPayment's accountCode):
 * 1000, a record of any kind, or (as before issue 12) an asset account with no role.
 */
export async function checkBankAccount(q: Queryable, orgId: string, code: string, field: string): Promise<void> {
  const row = await q.get<{ type: string; system_key: string | null; name: string }>(
    'SELECT type, system_key, name FROM accounts WHERE org_id = ? AND code = ?',
    [orgId, code],
  );
  if (!row) throw badRequest(`${field}: account ${code} does not exist`);
  if (row.system_key === 'bank') return;
  if (await bankAccountRecord(q, orgId, code)) return;
  if (row.type !== 'asset' || row.system_key !== null) {
    throw badRequest(`${field}: account ${code} (${row.name}) is not a bank account`);
  }
}

/** Whether a code is a bank account in the sense of checkBankAccount (no throw). */
export async function isBankAccount(q: Queryable, orgId: string, code: string): Promise<boolean> {
  try {
    await checkBankAccount(q, orgId, code, 'accountCode');
    return true;
  } catch (e) {
    if (e instanceof DomainError) return false;
    throw e;
  }
}
