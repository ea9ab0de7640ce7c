import { randomBytes } from 'node:crypto';
import { chartBackfillStatements } from '../domain/gl/chart.js';
import { migration as payables } from '../domain/payables/migration.js';
import { migration as payablesBankDetails } from '../domain/payables/migration-bank-details.js';
import { migration as receivables } from '../domain/receivables/migration.js';
import { migration as reconciliation } from '../domain/reconciliation/migration.js';
import { migration as searchKeys } from './migration-search.js';
import { migration as chainVerified } from '../ledger/migration.js';
import { migration as reports } from '../domain/reports/migration.js';
import { migration as orgTimeZone } from '../org/migration.js';
import { migration as assets } from '../domain/assets/migration.js';
import { migration as people } from '../domain/people/migration.js';
import { migration as tax } from '../domain/tax/migration.js';
import { migration as payRuns } from '../domain/payroll/migration.js';
import { migration as stp } from '../domain/payroll/migration-stp.js';
import { migration as contacts } from '../domain/contacts/migration.js';
import { migration as calendar } from '../calendar/migration.js';
import { migration as checkpoints } from '../ledger/migration-checkpoints.js';
import { migration as dayOne, migrationIssueDates } from '../domain/gl/migration-day-one.js';
import { migration as paymentAccount } from '../org/migration-payment-account.js';
import { migration as bankAccounts } from '../domain/banking/migration.js';
import { migration as orgProfile } from '../org/migration-profile.js';
import { migration as aiCalls } from '../domain/ask/migration.js';
import { migration as corrections } from '../domain/corrections/migration.js';
import { migration as authEpoch } from '../org/migration-auth-epoch.js';
import { migration as pendingAssets } from '../domain/assets/migration-pending.js';
import { migration as oauth } from '../org/migration-oauth.js';
import { migration as directEntry } from '../domain/banking/migration-direct-entry.js';

import type { Migration } from './migration-types.js';

// The types live in migration-types.ts, which the areas' migrations import; kept here for callers.
export { backfillSteps, type Backfill, type MigrateOptions, type Migration } from './migration-types.js';

/**
 * Rows every installation needs, created once after the schema (idempotent): the signature-token
 * signing key, random per installation.
 */
export function seedStatements(): readonly { sql: string; params: readonly string[] }[] {
  return [
    {
      sql: "INSERT INTO server_secrets (name, value, created_at) VALUES ('token_signing_key', ?, ?) ON CONFLICT (name) DO NOTHING",
      params: [randomBytes(32).toString('base64url'), new Date().toISOString()],
    },
  ];
}

