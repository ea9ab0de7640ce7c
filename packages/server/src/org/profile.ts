import { events, maskDigits, orgProfilePatch, validate, type JsonValue, type OrgProfilePatch } from '@finance-desk/protocol';
import { DomainError, invariant, notFound } from '../errors.js';
import type { Database, Queryable } from '../storage/types.js';
import { inUnitOfWork } from '../write-path.js';
import { formatInvoiceNumber } from '../domain/gl/migration-day-one.js';

/**
 * The organisation profile (migration 26): who the business is to the ATO and
 * to its customers. Read by `GET org/profile`; set by an owner in the console or by the operator
 * with `finance-desk org profile`. Used by the tax invoice email (supplier name and ABN), the STP
 * pay event and the BAS lodgement document (payer ABN), and books.taxPrepare (default basis).
 */
export interface OrgProfile {
  readonly orgId: string;
  readonly slug: string;
  readonly name: string;
  readonly legalName: string | null;
  readonly abn: string | null;
  readonly gstRegistered: boolean;
  readonly gstBasis: 'accrual' | 'cash';
  readonly basFrequency: 'monthly' | 'quarterly';
  readonly financialYearStartMonth: number;
  readonly timeZone: string;
  /** Invoice numbering: the next invoice is invoicePrefix + invoiceNextNumber (INV-0001). */
  readonly invoicePrefix: string;
  readonly invoiceNextNumber: number;
  /** Nothing posts on or before it (domain/gl/periods.ts); null when not locked. */
  readonly lockDate: string | null;
  /** The account invoices ask customers to pay into (migration 34). */
  readonly paymentAccountName: string | null;
  readonly paymentBsb: string | null;
  readonly paymentAccountNumber: string | null;
}

interface ProfileRow {
  id: string;
  slug: string;
  name: string;
  legal_name: string | null;
  abn: string | null;
  gst_registered: number | string;
  gst_basis: string;
  bas_frequency: string;
  fy_start_month: number | string;
  time_zone: string;
  invoice_prefix: string;
  invoice_next: number | string;
  lock_date: string | null;
  payment_account_name: string | null;
  payment_bsb: string | null;
  payment_account_number: string | null;
}

const COLUMNS =
  'id, slug, name, legal_name, abn, gst_registered, gst_basis, bas_frequency, fy_start_month, time_zone, invoice_prefix, invoice_next, lock_date, ' +
  'payment_account_name, payment_bsb, payment_account_number';

function toProfile(r: ProfileRow): OrgProfile {
  return {
    orgId: r.id,
    slug: r.slug,
    name: r.name,
    legalName: r.legal_name,
    abn: r.abn,
    gstRegistered: Number(r.gst_registered) === 1,
    gstBasis: r.gst_basis === 'cash' ? 'cash' : 'accrual',
    basFrequency: r.bas_frequency === 'monthly' ? 'monthly' : 'quarterly',
    financialYearStartMonth: Number(r.fy_start_month),
    timeZone: r.time_zone,
    invoicePrefix: r.invoice_prefix,
    invoiceNextNumber: Number(r.invoice_next),
    lockDate: r.lock_date,
    paymentAccountName: r.payment_account_name,
    paymentBsb: r.payment_bsb,
    paymentAccountNumber: r.payment_account_number,
  };
}

export async function loadProfile(q: Queryable, orgId: string): Promise<OrgProfile> {
  const row = await q.get<ProfileRow>(`SELECT ${COLUMNS} FROM organisations WHERE id = ?`, [orgId]);
  if (!row) throw notFound('organisation', orgId);
  return toProfile(row);
}

/** `ABN 51 824 753 556`: the grouping printed on tax invoices. */
export function formatAbn(abn: string): string {
  return `${abn.slice(0, 2)} ${abn.slice(2, 5)} ${abn.slice(5, 8)} ${abn.slice(8, 11)}`;
}

/** The supplier as a tax invoice names it (GST Act s 29-70: identity and ABN). */
export function supplierLines(p: Pick<OrgProfile, 'name' | 'legalName' | 'abn'>): string[] {
  const name = p.legalName && p.legalName !== p.name ? `${p.legalName} trading as ${p.name}` : p.name;
  return [name, ...(p.abn ? [`ABN ${formatAbn(p.abn)}`] : [])];
}

const PATCH_COLUMNS: Readonly<Record<keyof OrgProfilePatch, string>> = {
  name: 'name',
  legalName: 'legal_name',
  abn: 'abn',
  gstRegistered: 'gst_registered',
  gstBasis: 'gst_basis',
  basFrequency: 'bas_frequency',
  financialYearStartMonth: 'fy_start_month',
  invoicePrefix: 'invoice_prefix',
  invoiceNextNumber: 'invoice_next',
  lockDate: 'lock_date',
  paymentAccountName: 'payment_account_name',
  paymentBsb: 'payment_bsb',
  paymentAccountNumber: 'payment_account_number',
};

/**
 * The largest sequence number already used by an invoice numbered `prefix` followed
 * by digits only (INV-0042 → 42; INV-0042-A is not in the sequence), 0 when none.
 */
