import { events, maskDigits, type contacts } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict, invariant, notFound } from '../../errors.js';
import { quoted } from '../../governance/quote.js';
import { newId } from '../../ids.js';
import type { Queryable } from '../../storage/types.js';
import { batchCached, type Read, type Uow } from '../../write-path.js';
import { searchKey } from '../search-key.js';

/**
 * Contacts (migration 25): one per organisation and normalised name
 * (`name_key` = searchKey(name)). Documents find or create theirs in their own act (one event:
 * the document's); books.contactCreate / books.contactUpdate set what documents cannot.
 */
export type ContactKind = z.infer<typeof contacts.contactKind>;

export interface ContactRow {
  id: string;
  name: string;
  name_key: string;
  email: string | null;
  abn: string | null;
  bank_bsb: string | null;
  bank_account_number: string | null;
  bank_account_name: string | null;
  is_customer: number;
  is_supplier: number;
  created_at: string;
  updated_at: string;
  ledger_id: string;
}

export const CONTACT_COLUMNS =
  'id, name, name_key, email, abn, bank_bsb, bank_account_number, bank_account_name, is_customer, is_supplier, ' +
  'created_at, updated_at, ledger_id';

const KIND_COLUMN: Readonly<Record<ContactKind, 'is_customer' | 'is_supplier'>> = {
  customer: 'is_customer',
  supplier: 'is_supplier',
};

/** The contact as every answer shows it: the account number masked (its full form is on the bills). */
export function toContact(row: ContactRow) {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    abn: row.abn,
    isCustomer: Number(row.is_customer) === 1,
    isSupplier: Number(row.is_supplier) === 1,
    bank:
      row.bank_bsb !== null && row.bank_account_number !== null
        ? { bsb: row.bank_bsb, accountNumberMasked: maskDigits(row.bank_account_number), accountName: row.bank_account_name }
        : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ledgerId: row.ledger_id,
  };
}

/**
 * The contact of this organisation, or undefined (another organisation's is never found:
 * existence does not leak).
 */
export async function findContact(q: Queryable, orgId: string, id: string, lock = ''): Promise<ContactRow | undefined> {
  return q.get<ContactRow>(`SELECT ${CONTACT_COLUMNS} FROM contacts WHERE org_id = ? AND id = ?${lock}`, [orgId, id]);
}

async function contactByKey(uow: Uow, key: string): Promise<ContactRow | undefined> {
  return uow.tx.get<ContactRow>(`SELECT ${CONTACT_COLUMNS} FROM contacts WHERE org_id = ? AND name_key = ?${uow.caps.forUpdate}`, [
    uow.orgId,
    key,
  ]);
}

/** What a document needs of its contact found by name key (changeOf): not the whole row. */
type PartyRow = Pick<ContactRow, 'id' | 'email' | 'is_customer' | 'is_supplier'>;

/**
 * The contact of a name key, with only the columns a document uses: every invoice and bill
 * drafted by payee name looks it up, and each column is a value built per request.
 */
async function partyByKey(uow: Uow, key: string): Promise<PartyRow | undefined> {
  return uow.tx.get<PartyRow>(PARTY_BY_KEY, [uow.orgId, key]);
}

/**
 * Kept by a batch of units of work (one round trip per draft under the organisation's
 * lock); any write to contacts forgets it. No FOR UPDATE: the organisation's head lock already
 * serialises every write that could change the contact until this unit commits.
 */
const PARTY_BY_KEY = batchCached('SELECT id, email, is_customer, is_supplier FROM contacts WHERE org_id = ? AND name_key = ?', [
  'contacts',
]);

/**
 * The read resolveDocumentContact will make for a document named by payee name alone, for
 * Uow.readTogether; none when the document names its contact by id.
 */
export function documentContactReads(
  orgId: string,
  p: { readonly payeeName?: string | undefined; readonly contactId?: string | undefined },
): Read[] {
  return p.contactId === undefined && p.payeeName !== undefined ? [[PARTY_BY_KEY, [orgId, searchKey(p.payeeName)]]] : [];
}

/** A document's party, resolved before its event is appended (so every refusal changes nothing). */
export interface DocumentContact {
  readonly contactId: string;
  /** The payee name the document is written with: as given, else the contact's name. */
  readonly payeeName: string;
  /** True when this act created the contact (the document's event says `contactCreated`). */
  readonly created: boolean;
  /** What the act changes on an existing contact once its event is appended (finishContact). */
  readonly change: { readonly kind: boolean; readonly email: string | null };
}

/**
 * Find or create the contact a document names: contactId → that contact (NOT_FOUND
 * when not this organisation's), and a payeeName given with it must normalise to its name
 * (BAD_REQUEST naming payeeName); payeeName alone → the contact of its name key, created when
 * none exists. A created contact is inserted with ON CONFLICT DO NOTHING and then read back, so
 * whatever raced for the key, exactly one contact holds it; its ledger_id is filled by
 * finishContact with the document's event.
 */