export const migrations: readonly Migration[] = [
  {
    id: 1,
    name: 'core',
    statements: [
      `CREATE TABLE organisations (
        id TEXT PRIMARY KEY,
        slug TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
      // The head row is the per-organisation append lock (FOR UPDATE in PostgreSQL).
      `CREATE TABLE org_heads (
        org_id TEXT PRIMARY KEY REFERENCES organisations(id),
        seq BIGINT NOT NULL,
        row_hash TEXT NOT NULL
      )`,
      // Payload is stored as the exact canonical text that was hashed, so a row re-hashes to itself.
      `CREATE TABLE events (
        org_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        family TEXT NOT NULL,
        kind TEXT NOT NULL,
        entity_id TEXT NOT NULL,
        actor TEXT NOT NULL,
        at TEXT NOT NULL,
        payload TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        row_hash TEXT NOT NULL,
        PRIMARY KEY (org_id, seq)
      )`,
      `CREATE INDEX events_entity ON events (org_id, entity_id, seq)`,
      `CREATE TABLE agents (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organisations(id),
        name TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (org_id, name)
      )`,
      `CREATE TABLE credentials (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organisations(id),
        tier TEXT NOT NULL,
        agent_id TEXT REFERENCES agents(id),
        secret_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      )`,
      `CREATE INDEX credentials_org ON credentials (org_id)`,
      `CREATE TABLE users (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organisations(id),
        email TEXT NOT NULL,
        role TEXT NOT NULL,
        password_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (org_id, email)
      )`,
      `CREATE TABLE policies (
        org_id TEXT PRIMARY KEY REFERENCES organisations(id),
        body TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      `CREATE TABLE idempotency (
        org_id TEXT NOT NULL,
        credential_id TEXT NOT NULL,
        idem_key TEXT NOT NULL,
        method TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        result TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (org_id, credential_id, idem_key)
      )`,
      `CREATE INDEX idempotency_age ON idempotency (created_at)`,
      `CREATE TABLE board_items (
        org_id TEXT NOT NULL,
        id TEXT NOT NULL,
        title TEXT NOT NULL,
        priority TEXT NOT NULL,
        priority_rank BIGINT NOT NULL,
        col TEXT NOT NULL,
        claimed_by TEXT,
        created_at TEXT NOT NULL,
        ledger_id TEXT NOT NULL,
        PRIMARY KEY (org_id, id)
      )`,
      `CREATE INDEX board_ready ON board_items (org_id, col, priority_rank, created_at)`,
      `CREATE TABLE invoices (
        org_id TEXT NOT NULL,
        id TEXT NOT NULL,
        status TEXT NOT NULL,
        payee_name TEXT NOT NULL,
        description TEXT NOT NULL,
        total_cents BIGINT NOT NULL,
        due_days BIGINT NOT NULL,
        created_at TEXT NOT NULL,
        issued_on TEXT,
        due_on TEXT,
        ledger_id TEXT NOT NULL,
        PRIMARY KEY (org_id, id)
      )`,
    ],
  },
  {
    id: 2,
    name: 'signature law, approvals, bills, outbox, human lane',
    statements: [
      // An unproven signature act: what was asked, bound by payload hash.
      `CREATE TABLE holds (
        org_id TEXT NOT NULL,
        id TEXT NOT NULL,
        action_class TEXT NOT NULL,
        subject_id TEXT NOT NULL,
        payload_hash TEXT NOT NULL,
        method TEXT NOT NULL,
        params TEXT NOT NULL,
        summary TEXT NOT NULL,
        created_at TEXT NOT NULL,
        released_at TEXT,
        PRIMARY KEY (org_id, id)
      )`,
      `CREATE INDEX holds_binding ON holds (org_id, action_class, subject_id, payload_hash)`,
      `CREATE TABLE approvals (
        org_id TEXT NOT NULL,
        id TEXT NOT NULL,
        action_class TEXT NOT NULL,
        subject_id TEXT NOT NULL,
        payload_hash TEXT NOT NULL,
        method TEXT NOT NULL,
        params TEXT NOT NULL,
        summary TEXT NOT NULL,
        status TEXT NOT NULL,
        requested_by TEXT NOT NULL,
        requested_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        decided_by TEXT,
        decided_at TEXT,
        reason TEXT,
        used_at TEXT,
        used_ledger_id TEXT,
        ledger_id TEXT NOT NULL,
        PRIMARY KEY (org_id, id)
      )`,
      `CREATE UNIQUE INDEX approvals_id ON approvals (id)`,
      `CREATE INDEX approvals_binding ON approvals (org_id, action_class, subject_id, payload_hash)`,
      `CREATE TABLE bills (
        org_id TEXT NOT NULL,
        id TEXT NOT NULL,
        status TEXT NOT NULL,
        payee_name TEXT NOT NULL,
        payee_key TEXT NOT NULL,
        description TEXT NOT NULL,
        total_cents BIGINT NOT NULL,
        due_days BIGINT NOT NULL,
        due_on TEXT NOT NULL,
        held_reason TEXT,
        note TEXT,
        run_id TEXT,
        created_at TEXT NOT NULL,
        approved_at TEXT,
        ledger_id TEXT NOT NULL,
        PRIMARY KEY (org_id, id)
      )`,
      `CREATE INDEX bills_payee ON bills (org_id, payee_key, approved_at)`,
      `ALTER TABLE invoices ADD COLUMN payee_email TEXT`,
      `ALTER TABLE invoices ADD COLUMN chase_step BIGINT NOT NULL DEFAULT 0`,
      `ALTER TABLE invoices ADD COLUMN chase_ledger_id TEXT`,
      // Effects outside the database, written in the same transaction and delivered after it.
      `CREATE TABLE outbox (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL,
        attempts BIGINT NOT NULL DEFAULT 0,
        claimed_until TEXT,
        delivered_at TEXT,
        last_error TEXT
      )`,
      `CREATE INDEX outbox_pending ON outbox (delivered_at, created_at)`,
      `CREATE TABLE sessions (
        id_hash TEXT PRIMARY KEY,
        org_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        csrf TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
      )`,
      `CREATE TABLE login_attempts (
        bucket TEXT PRIMARY KEY,
        failures BIGINT NOT NULL,
        window_start TEXT NOT NULL,
        locked_until TEXT
      )`,
      `CREATE TABLE server_secrets (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
    ],
  },
  {
    id: 3,
    name: 'general ledger',
    statements: [
      `CREATE TABLE accounts (
        org_id TEXT NOT NULL,
        code TEXT NOT NULL,
        name TEXT NOT NULL,
        type TEXT NOT NULL,
        system_key TEXT,
        created_at TEXT NOT NULL,
        PRIMARY KEY (org_id, code)
      )`,
      `CREATE TABLE journals (
        org_id TEXT NOT NULL,
        id TEXT NOT NULL,
        date TEXT NOT NULL,
        memo TEXT NOT NULL,
        source_kind TEXT NOT NULL,
        source_id TEXT NOT NULL,
        ledger_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (org_id, id)
      )`,
      `CREATE INDEX journals_date ON journals (org_id, date, id)`,
      `CREATE INDEX journals_source ON journals (org_id, source_id)`,
      // One row per posting. tax_base_cents / gst_cents tag the line that carries a supply
      // (GST-inclusive amount and its GST) for the BAS; other lines carry zero.
      `CREATE TABLE journal_lines (
        org_id TEXT NOT NULL,
        journal_id TEXT NOT NULL,
        line_no BIGINT NOT NULL,
        account_code TEXT NOT NULL,
        debit_cents BIGINT NOT NULL,
        credit_cents BIGINT NOT NULL,
        tax_code TEXT,
        tax_base_cents BIGINT NOT NULL,
        gst_cents BIGINT NOT NULL,
        description TEXT NOT NULL,
        doc_id TEXT,
        PRIMARY KEY (org_id, journal_id, line_no)
      )`,
      `CREATE INDEX journal_lines_account ON journal_lines (org_id, account_code)`,
      `CREATE INDEX journal_lines_doc ON journal_lines (org_id, doc_id)`,
      ...chartBackfillStatements(),
    ],
  },
  // Area schemas: receivables 4, payables and expenses 5, reconciliation 6.
  ...[receivables, payables, reconciliation].filter((m): m is Migration => m !== null),
  // Verified chain heads for the console badge, 10.
  chainVerified,
  // Report indexes, 11.
  reports,
  // Search keys computed in TypeScript, 12.
  searchKeys,
  // Sign-in throttling is swept by window start on every counted attempt.
  // Existing rows keep their meaning; the first sweep removes the stale ones.
  {
    id: 13,
    name: 'login attempts sweep index',
    statements: ['CREATE INDEX login_attempts_window ON login_attempts (window_start)'],
  },
  // Bills held for changed bank details, 14.
  payablesBankDetails,
  // The organisation's time zone, 15.
  orgTimeZone,
  // People: employees, leave requests, leave accrual ledger, 20.
  people,
  // Tax: BAS returns and 2150, 21.
  tax,
  // Fixed assets, 22.
  assets,
  // Pay runs and their lines, 23.
  payRuns,
  // Single Touch Payroll submissions, 24.
  stp,
  // Contacts: customers and suppliers as records, 25.
  contacts,
  // Organisation profile, agent revocation, pairing codes, 26.
  orgProfile,
  // The AI gateway's audit (books.ask) that cost.rollup sums, 27.
  aiCalls,
  // Date indexes of the calendar (meetings.list), 28.
  calendar,
  // Signed checkpoints of each chain head, 29.
  checkpoints,
  // Invoice numbers and references, lock date, conversion date, 30.
  dayOne,
  // Bill and expense claim issue dates, 31.
  migrationIssueDates,
  // Opening balances and corrections, 32.
  corrections,
  // Bank, credit-card and loan accounts as records, 33.
  bankAccounts,
  // The payment account printed on tax invoices, 34.
  paymentAccount,
  // The credential epoch on each organisation head, 35 (principals kept in memory by the API).
  authEpoch,
  // Pending fixed assets: what each depreciation run skipped, 36.
  pendingAssets,
  // Direct-entry details on bank account records; the funding record of each run, 37.
  directEntry,
  // OAuth clients and grants for remote MCP connectors, 38.
  oauth,
];
// Applied in this order; ids ascend so that an installation's history reads in order.
for (let i = 1; i < migrations.length; i += 1) {
  const [prev, next] = [migrations[i - 1], migrations[i]];
  if (prev && next && prev.id >= next.id) throw new Error(`migration ${next.id} is listed after ${prev.id}`);
}
