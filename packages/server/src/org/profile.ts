import { events, maskDigits, orgProfilePatch, validate, type JsonValue, type OrgProfilePatch } from '@finance-desk/protocol';
import { DomainError, invariant, notFound } from '../errors.js';
import type { Database, Queryable } from '../storage/types.js';
import { inUnitOfWork } from '../write-path.js';

/**
 * The organisation profile (issue 10 item 3; migration 26): who the business is to the ATO and
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
  /** Issue 12 item 4: the account invoices ask customers to pay into (migration 34). */
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
  payment_account_name: string | null;
  payment_bsb: string | null;
  payment_account_number: string | null;
}

const COLUMNS = 'id, slug, name, legal_name, abn, gst_registered, gst_basis, bas_frequency, fy_start_month, time_zone, ' +
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
  paymentAccountName: 'payment_account_name',
  paymentBsb: 'payment_bsb',
  paymentAccountNumber: 'payment_account_number',
};

/** A patch parsed with the D5 rules (a CLI or a JSON body); BAD_REQUEST naming every bad field. */
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
 * Issue 12 item 4: a BSB without an account number (or the reverse) is no way to pay; the
 * profile after the patch has both or neither. BAD_REQUEST naming the one missing.
 */
function checkPaymentAccount(before: OrgProfile, patch: OrgProfilePatch): void {
  const bsb = patch.paymentBsb === undefined ? before.paymentBsb : patch.paymentBsb;
  const number = patch.paymentAccountNumber === undefined ? before.paymentAccountNumber : patch.paymentAccountNumber;
  if (bsb !== null && number === null) {
    throw new DomainError('BAD_REQUEST', 'paymentAccountNumber: is needed with paymentBsb (customers pay into both)', { field: 'paymentAccountNumber' });
  }
  if (bsb === null && number !== null) {
    throw new DomainError('BAD_REQUEST', 'paymentBsb: is needed with paymentAccountNumber (customers pay into both)', { field: 'paymentBsb' });
  }
}

/**
 * Apply a profile patch as one event, `org` / `org.profile.update` (actor: the owner's user id,
 * or "" for the operator's CLI, D4), whose payload holds each changed field's value before and
 * after. Fields equal to the stored value are not changes; a patch that changes nothing is a
 * no-op with no event (D3).
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