export async function resolveDocumentContact(
  uow: Uow,
  p: { readonly payeeName?: string | undefined; readonly contactId?: string | undefined; readonly email?: string | null },
  kind: ContactKind,
): Promise<DocumentContact> {
  const email = p.email ?? null;
  if (p.contactId !== undefined) {
    const row = await findContact(uow.tx, uow.orgId, p.contactId, uow.caps.forUpdate);
    if (!row) throw notFound('contact', p.contactId);
    if (p.payeeName !== undefined && searchKey(p.payeeName) !== row.name_key) {
      throw badRequest(`payeeName: is not the name of contact ${row.id} (${quoted(row.name)}); give that name or leave payeeName out`);
    }
    return { contactId: row.id, payeeName: p.payeeName ?? row.name, created: false, change: changeOf(row, kind, email) };
  }
  invariant(p.payeeName !== undefined, 'the schema requires payeeName or contactId');
  const key = searchKey(p.payeeName);
  const existing = await partyByKey(uow, key);
  if (existing) return { contactId: existing.id, payeeName: p.payeeName, created: false, change: changeOf(existing, kind, email) };
  const inserted = await uow.tx.run(
    `INSERT INTO contacts (org_id, id, name, name_key, email, is_customer, is_supplier, created_at, updated_at, ledger_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '') ON CONFLICT (org_id, name_key) DO NOTHING`,
    [uow.orgId, newId('con'), p.payeeName, key, email, kind === 'customer' ? 1 : 0, kind === 'supplier' ? 1 : 0, uow.now, uow.now],
  );
  const row = await partyByKey(uow, key);
  invariant(row !== undefined, 'a contact holds the name key after insert');
  const created = inserted.changes === 1;
  return {
    contactId: row.id,
    payeeName: p.payeeName,
    created,
    change: created ? { kind: false, email: null } : changeOf(row, kind, email),
  };
}

/** A document makes its contact a customer or supplier, and gives it an email when it had none. */
function changeOf(row: PartyRow, kind: ContactKind, email: string | null): DocumentContact['change'] {
  return { kind: Number(row[KIND_COLUMN[kind]]) !== 1, email: row.email === null ? email : null };
}

/** After the document's event: the contact records it (created, or changed by the document). */
export async function finishContact(uow: Uow, c: DocumentContact, kind: ContactKind, ledgerId: string): Promise<void> {
  if (c.created) {
    const done = await uow.tx.run("UPDATE contacts SET ledger_id = ? WHERE org_id = ? AND id = ? AND ledger_id = ''", [
      ledgerId,
      uow.orgId,
      c.contactId,
    ]);
    invariant(done.changes === 1, 'a created contact takes its creating event');
    return;
  }
  if (!c.change.kind && c.change.email === null) return;
  await uow.tx.run(
    `UPDATE contacts SET ${KIND_COLUMN[kind]} = 1, email = COALESCE(email, ?), updated_at = ?, ledger_id = ? WHERE org_id = ? AND id = ?`,
    [c.change.email, uow.now, ledgerId, uow.orgId, c.contactId],
  );
}

/** What a document's event says of its contact (no second event: the document's is enough). */
export function contactPayload(c: DocumentContact): { contactId: string; contactCreated?: true } {
  return c.created ? { contactId: c.contactId, contactCreated: true } : { contactId: c.contactId };
}

/**
 * The contact keeps the bank details of its most recently approved bill that had any and was not
 * returned since (as the bill-approval rule reads "last approved"). Called when a bill is approved or
 * returned; the bills stay the authority, this is their summary.
 */
export async function refreshContactBank(uow: Uow, contactId: string): Promise<void> {
  const last = await uow.tx.get<{ payee_bsb: string; payee_account_number: string; payee_account_name: string | null }>(
    `SELECT payee_bsb, payee_account_number, payee_account_name FROM bills
     WHERE org_id = ? AND contact_id = ? AND approved_at IS NOT NULL AND status <> 'returned'
       AND payee_bsb IS NOT NULL AND payee_account_number IS NOT NULL
     ORDER BY approved_at DESC, id DESC LIMIT 1`,
    [uow.orgId, contactId],
  );
  await uow.tx.run(`UPDATE contacts SET bank_bsb = ?, bank_account_number = ?, bank_account_name = ? WHERE org_id = ? AND id = ?`, [
    last?.payee_bsb ?? null,
    last?.payee_account_number ?? null,
    last?.payee_account_name ?? null,
    uow.orgId,
    contactId,
  ]);
}

type CreateParams = z.infer<typeof contacts.contactCreate.params>;

