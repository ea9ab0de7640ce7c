import { eventKinds, events } from '@finance-desk/protocol';
import { orgTimeZone } from '../clock.js';
import { badRequest } from '../errors.js';
import { SYSTEM_NAME, actorNames } from '../governance/actor-name.js';
import { formatCents } from '../money.js';
import { placeholders, readInParts } from '../storage/sql.js';
import type { Queryable } from '../storage/types.js';
import { eventWords, periodWords, type Names, type Said } from './activity-words.js';

/**
 * The owner's activity: the ledger's events, newest first, each in plain words
 * (activity-words.ts), with the names of the people, agents, customers, suppliers, accounts and
 * employees they concern looked up once per page: one bounded query per table, whatever the
 * page holds. Filtered by kind of work and by who acted; a filtered page reads a bounded window
 * of the chain (ACTIVITY_WINDOW events) and pages on from where the window ended, so a rare
 * filter never scans the whole ledger in one request.
 */

export interface Activity {
  readonly seq: number;
  readonly kind: string;
  /** What happened, in the server's words, built from the payload and looked-up names. */
  readonly sentence: string;
  /** Text somebody typed in the act (a description, a reason), labelled as theirs. */
  readonly said: readonly Said[];
  readonly entityId: string;
  readonly actor: string;
  readonly actorName: string;
  readonly at: string;
}

/** The kinds of work the activity page filters by: each a list of event kinds. */
export const ACTIVITY_GROUPS: readonly { readonly key: string; readonly label: string; readonly kinds: readonly string[] }[] = [
  {
    key: 'sales',
    label: 'Sales',
    kinds: [
      events.quoteDraft.kind,
      events.quoteSend.kind,
      events.quoteDecline.kind,
      events.invoiceDraft.kind,
      events.invoiceSend.kind,
      events.invoiceChase.kind,
      events.invoicePayment.kind,
      events.invoiceCredit.kind,
      events.invoiceVoid.kind,
      events.invoiceWriteOff.kind,
      events.invoicePromise.kind,
      events.invoicePaymentDishonour.kind,
      events.statementRun.kind,
      events.creditPrepayment.kind,
      events.creditAllocate.kind,
      events.creditRefund.kind,
    ],
  },
  {
    key: 'bills',
    label: 'Bills and expenses',
    kinds: [
      events.billCapture.kind,
      events.billApprove.kind,
      events.billPayment.kind,
      events.billHold.kind,
      events.billReturn.kind,
      events.billCreditNote.kind,
      events.billPaymentReturn.kind,
      events.billRunExecute.kind,
      events.expenseClaim.kind,
      events.expenseApprove.kind,
      events.expenseReject.kind,
      events.creditPrepayment.kind,
      events.creditAllocate.kind,
      events.creditRefund.kind,
    ],
  },
  {
    key: 'bank',
    label: 'Bank',
    kinds: [
      events.feedImport.kind,
      events.matchAccept.kind,
      events.matchHold.kind,
      events.matchResolve.kind,
      events.receiptRegister.kind,
      events.receiptLink.kind,
      events.lineRecode.kind,
      events.lineUnmatch.kind,
      events.lineSplit.kind,
      events.transferMatch.kind,
      events.bankAccountCreate.kind,
      events.bankAccountUpdate.kind,
    ],
  },
  {
    key: 'payroll',
    label: 'Payroll and people',
    kinds: [
      events.onboardingStart.kind,
      events.onboardingAdvance.kind,
      events.employeeUpdate.kind,
      events.employeeTerminate.kind,
      events.leaveRequest.kind,
      events.leaveApprove.kind,
      events.leaveProvision.kind,
      events.payRunDraft.kind,
      events.payRunSign.kind,
      events.payRunRecall.kind,
      events.stpResubmit.kind,
      events.stpFinalise.kind,
      events.stpLodged.kind,
      events.superPay.kind,
    ],
  },
  {
    key: 'tax',
    label: 'Tax (BAS)',
    kinds: [events.taxPrepare.kind, events.taxHold.kind, events.taxReturn.kind, events.taxSignLodge.kind, events.taxLodged.kind],
  },
  {
    key: 'ledger',
    label: 'Journals and fixed assets',
    kinds: [
      events.journalPost.kind,
      events.journalReverse.kind,
      events.currencyRevalue.kind,
      events.attachmentAdd.kind,
      events.assetDepreciate.kind,
      events.assetDispose.kind,
      events.assetRegister.kind,
    ],
  },
  {
    key: 'approvals',
    label: 'Approvals',
    kinds: [
      events.approvalRequested.kind,
      events.approvalApproved.kind,
      events.approvalDenied.kind,
      events.signatureHold.kind,
      events.policyChanged.kind,
    ],
  },
  {
    key: 'agents',
    label: 'Agents and keys',
    kinds: [
      events.keyIssued.kind,
      events.keyRevoked.kind,
      events.orgPairingCreate.kind,
      events.orgAgentPair.kind,
      events.orgAgentRevoke.kind,
      events.orgOAuthConsent.kind,
      events.orgOAuthDeny.kind,
      events.orgOAuthToken.kind,
      events.itemCreated.kind,
      events.itemClaimed.kind,
      events.askAnswer.kind,
    ],
  },
  {
    key: 'setup',
    label: 'Setup',
    kinds: [
      events.orgCreated.kind,
      events.userAdded.kind,
      events.userDigestSet.kind,
      events.digestSent.kind,
      events.exchangeRateSet.kind,
      events.orgProfileUpdate.kind,
      events.outboxRetry.kind,
      events.contactCreate.kind,
      events.contactUpdate.kind,
      events.accountCreate.kind,
      events.accountUpdate.kind,
      events.accountArchive.kind,
      events.budgetSet.kind,
      events.trackingSet.kind,
      events.repeatingSet.kind,
      events.openingBalancesRecord.kind,
    ],
  },
];