async function largestUsedNumber(q: Queryable, orgId: string, prefix: string): Promise<number> {
  const rows = await q.all<{ number: string }>(
    'SELECT number FROM invoices WHERE org_id = ? AND number IS NOT NULL AND SUBSTR(number, 1, ?) = ?',
    [orgId, prefix.length, prefix],
  );
  let max = 0;
  for (const r of rows) {
    const rest = r.number.slice(prefix.length);
    if (/^[0-9]{1,15}$/.test(rest)) max = Math.max(max, Number(rest));
  }
  return max;
}

/**
 * What a profile patch may not do. The lock date is not in the future (nothing could
 * be posted up to it yet); the next invoice number is above every number already used with the
 * prefix (else the next invoice would repeat one).
 */
async function checkPatch(
  q: Queryable,
  orgId: string,
  today: string,
  before: OrgProfile,
  changed: readonly string[],
  patch: OrgProfilePatch,
) {
  if (changed.includes('lockDate') && patch.lockDate && patch.lockDate > today) {
    throw new DomainError('BAD_REQUEST', `lockDate must not be in the future (today is ${today})`, { field: 'lockDate' });
  }
  if (changed.includes('invoicePrefix') || changed.includes('invoiceNextNumber')) {
    const prefix = patch.invoicePrefix ?? before.invoicePrefix;
    const next = patch.invoiceNextNumber ?? before.invoiceNextNumber;
    const used = await largestUsedNumber(q, orgId, prefix);
    if (next <= used) {
      throw new DomainError(
        'BAD_REQUEST',
        `invoiceNextNumber ${next} is at or below ${formatInvoiceNumber(prefix, used)}, already used: the next invoice number must be at least ${used + 1}`,
        { field: 'invoiceNextNumber' },
      );
    }
  }
}

/** A patch parsed with the API's request rules (a CLI or a JSON body); BAD_REQUEST naming every bad field. */
export function parseProfilePatch(input: unknown): OrgProfilePatch {
  const out = validate(orgProfilePatch, input);
  if (!out.ok) throw new DomainError('BAD_REQUEST', out.message);
  return out.value;
}

function dbValue(field: keyof OrgProfilePatch, value: unknown): string | number | null {
  if (field === 'gstRegistered') return value === true ? 1 : 0;
  return value as string | number | null;
}

/**
 * A BSB without an account number (or the reverse) is no way to pay; the
 * profile after the patch has both or neither. BAD_REQUEST naming the one missing.
 */
function checkPaymentAccount(before: OrgProfile, patch: OrgProfilePatch): void {
  const bsb = patch.paymentBsb === undefined ? before.paymentBsb : patch.paymentBsb;
  const number = patch.paymentAccountNumber === undefined ? before.paymentAccountNumber : patch.paymentAccountNumber;
  if (bsb !== null && number === null) {
    throw new DomainError('BAD_REQUEST', 'paymentAccountNumber: is needed with paymentBsb (customers pay into both)', {
      field: 'paymentAccountNumber',
    });
  }
  if (bsb === null && number !== null) {
    throw new DomainError('BAD_REQUEST', 'paymentBsb: is needed with paymentAccountNumber (customers pay into both)', {
      field: 'paymentBsb',
    });
  }
}

/**
 * Apply a profile patch as one event, `org` / `org.profile.update` (actor: the owner's user id,
 * or "" for the operator's CLI), whose payload holds each changed field's value before and
 * after. Fields equal to the stored value are not changes; a patch that changes nothing is a
 * no-op with no event.
 */
export async function setProfile(
  db: Database,
  input: { orgId: string; actor: string; patch: OrgProfilePatch },
): Promise<OrgProfile & { ledgerId: string | null; noop: boolean }> {
  return inUnitOfWork(db, input.orgId, input.actor, async (uow) => {
    const before = await loadProfile(uow.tx, uow.orgId);
    checkPaymentAccount(before, input.patch);
    const changed: Record<string, { before: JsonValue; after: JsonValue }> = {};
    for (const [field, value] of Object.entries(input.patch) as [keyof OrgProfilePatch, JsonValue | undefined][]) {
      if (value === undefined || before[field] === value) continue;
      // The account number is shown masked on the ledger (as bank details elsewhere); the change is still visible.
      const shown = (v: JsonValue) => (field === 'paymentAccountNumber' && typeof v === 'string' ? maskDigits(v) : v);
      changed[field] = { before: shown(before[field]), after: shown(value) };
    }
    const fields = Object.keys(changed) as (keyof OrgProfilePatch)[];
    if (fields.length === 0) return { ...before, ledgerId: null, noop: true };
    await checkPatch(uow.tx, uow.orgId, uow.today, before, fields, input.patch);
    const event = await uow.emit(events.orgProfileUpdate, {
      entityId: uow.orgId,
      payload: {
        fields,
        before: Object.fromEntries(fields.map((f) => [f, changed[f]?.before ?? null])),
        after: Object.fromEntries(fields.map((f) => [f, changed[f]?.after ?? null])),
      },
    });
    const sets = fields.map((f) => `${PATCH_COLUMNS[f]} = ?`).join(', ');
    const moved = await uow.tx.run(`UPDATE organisations SET ${sets} WHERE id = ?`, [
      ...fields.map((f) => dbValue(f, input.patch[f])),
      uow.orgId,
    ]);
    invariant(moved.changes === 1, `organisation ${uow.orgId} is updated once`);
    return { ...(await loadProfile(uow.tx, uow.orgId)), ledgerId: event.ledgerId, noop: false };
  });
}
