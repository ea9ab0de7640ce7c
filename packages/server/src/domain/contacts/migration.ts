import type { Backfill, Migration } from '../../storage/migration-types.js';
import { newId } from '../../ids.js';
import { searchKey } from '../search-key.js';

/**
 * Migration 25: customers and suppliers become records. One contact per
 * organisation and normalised name (`name_key` = searchKey(name): case, accents and spacing
 * folded, computed in TypeScript so both engines agree, hence UNIQUE (org_id, name_key));
 * invoices and bills point at theirs by `contact_id`, indexed with the status for the balances of
 * contacts.list (open documents of a page of contacts). Bank details are those of the contact's
 * most recently approved bill that had any (never set by a contact method: docs/decisions.md).
 * `ledger_id` is the event that created or last changed the contact; a contact made by this
 * migration takes the event of the first document that named it.
 */
const STATEMENTS = [
  `CREATE TABLE contacts (
    org_id TEXT NOT NULL,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    email TEXT,
    abn TEXT,
    bank_bsb TEXT,
    bank_account_number TEXT,
    bank_account_name TEXT,
    is_customer BIGINT NOT NULL DEFAULT 0,
    is_supplier BIGINT NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    ledger_id TEXT NOT NULL,
    PRIMARY KEY (org_id, id),
    UNIQUE (org_id, name_key)
  )`,
  `ALTER TABLE invoices ADD COLUMN contact_id TEXT`,
  `ALTER TABLE bills ADD COLUMN contact_id TEXT`,
  `CREATE INDEX invoices_contact ON invoices (org_id, contact_id, status)`,
  `CREATE INDEX bills_contact ON bills (org_id, contact_id, status)`,
];

const INSERT_CONTACT = `INSERT INTO contacts (org_id, id, name, name_key, email, is_customer, is_supplier, created_at, updated_at, ledger_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * Oldest documents first, so a contact takes the spelling (and event) of the first document that
 * named it; a later invoice's payee email replaces an earlier one (the newest address wins).
 */
const contactsFromInvoices: Backfill = {
  select: 'SELECT org_id, id, payee_name, payee_email, created_at, ledger_id FROM invoices ORDER BY org_id, created_at, id',
  update: `${INSERT_CONTACT} ON CONFLICT (org_id, name_key) DO UPDATE
    SET is_customer = 1, email = COALESCE(excluded.email, contacts.email)`,
  params: (r) => [
    String(r.org_id),
    newId('con'),
    String(r.payee_name),
    searchKey(String(r.payee_name)),
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a text column: String() only types it
    r.payee_email === null || r.payee_email === undefined ? null : String(r.payee_email),
    1,
    0,
    String(r.created_at),
    String(r.created_at),
    String(r.ledger_id),
  ],
};

const contactsFromBills: Backfill = {
  select: 'SELECT org_id, id, payee_name, created_at, ledger_id FROM bills ORDER BY org_id, created_at, id',
  update: `${INSERT_CONTACT} ON CONFLICT (org_id, name_key) DO UPDATE SET is_supplier = 1`,
  params: (r) => [
    String(r.org_id),
    newId('con'),
    String(r.payee_name),
    searchKey(String(r.payee_name)),
    null,
    0,
    1,
    String(r.created_at),
    String(r.created_at),
    String(r.ledger_id),
  ],
};

const pointAt = (table: 'invoices' | 'bills'): Backfill => ({
  select: `SELECT org_id, id, payee_name FROM ${table}`,
  update: `UPDATE ${table} SET contact_id = (SELECT c.id FROM contacts c WHERE c.org_id = ? AND c.name_key = ?)
    WHERE org_id = ? AND id = ?`,
  params: (r) => [String(r.org_id), searchKey(String(r.payee_name)), String(r.org_id), String(r.id)],
});

/** The bank details of each contact's approved bills, oldest approval first: the last one stays. */
const bankFromApprovedBills: Backfill = {
  select: `SELECT org_id, contact_id, payee_bsb, payee_account_number, payee_account_name FROM bills
    WHERE approved_at IS NOT NULL AND status <> 'returned' AND payee_bsb IS NOT NULL AND payee_account_number IS NOT NULL
    ORDER BY org_id, approved_at, id`,
  update: 'UPDATE contacts SET bank_bsb = ?, bank_account_number = ?, bank_account_name = ? WHERE org_id = ? AND id = ?',
  params: (r) => [
    String(r.payee_bsb),
    String(r.payee_account_number),
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a text column: String() only types it
    r.payee_account_name === null || r.payee_account_name === undefined ? null : String(r.payee_account_name),
    String(r.org_id),
    String(r.contact_id),
  ],
};

export const migration: Migration = {
  id: 25,
  name: 'contacts: customers and suppliers as records; contact_id on invoices and bills',
  statements: STATEMENTS,
  backfill: [contactsFromInvoices, contactsFromBills, pointAt('invoices'), pointAt('bills'), bankFromApprovedBills],
};
