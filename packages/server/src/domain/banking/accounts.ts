import {
  bankAccounts as spec,
  events,
  validate,
  type BankAccountCreate,
  type BankAccountKind,
  type BankAccountUpdate,
  type DirectEntryField,
} from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { DomainError, badRequest, conflict, invariant, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { placeholders } from '../../storage/sql.js';
import type { Database, Queryable } from '../../storage/types.js';
import { inUnitOfWork } from '../../write-path.js';
import { accountBalanceCents } from '../gl/post.js';

/**
 * Bank, credit-card and loan accounts as records. A record owns one chart account numbered in its
 * kind's range (BANK_ACCOUNT_RANGES: 1010–1099 bank, 2610–2699 card, 2700–2799 loan), named after
 * the record.
 * Only an owner creates one (console form or `finance-desk bank-account add`), one event each, and
 * changes its BSB, number and direct-entry details (updateBankAccount), one event each.
 * 1000 Business bank account is the default: listed as one without being stored until an owner
 * gives it a record (chart code 1000), which is how it gets direct-entry details
 * (docs/books.md "Funding a bank file").
 */
export type BankAccount = z.infer<typeof spec.bankAccount>;

export const DEFAULT_BANK_ACCOUNT = '1000';

export interface BankAccountRow {
  id: string;
  kind: BankAccountKind;
  name: string;
  account_code: string;
  bsb: string | null;
  account_number: string | null;
  bank_code: string | null;
  apca_user_id: string | null;
  user_name: string | null;
  remitter_name: string | null;
  account_title: string | null;
  created_at: string;
}
type Row = BankAccountRow;

const COLUMNS =
  'id, kind, name, account_code, bsb, account_number, bank_code, apca_user_id, user_name, remitter_name, account_title, created_at';

/** Each direct-entry field and its column. */
const DIRECT_ENTRY_COLUMNS: Readonly<
  Record<DirectEntryField, 'bank_code' | 'apca_user_id' | 'user_name' | 'remitter_name' | 'account_title'>
> = {
  bankCode: 'bank_code',
  apcaUserId: 'apca_user_id',
  userName: 'user_name',
  remitterName: 'remitter_name',
  accountTitle: 'account_title',
};

/** The record owning a chart account, or null (1000 until an owner gives it one, and every non-bank account). */
export async function bankAccountRecord(q: Queryable, orgId: string, code: string): Promise<Row | null> {
  const row = await q.get<Row>(`SELECT ${COLUMNS} FROM bank_accounts WHERE org_id = ? AND account_code = ?`, [orgId, code]);
  return row ?? null;
}

/** What a bank file paid from a record carries for the funding side (the inline `funding` shape). */
export interface ResolvedFunding {
  readonly bsb: string;
  readonly accountNumber: string;
  readonly bankCode: string;
  readonly userName: string;
  readonly apcaUserId: string;
  readonly remitterName: string;
  readonly accountName?: string;
}

/** Which of the fields a bank file needs the record lacks (empty: it can fund one). */
export function missingForDirectEntry(r: Row): string[] {
  if (r.kind !== 'bank') return ['kind (only a bank account can fund a bank file)'];
  const have: Record<string, string | null> = {
    bsb: r.bsb,
    accountNumber: r.account_number,
    bankCode: r.bank_code,
    apcaUserId: r.apca_user_id,
    userName: r.user_name,
    remitterName: r.remitter_name,
  };
  return Object.entries(have)
    .filter(([, v]) => v === null)
    .map(([k]) => k);
}

/**
 * The record a payment run or pay run is paid from (fundingAccountId): NOT_FOUND unless it is this
 * organisation's; BAD_REQUEST naming fundingAccountId and the missing fields unless it can fund a
 * bank file. Read in the act's transaction, so the details are those the human is shown.
 */
export async function resolveFundingAccount(
  q: Queryable,
  orgId: string,
  id: string,
): Promise<{ readonly id: string; readonly accountCode: string; readonly funding: ResolvedFunding }> {
  const r = await q.get<Row>(`SELECT ${COLUMNS} FROM bank_accounts WHERE org_id = ? AND id = ?`, [orgId, id]);
  if (!r) throw notFound('bank account', id);
  const missing = missingForDirectEntry(r);
  if (missing.length > 0 || !r.bsb || !r.account_number || !r.bank_code || !r.apca_user_id || !r.user_name || !r.remitter_name) {
    throw badRequest(
      `fundingAccountId: bank account ${r.id} (${r.name}) cannot fund a bank file; it lacks ${missing.join(', ')} ` +
        '(an owner sets them in the console or with `finance-desk bank-account update`)',
    );
  }
  return {
    id: r.id,
    accountCode: r.account_code,
    funding: {
      bsb: r.bsb,
      accountNumber: r.account_number,
      bankCode: r.bank_code,
      userName: r.user_name,
      apcaUserId: r.apca_user_id,
      remitterName: r.remitter_name,
      ...(r.account_title !== null ? { accountName: r.account_title } : {}),
    },
  };
}

/** Parse what an owner typed; BAD_REQUEST naming each field and its problem. */
export function parseBankAccountCreate(input: unknown): BankAccountCreate {
  const out = validate(spec.bankAccountCreate, input);
  if (!out.ok) throw new DomainError('BAD_REQUEST', out.message);
  return out.value;
}

async function chooseCode(q: Queryable, orgId: string, input: BankAccountCreate): Promise<string> {
  const range = spec.BANK_ACCOUNT_RANGES[input.kind];
  if (input.accountCode !== undefined) {
    const taken = await q.get<{ name: string }>('SELECT name FROM accounts WHERE org_id = ? AND code = ?', [orgId, input.accountCode]);
    if (taken)
      throw conflict(`accountCode: account ${input.accountCode} (${taken.name}) already exists; choose a free code or leave it out`);
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
 * The same kind, name and details again is a no-op answering the existing record (idempotent by
 * state); the same name for another kind or other details is CONFLICT.
 */
export async function createBankAccount(
  db: Database,
  o: { orgId: string; actor: string; input: BankAccountCreate },
): Promise<CreatedBankAccount> {
  const input = o.input;
  return inUnitOfWork(db, o.orgId, o.actor, async (uow) => {
    const same = await uow.tx.get<Row & { ledger_id: string }>(
      `SELECT ${COLUMNS}, ledger_id FROM bank_accounts WHERE org_id = ? AND name = ?`,
      [uow.orgId, input.name],
    );
    if (same) {
      const identical =
        same.kind === input.kind &&
        same.bsb === (input.bsb ?? null) &&
        same.account_number === (input.accountNumber ?? null) &&
        spec.DIRECT_ENTRY_FIELDS.every((f) => same[DIRECT_ENTRY_COLUMNS[f]] === (input[f] ?? null)) &&
        (input.accountCode === undefined || input.accountCode === same.account_code);
      if (!identical)
        throw conflict(`name: a ${same.kind} account named "${same.name}" already exists (${same.account_code}); choose another name`);
      const [account] = await withBalances(uow.tx, uow.orgId, [toAccount(same, same.account_code === DEFAULT_BANK_ACCOUNT)]);
      if (!account) throw new Error('unreachable: one account in, one out');
      return { account, ledgerId: same.ledger_id, noop: true };
    }
    const count = await uow.tx.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM bank_accounts WHERE org_id = ?', [uow.orgId]);
    if (Number(count?.n ?? 0) >= spec.bankAccountLimits.accountsMax) {
      throw conflict(`this organisation already has ${spec.bankAccountLimits.accountsMax} bank accounts; no more can be added`);
    }
    // An owner gives 1000, the default bank account, a record to hold its direct-entry details:
    // its chart account exists already (and keeps its name).
    const adoptsDefault = input.kind === 'bank' && input.accountCode === DEFAULT_BANK_ACCOUNT;
    if (adoptsDefault && (await bankAccountRecord(uow.tx, uow.orgId, DEFAULT_BANK_ACCOUNT))) {
      throw conflict(`accountCode: ${DEFAULT_BANK_ACCOUNT}, the default bank account, already has a record; change it with an update`);
    }
    const code = adoptsDefault ? DEFAULT_BANK_ACCOUNT : await chooseCode(uow.tx, uow.orgId, input);
    const type = spec.BANK_ACCOUNT_RANGES[input.kind].type;
    const id = newId('bac');
    const details = directEntryOf(input);
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
        directEntry: details,
      },
    });
    if (!adoptsDefault) {
      await uow.tx.run('INSERT INTO accounts (org_id, code, name, type, system_key, created_at) VALUES (?, ?, ?, ?, NULL, ?)', [
        uow.orgId,
        code,
        input.name,
        type,
        uow.now,
      ]);
    }
    await uow.tx.run(
      `INSERT INTO bank_accounts (org_id, id, kind, name, account_code, bsb, account_number, bank_code, apca_user_id, user_name,
         remitter_name, account_title, created_by, created_at, ledger_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        uow.orgId,
        id,
        input.kind,
        input.name,
        code,
        input.bsb ?? null,
        input.accountNumber ?? null,
        details.bankCode,
        details.apcaUserId,
        details.userName,
        details.remitterName,
        details.accountTitle,
        uow.actor,
        uow.now,
        event.ledgerId,
      ],
    );
    const row: Row = {
      id,
      kind: input.kind,
      name: input.name,
      account_code: code,
      bsb: input.bsb ?? null,
      account_number: input.accountNumber ?? null,
      bank_code: details.bankCode,
      apca_user_id: details.apcaUserId,
      user_name: details.userName,
      remitter_name: details.remitterName,
      account_title: details.accountTitle,
      created_at: uow.now,
    };
    // A new chart account has nothing in it; 1000 may have a balance and open lines already.
    const [account] = adoptsDefault
      ? await withBalances(uow.tx, uow.orgId, [toAccount(row, true)])
      : [{ ...toAccount(row, false), ledgerBalanceCents: 0, unreconciledLines: 0, unreconciledCents: 0 }];
    invariant(account, 'one account in, one out');
    return { account, ledgerId: event.ledgerId };
  });
}

interface DirectEntryDetails {
  bankCode: string | null;
  apcaUserId: string | null;
  userName: string | null;
  remitterName: string | null;
  accountTitle: string | null;
}

function directEntryOf(input: { readonly [F in DirectEntryField]?: string | null | undefined }): DirectEntryDetails {
  return {
    bankCode: input.bankCode ?? null,
    apcaUserId: input.apcaUserId ?? null,
    userName: input.userName ?? null,
    remitterName: input.remitterName ?? null,
    accountTitle: input.accountTitle ?? null,
  };
}

export type ListedBankAccount = Omit<BankAccount, 'ledgerBalanceCents' | 'unreconciledLines' | 'unreconciledCents'>;

function toAccount(r: Row, isDefault: boolean): ListedBankAccount {
  const complete =
    r.kind === 'bank' &&
    r.bsb !== null &&
    r.account_number !== null &&
    r.bank_code !== null &&
    r.apca_user_id !== null &&
    r.user_name !== null &&
    r.remitter_name !== null;
  return {
    id: r.id,
    kind: r.kind,
    name: r.name,
    accountCode: r.account_code,
    bsb: r.bsb,
    accountNumber: r.account_number,
    isDefault,
    bankCode: r.bank_code,
    apcaUserId: r.apca_user_id,
    userName: r.user_name,
    remitterName: r.remitter_name,
    accountTitle: r.account_title,
    directEntry:
      complete && r.bank_code !== null && r.apca_user_id !== null && r.user_name !== null && r.remitter_name !== null
        ? {
            bankCode: r.bank_code,
            apcaUserId: r.apca_user_id,
            userName: r.user_name,
            remitterName: r.remitter_name,
            accountTitle: r.account_title ?? r.user_name,
          }
        : null,
    createdAt: r.created_at,
  };
}

export interface UpdatedBankAccount {
  readonly account: BankAccount;
  readonly changed: readonly string[];
  readonly ledgerId: string | null;
  readonly noop?: boolean;
}

/** Parse an owner's changes; BAD_REQUEST naming each field. */
export function parseBankAccountUpdate(input: unknown): BankAccountUpdate {
  const out = validate(spec.bankAccountUpdate, input);
  if (!out.ok) throw new DomainError('BAD_REQUEST', out.message);
  return out.value;
}

/**
 * Change a record's BSB, account number or direct-entry details (an owner act: console actor =
 * the owner's user id; CLI actor ""), one event naming the fields changed. The same values again
 * change nothing and write nothing (a no-op answering the record). BSB and number stay paired;
 * direct-entry details only on a bank account. A run already held on the old details no longer
 * matches its approval (the details are bound into it).
 */
export async function updateBankAccount(
  db: Database,
  o: { orgId: string; actor: string; id: string; patch: BankAccountUpdate },
): Promise<UpdatedBankAccount> {
  return inUnitOfWork(db, o.orgId, o.actor, async (uow) => {
    const before = await uow.tx.get<Row>(`SELECT ${COLUMNS} FROM bank_accounts WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`, [
      uow.orgId,
      o.id,
    ]);
    if (!before) throw notFound('bank account', o.id);
    const p = o.patch;
    const after: Row = { ...before };
    if (p.bsb !== undefined) after.bsb = p.bsb;
    if (p.accountNumber !== undefined) after.account_number = p.accountNumber;
    for (const f of spec.DIRECT_ENTRY_FIELDS) {
      const v = p[f];
      if (v !== undefined) after[DIRECT_ENTRY_COLUMNS[f]] = v;
    }
    if ((after.bsb === null) !== (after.account_number === null)) {
      const missing = after.bsb === null ? 'bsb' : 'accountNumber';
      throw badRequest(`${missing}: give both bsb and accountNumber, or neither (the record would keep only one)`);
    }
    if (before.kind !== 'bank') {
      const given = spec.DIRECT_ENTRY_FIELDS.find((f) => p[f] !== undefined && p[f] !== null);
      if (given)
        throw badRequest(`${given}: is only for a bank account (bank files are paid from one); ${before.id} is a ${before.kind} account`);
    }
    const changed = [
      ...(after.bsb !== before.bsb ? ['bsb'] : []),
      ...(after.account_number !== before.account_number ? ['accountNumber'] : []),
      ...spec.DIRECT_ENTRY_FIELDS.filter((f) => after[DIRECT_ENTRY_COLUMNS[f]] !== before[DIRECT_ENTRY_COLUMNS[f]]),
    ];
    const listed = toAccount(after, after.account_code === DEFAULT_BANK_ACCOUNT);
    if (changed.length === 0) {
      const [account] = await withBalances(uow.tx, uow.orgId, [listed]);
      invariant(account, 'one account in, one out');
      return { account, changed, ledgerId: null, noop: true };
    }
    const event = await uow.emit(events.bankAccountUpdate, {
      entityId: after.id,
      payload: {
        bankAccountId: after.id,
        accountCode: after.account_code,
        changed,
        bsb: after.bsb,
        // As on create: the chain keeps the number's ending only.
        accountNumberEnding: after.account_number === null ? null : after.account_number.slice(-3),
        directEntry: directEntryOf({
          bankCode: after.bank_code,
          apcaUserId: after.apca_user_id,
          userName: after.user_name,
          remitterName: after.remitter_name,
          accountTitle: after.account_title,
        }),
      },
    });
    await uow.tx.run(
      `UPDATE bank_accounts SET bsb = ?, account_number = ?, bank_code = ?, apca_user_id = ?, user_name = ?, remitter_name = ?,
         account_title = ?, updated_at = ? WHERE org_id = ? AND id = ?`,
      [
        after.bsb,
        after.account_number,
        after.bank_code,
        after.apca_user_id,
        after.user_name,
        after.remitter_name,
        after.account_title,
        uow.now,
        uow.orgId,
        after.id,
      ],
    );
    const [account] = await withBalances(uow.tx, uow.orgId, [listed]);
    invariant(account, 'one account in, one out');
    return { account, changed, ledgerId: event.ledgerId };
  });
}

const UNRECONCILED = ['unmatched', 'part_matched', 'held'];

async function withBalances(q: Queryable, orgId: string, list: readonly ListedBankAccount[]): Promise<BankAccount[]> {
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

/** 1000 first (the default), then the records by account code, with their balances. */
export async function listBankAccounts(q: Queryable, orgId: string): Promise<BankAccount[]> {
  return withBalances(q, orgId, await listedBankAccounts(q, orgId));
}

/**
 * The register without balances (two bounded queries): for a list of the accounts by name, such
 * as the console's account picker, which needs no balance per account.
 */
export async function listedBankAccounts(q: Queryable, orgId: string): Promise<ListedBankAccount[]> {
  const main = await q.get<{ name: string; created_at: string }>(
    "SELECT name, created_at FROM accounts WHERE org_id = ? AND code = ? AND system_key = 'bank'",
    [orgId, DEFAULT_BANK_ACCOUNT],
  );
  const rows = await q.all<Row>(
    `SELECT ${COLUMNS} FROM bank_accounts WHERE org_id = ? ORDER BY account_code LIMIT ${spec.bankAccountLimits.accountsMax + 1}`,
    [orgId],
  );
  // 1000 is listed from its record once an owner gave it one; until then as itself, id null.
  const adopted = rows.some((r) => r.account_code === DEFAULT_BANK_ACCOUNT);
  const list: ListedBankAccount[] = [
    ...(main && !adopted
      ? [
          {
            id: null,
            kind: 'bank' as const,
            name: main.name,
            accountCode: DEFAULT_BANK_ACCOUNT,
            bsb: null,
            accountNumber: null,
            isDefault: true,
            bankCode: null,
            apcaUserId: null,
            userName: null,
            remitterName: null,
            accountTitle: null,
            directEntry: null,
            createdAt: main.created_at,
          },
        ]
      : []),
    ...rows.map((r) => toAccount(r, r.account_code === DEFAULT_BANK_ACCOUNT)),
  ];
  return list;
}

export async function bankAccountsRead(_p: z.infer<typeof spec.bankAccounts.params>, ctx: ReadContext) {
  return { accounts: await listBankAccounts(ctx.db.reader, ctx.principal.orgId) };
}

/**
 * A bank account feed lines can go into (books.feedLines, invoiceRecordPayment's accountCode):
 * 1000, a record of any kind, or (as before bank account records existed) an asset account with no role.
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