/** Events a filtered page reads at most: the window moves back a page at a time. */
export const ACTIVITY_WINDOW = 2000;
/** People, agents and keys offered in the "who" filter, each kind at most this many. */
const ACTORS_PER_KIND = 100;
/** Ids and account codes looked up for one page at most (a page of 50 events names far fewer). */
const LOOKUPS_MAX = 1000;
const IDS_PER_QUERY = 100;
const ID_PATTERN = /^[a-z]{2,8}_[0-9a-z]{20,32}$/;
const ACCOUNT_FIELDS = ['accountCode', 'fromAccountCode', 'toAccountCode'];

export interface ActivityFilter {
  /** A key of ACTIVITY_GROUPS. */
  readonly group?: string;
  /** An actor id ('' is not offered: the system is `system`). */
  readonly actor?: string;
}

/** The "who" filter's value for the system (its actor id is empty). */
export const SYSTEM_ACTOR = 'system';

/** `kind` and `who` of the activity page's query, checked: an unknown value is a 400 naming the field. */
export function activityFilterOf(kind: string | undefined, who: string | undefined): ActivityFilter {
  const out: { group?: string; actor?: string } = {};
  if (kind !== undefined) {
    if (!ACTIVITY_GROUPS.some((g) => g.key === kind)) {
      throw badRequest(`kind: must be one of ${ACTIVITY_GROUPS.map((g) => g.key).join(', ')}`);
    }
    out.group = kind;
  }
  if (who !== undefined) {
    if (who !== SYSTEM_ACTOR && !ID_PATTERN.test(who)) throw badRequest('who: must be one of the people, agents or keys listed');
    out.actor = who === SYSTEM_ACTOR ? '' : who;
  }
  return out;
}

/** Who may be chosen in the "who" filter: the system, the organisation's people, agents and keys, by name. */
export async function activityActors(q: Queryable, orgId: string): Promise<{ readonly id: string; readonly name: string }[]> {
  const [users, agents, keys] = await Promise.all([
    q.all<{ id: string }>(`SELECT id FROM users WHERE org_id = ? ORDER BY email LIMIT ${ACTORS_PER_KIND}`, [orgId]),
    q.all<{ id: string }>(`SELECT id FROM agents WHERE org_id = ? ORDER BY name LIMIT ${ACTORS_PER_KIND}`, [orgId]),
    // A key bound to an agent acts as its agent: only unbound keys act under their own id.
    q.all<{ id: string }>(
      `SELECT id FROM credentials WHERE org_id = ? AND agent_id IS NULL ORDER BY created_at, id LIMIT ${ACTORS_PER_KIND}`,
      [orgId],
    ),
  ]);
  const ids = [...users, ...agents, ...keys].map((r) => r.id);
  const names = await actorNames(q, orgId, ids);
  return [{ id: SYSTEM_ACTOR, name: SYSTEM_NAME }, ...ids.map((id) => ({ id, name: names.get(id) ?? id }))];
}

interface EventRowDb {
  seq: number;
  kind: string;
  entity_id: string;
  actor: string;
  at: string;
  payload: string;
}