/**
 * books.contactCreate: a contact before its first document. Idempotent by state: the same
 * name key with nothing that differs answers the existing contact; a contact of the other kind
 * becomes both (one event); a differing email or ABN is CONFLICT (contactUpdate changes them).
 */
export async function contactCreate(p: CreateParams, uow: Uow) {
  const key = searchKey(p.name);
  const existing = await contactByKey(uow, key);
  if (existing) return addKind(uow, existing, p);
  const row: ContactRow = {
    id: newId('con'),
    name: p.name,
    name_key: key,
    email: p.email ?? null,
    abn: p.abn ?? null,
    bank_bsb: null,
    bank_account_number: null,
    bank_account_name: null,
    is_customer: p.kind === 'customer' ? 1 : 0,
    is_supplier: p.kind === 'supplier' ? 1 : 0,
    created_at: uow.now,
    updated_at: uow.now,
    ledger_id: '',
  };
  const event = await uow.emit(events.contactCreate, {
    entityId: row.id,
    // The email is personal data: the chain says one was given, the row holds it.
    payload: { name: row.name, kind: p.kind, abn: row.abn, hasEmail: row.email !== null, created: true },
  });
  await uow.tx.run(
    `INSERT INTO contacts (org_id, ${CONTACT_COLUMNS}) VALUES (?, ${CONTACT_COLUMNS.split(',')
      .map(() => '?')
      .join(', ')})`,
    [
      uow.orgId,
      row.id,
      row.name,
      key,
      row.email,
      row.abn,
      null,
      null,
      null,
      row.is_customer,
      row.is_supplier,
      uow.now,
      uow.now,
      event.ledgerId,
    ],
  );
  return toContact({ ...row, ledger_id: event.ledgerId });
}

async function addKind(uow: Uow, row: ContactRow, p: CreateParams) {
  const differs = [
    ...(p.email !== undefined && p.email !== row.email ? ['email'] : []),
    ...(p.abn !== undefined && p.abn !== row.abn ? ['abn'] : []),
  ];
  if (differs.length > 0) {
    throw conflict(
      `contact ${row.id} (${quoted(row.name)}) already has this name with another ${differs.join(' and ')}; change it with books.contactUpdate`,
    );
  }
  const column = KIND_COLUMN[p.kind];
  if (Number(row[column]) === 1) return { ...toContact(row), noop: true };
  const event = await uow.emit(events.contactCreate, {
    entityId: row.id,
    payload: { name: row.name, kind: p.kind, abn: row.abn, hasEmail: row.email !== null, created: false },
  });
  await uow.tx.run(`UPDATE contacts SET ${column} = 1, updated_at = ?, ledger_id = ? WHERE org_id = ? AND id = ?`, [
    uow.now,
    event.ledgerId,
    uow.orgId,
    row.id,
  ]);
  return toContact({ ...row, [column]: 1, updated_at: uow.now, ledger_id: event.ledgerId });
}

type UpdateParams = z.infer<typeof contacts.contactUpdate.params>;

/**
 * books.contactUpdate: name (spelling; the new key must not be another contact's), email, ABN.
 * Nothing that differs → no-op with the contact's ledgerId, no event. Never bank details.
 */
export async function contactUpdate(p: UpdateParams, uow: Uow) {
  const row = await findContact(uow.tx, uow.orgId, p.id, uow.caps.forUpdate);
  if (!row) throw notFound('contact', p.id);
  const next: ContactRow = {
    ...row,
    name: p.name ?? row.name,
    name_key: p.name !== undefined ? searchKey(p.name) : row.name_key,
    email: p.email !== undefined ? p.email : row.email,
    abn: p.abn !== undefined ? p.abn : row.abn,
  };
  if (next.name_key !== row.name_key) {
    const other = await contactByKey(uow, next.name_key);
    if (other) throw conflict(`name: contact ${other.id} (${quoted(other.name)}) already has this name`);
  }
  const changed = (['name', 'email', 'abn'] as const).filter((f) => next[f] !== row[f]);
  if (changed.length === 0) return { ...toContact(row), noop: true };
  const event = await uow.emit(events.contactUpdate, {
    entityId: row.id,
    payload: {
      changed: [...changed],
      ...(changed.includes('name') ? { name: next.name, previousName: row.name } : {}),
      ...(changed.includes('abn') ? { abn: next.abn } : {}),
    },
  });
  await uow.tx.run(
    'UPDATE contacts SET name = ?, name_key = ?, email = ?, abn = ?, updated_at = ?, ledger_id = ? WHERE org_id = ? AND id = ?',
    [next.name, next.name_key, next.email, next.abn, uow.now, event.ledgerId, uow.orgId, row.id],
  );
  return toContact({ ...next, updated_at: uow.now, ledger_id: event.ledgerId });
}