function parsed(payload: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(payload);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Ids and account codes an event names: its entity, id-shaped strings two levels deep, account fields. */
function collect(entityId: string, payload: Record<string, unknown>, ids: Set<string>, codes: Set<string>): void {
  ids.add(entityId);
  const visit = (value: unknown, key: string, depth: number) => {
    if (typeof value === 'string') {
      if (ID_PATTERN.test(value)) ids.add(value);
      if (ACCOUNT_FIELDS.includes(key) || key === 'accounts' || (key === 'code' && depth === 0)) codes.add(value);
    } else if (Array.isArray(value) && depth < 2) {
      for (const v of value.slice(0, 50)) visit(v, key, depth + 1);
    } else if (typeof value === 'object' && value !== null && depth < 2) {
      for (const [k, v] of Object.entries(value)) visit(v, k, depth + 1);
    }
  };
  for (const [k, v] of Object.entries(payload)) visit(v, k, 0);
}

const chunked = <R>(ids: readonly string[], read: (part: readonly string[]) => Promise<R[]>) => readInParts(ids, read, IDS_PER_QUERY);

/** Records by id in words, one query per table (only ids of that table's prefix). */
async function thingsOf(q: Queryable, orgId: string, ids: readonly string[], thisYear: string) {
  const things = new Map<string, string>();
  const read = <R>(prefix: string, sql: (ph: string) => string) =>
    chunked(
      ids.filter((id) => id.startsWith(`${prefix}_`)),
      (part) => q.all<R>(sql(placeholders(part.length)), [orgId, ...part]),
    );
  const [invoices, bills, employees, contacts, banks, credits, assets, runs, bas] = await Promise.all([
    read<{ id: string; number: string | null; payee_name: string; total_cents: number }>(
      'inv',
      (ph) => `SELECT id, number, payee_name, total_cents FROM invoices WHERE org_id = ? AND id IN (${ph})`,
    ),
    read<{ id: string; payee_name: string; total_cents: number }>(
      'bill',
      (ph) => `SELECT id, payee_name, total_cents FROM bills WHERE org_id = ? AND id IN (${ph})`,
    ),
    read<{ id: string; name: string }>('emp', (ph) => `SELECT id, name FROM employees WHERE org_id = ? AND id IN (${ph})`),
    read<{ id: string; name: string }>('con', (ph) => `SELECT id, name FROM contacts WHERE org_id = ? AND id IN (${ph})`),
    read<{ id: string; name: string; account_code: string }>(
      'bac',
      (ph) => `SELECT id, name, account_code FROM bank_accounts WHERE org_id = ? AND id IN (${ph})`,
    ),
    read<{ id: string; name: string; amount_cents: number }>(
      'crd',
      (ph) => `SELECT c.id, n.name, c.amount_cents FROM contact_credits c JOIN contacts n ON n.org_id = c.org_id AND n.id = c.contact_id
               WHERE c.org_id = ? AND c.id IN (${ph})`,
    ),
    read<{ id: string; name: string }>('ast', (ph) => `SELECT id, name FROM assets WHERE org_id = ? AND id IN (${ph})`),
    read<{ id: string; period_start: string; period_end: string }>(
      'pay',
      (ph) => `SELECT id, period_start, period_end FROM pay_runs WHERE org_id = ? AND id IN (${ph})`,
    ),
    read<{ id: string; period_start: string; period_end: string }>(
      'bas',
      (ph) => `SELECT id, period_start, period_end FROM bas_returns WHERE org_id = ? AND id IN (${ph})`,
    ),
  ]);
  for (const i of invoices) things.set(i.id, i.number ? `invoice ${i.number} to ${i.payee_name}` : `the invoice to ${i.payee_name}`);
  for (const b of bills) things.set(b.id, `the bill from ${b.payee_name}`);
  for (const e of employees) things.set(e.id, e.name);
  for (const c of contacts) things.set(c.id, c.name);
  for (const b of banks) things.set(b.id, `${b.name} ${b.account_code}`);
  for (const c of credits) things.set(c.id, `${c.name}'s ${formatCents(Number(c.amount_cents))} credit`);
  for (const a of assets) things.set(a.id, `the fixed asset ${a.name}`);
  for (const r of runs) things.set(r.id, `the pay run for ${periodWords(r.period_start, r.period_end, thisYear) ?? r.period_start}`);
  for (const b of bas) things.set(b.id, `the BAS for ${periodWords(b.period_start, b.period_end, thisYear) ?? b.period_start}`);
  const amounts = new Map<string, number>([...invoices, ...bills].map((d) => [d.id, Number(d.total_cents)]));
  return { things, amounts };
}

/** Names for a page of events: actors, records, accounts and approvals, each in bounded batch queries. */
async function namesFor(q: Queryable, orgId: string, rows: readonly EventRowDb[], viewerId: string, today: string) {
  const ids = new Set<string>();
  const codes = new Set<string>();
  const payloads = rows.map((r) => parsed(r.payload));
  rows.forEach((r, i) => collect(r.entity_id, payloads[i] ?? {}, ids, codes));
  const idList = [...ids].slice(0, LOOKUPS_MAX);
  const codeList = [...codes].slice(0, LOOKUPS_MAX);
  const thisYear = today.slice(0, 4);
  const [timeZone, actors, { things, amounts }, accounts, approvals] = await Promise.all([
    orgTimeZone(q, orgId),
    actorNames(q, orgId, [...rows.map((r) => r.actor), ...idList.filter((id) => /^(usr|agt|key)_/.test(id))]),
    thingsOf(q, orgId, idList, thisYear),
    chunked(codeList, (part) =>
      q.all<{ code: string; name: string }>(`SELECT code, name FROM accounts WHERE org_id = ? AND code IN (${placeholders(part.length)})`, [
        orgId,
        ...part,
      ]),
    ),
    chunked(
      idList.filter((id) => id.startsWith('apr_')),
      (part) =>
        q.all<{ id: string; action_class: string; method: string | null; subject_id: string }>(
          `SELECT id, action_class, method, subject_id FROM approvals WHERE org_id = ? AND id IN (${placeholders(part.length)})`,
          [orgId, ...part],
        ),
    ),
  ]);
  const names: Names = {
    actors,
    things,
    accounts: new Map(accounts.map((a) => [a.code, a.name])),
    amounts,
    approvals: new Map(approvals.map((a) => [a.id, { actionClass: a.action_class, method: a.method, subjectId: a.subject_id }])),
    viewerId,
    thisYear,
    timeZone,
  };
  return { names, payloads };
}

export interface ActivityQuery extends ActivityFilter {
  readonly limit: number;
  readonly beforeSeq?: number;
  readonly entityId?: string;
  /** The signed-in person: their own acts read "You …". */
  readonly viewerId: string;
  /** The organisation's today (dates in its year leave the year out). */
  readonly today: string;
}

/**
 * The newest events first, at most `limit`: before `beforeSeq` when paging back, of one entity,
 * or of a kind of work and who acted (in a window of ACTIVITY_WINDOW events; `nextBefore` then
 * continues below the window when it found fewer than a page). `searchedFrom`: the oldest seq a
 * filtered page looked at.
 */
export async function activityOf(
  q: Queryable,
  orgId: string,
  f: ActivityQuery,
): Promise<{ items: Activity[]; nextBefore: number | null; searchedFrom: number | null }> {
  const where = ['org_id = ?'];
  const args: (string | number)[] = [orgId];
  const filtered = f.group !== undefined || f.actor !== undefined;
  let windowFloor: number | null = null;
  if (filtered) {
    const head = await q.get<{ seq: number }>('SELECT seq FROM org_heads WHERE org_id = ?', [orgId]);
    const top = f.beforeSeq ?? Number(head?.seq ?? 0) + 1;
    windowFloor = Math.max(1, top - ACTIVITY_WINDOW);
    where.push('seq >= ?');
    args.push(windowFloor);
  }
  if (f.beforeSeq !== undefined) {
    where.push('seq < ?');
    args.push(f.beforeSeq);
  }
  if (f.entityId !== undefined) {
    where.push('entity_id = ?');
    args.push(f.entityId);
  }
  if (f.group !== undefined) {
    const kinds = ACTIVITY_GROUPS.find((g) => g.key === f.group)?.kinds ?? [];
    where.push(`kind IN (${placeholders(kinds.length)})`);
    args.push(...kinds);
  }
  if (f.actor !== undefined) {
    where.push('actor = ?');
    args.push(f.actor);
  }
  const rows = await q.all<EventRowDb>(
    `SELECT seq, kind, entity_id, actor, at, payload FROM events WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ${f.limit + 1}`,
    args,
  );
  const page = rows.slice(0, f.limit);
  const { names, payloads } = await namesFor(q, orgId, page, f.viewerId, f.today);
  const items = page.map((r, i) => {
    const w = eventWords({ kind: r.kind, entityId: r.entity_id, actor: r.actor, payload: payloads[i] ?? {} }, names);
    return {
      seq: Number(r.seq),
      kind: r.kind,
      sentence: w.sentence,
      said: w.said,
      entityId: r.entity_id,
      actor: r.actor,
      actorName: names.actors.get(r.actor) ?? r.actor,
      at: r.at,
    };
  });
  const last = page.at(-1);
  let nextBefore: number | null = rows.length > f.limit && last ? Number(last.seq) : null;
  // A filtered window that found less than a page continues below it, while there is more chain.
  if (nextBefore === null && windowFloor !== null && windowFloor > 1) nextBefore = windowFloor;
  return { items, nextBefore, searchedFrom: windowFloor };
}

/** Every kind of the catalogue is in some group (the activity test checks it). */
export const groupedKinds = (): ReadonlySet<string> => new Set(ACTIVITY_GROUPS.flatMap((g) => g.kinds));
export const catalogueKinds = (): readonly string[] => eventKinds.map((k) => k.kind);
