import { ACTION_CLASS, events, payroll, people } from '@finance-desk/protocol';
import { localDate } from '../clock.js';
import { formatCents, formatCentsIn } from '../money.js';

/**
 * Each ledger event as one sentence an owner reads: who did what, to whom, for how much, when.
 * Built only from the event's payload and names looked up for the page (activity.ts), never from
 * the event catalogue's definitions (those say what a kind records, not what happened). Every
 * kind of the catalogue has its own sentence (the activity test walks the catalogue). Text
 * somebody typed (a description, a reason, a note) is never part of the sentence: it is returned
 * beside it, to be shown quoted and labelled as theirs. A payload missing a field (an event
 * written before the field existed) leaves that part of the sentence out; nothing here throws.
 */

/** Names the page looked up in batch (activity.ts lookups). */
export interface Names {
  /** Actor and key/agent/user ids to display names (governance/actor-name.ts). */
  readonly actors: ReadonlyMap<string, string>;
  /** Account code to the chart's name. */
  readonly accounts: ReadonlyMap<string, string>;
  /** Document and record ids (invoices, bills, employees, contacts, bank accounts, credits, assets, pay runs) to words. */
  readonly things: ReadonlyMap<string, string>;
  /** Totals of the invoices and bills in `things`, for acts that name them without an amount. */
  readonly amounts: ReadonlyMap<string, number>;
  /** Approvals by id: the act asked for (its class, method and subject). */
  readonly approvals: ReadonlyMap<string, { readonly actionClass: string; readonly method: string | null; readonly subjectId: string }>;
  /** The signed-in person: their own acts read "You …". */
  readonly viewerId: string;
  /** The organisation's current year (YYYY): dates in it leave the year out. */
  readonly thisYear: string;
  /** The organisation's time zone: an instant (an expiry) is shown as its local date. */
  readonly timeZone: string;
}

export interface Said {
  /** "agent's reason", "your note". */
  readonly label: string;
  readonly text: string;
}

export interface Words {
  readonly sentence: string;
  readonly said: readonly Said[];
}

export interface EventRow {
  readonly kind: string;
  readonly entityId: string;
  readonly actor: string;
  readonly payload: Readonly<Record<string, unknown>>;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** Typed text shown beside a sentence is cut to this many characters. */
const SAID_MAX = 160;

/** "12 Dec", or "12 Dec 2025" outside `thisYear`; anything not a date is shown as given. */
export function dayWords(date: string, thisYear: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(date);
  if (!m) return date;
  const [, y = '', mo = '', d = ''] = m;
  const month = MONTHS[Number(mo) - 1] ?? mo;
  return `${Number(d)} ${month}${y === thisYear ? '' : ` ${y}`}`;
}

function lastDayOf(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A period: "Jul–Sep" when it is whole months, else "1 Jul – 15 Jul"; the year when not this one. */
export function periodWords(start: string | null, end: string | null, thisYear: string): string | null {
  if (start === null || end === null) return null;
  const a = /^(\d{4})-(\d{2})-(\d{2})$/.exec(start);
  const b = /^(\d{4})-(\d{2})-(\d{2})$/.exec(end);
  if (a && b && a[3] === '01' && Number(b[3]) === lastDayOf(Number(b[1]), Number(b[2]))) {
    const from = MONTHS[Number(a[2]) - 1] ?? a[2];
    const to = MONTHS[Number(b[2]) - 1] ?? b[2];
    const months = a[1] === b[1] && a[2] === b[2] ? from : `${from}–${to}`;
    const year = a[1] === b[1] ? (b[1] === thisYear ? '' : ` ${b[1]}`) : ` ${a[1]}–${b[1]}`;
    return `${months}${year}`;
  }
  return `${dayWords(start, thisYear)} – ${dayWords(end, thisYear)}`;
}

/** Why the bill-approval rule held a bill, in the owner's words. */
const HELD_WORDS: Readonly<Record<string, string>> = {
  NEW_PAYEE: 'new payee',
  ABOVE_FLOOR: 'above the approval floor',
  BANK_DETAILS_CHANGED: 'new bank details',
};

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
const words = (text: string): string => text.replace(/_/g, ' ');
/** The first letter up, unless the sentence starts with an email address (shown as typed). */
const capitalise = (text: string): string => (/^\S*@/.test(text) ? text : text.charAt(0).toUpperCase() + text.slice(1));

/** An invoice's terms as an owner says them: "due when sent", "due 1 day after it is sent". */
const dueAfterSending = (days: number | null): string =>
  days === null ? '' : days === 0 ? ', due when sent' : `, due ${plural(days, 'day')} after it is sent`;

/** One event being worded: typed accessors over its payload, names, and what was said. */
class Ev {
  readonly said: Said[] = [];
  constructor(
    readonly row: EventRow,
    readonly names: Names,
  ) {}

  /** Who acted: "You" for the signed-in person, else their display name. */
  get who(): string {
    if (this.row.actor !== '' && this.row.actor === this.names.viewerId) return 'you';
    return this.names.actors.get(this.row.actor) ?? this.row.actor;
  }

  /** Whose words typed text is: "your", "agent's", "Sam Lee's". */
  private get whose(): string {
    const a = this.row.actor;
    if (a !== '' && a === this.names.viewerId) return 'your';
    if (a.startsWith('usr_')) return `${this.names.actors.get(a) ?? a}'s`;
    if (a === '') return "the operator's";
    return "agent's";
  }

  s(key: string, from: Readonly<Record<string, unknown>> = this.row.payload): string | null {
    const v = from[key];
    return typeof v === 'string' && v !== '' ? v : null;
  }

  n(key: string, from: Readonly<Record<string, unknown>> = this.row.payload): number | null {
    const v = from[key];
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
  }

  b(key: string): boolean | null {
    const v = this.row.payload[key];
    return typeof v === 'boolean' ? v : null;
  }

  list(key: string): readonly unknown[] {
    const v = this.row.payload[key];
    return Array.isArray(v) ? v : [];
  }

  objects(key: string): readonly Readonly<Record<string, unknown>>[] {
    return this.list(key).filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null);
  }

  obj(key: string): Readonly<Record<string, unknown>> | null {
    const v = this.row.payload[key];
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  }

  /** Money of a field, "$1,234.56", or null when absent. */
  /**
   * An amount: in the document's currency when the payload names one other than AUD ("NZD
   * 1,000.00"), except the AUD figures (`aud…` keys), which are dollars as every other amount.
   */
  $(key: string, from?: Readonly<Record<string, unknown>>): string | null {
    const v = this.n(key, from);
    if (v === null) return null;
    return key.startsWith('aud') ? formatCents(v) : formatCentsIn(v, this.s('currency', from ?? this.row.payload));
  }

  day(key: string, from?: Readonly<Record<string, unknown>>): string | null {
    const v = this.s(key, from);
    if (v === null) return null;
    // An instant (an approval's or a code's expiry) is the organisation's local date.
    const date = /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)) ? localDate(v, this.names.timeZone) : v;
    return dayWords(date, this.names.thisYear);
  }

  period(startKey = 'periodStart', endKey = 'periodEnd'): string | null {
    return periodWords(this.s(startKey), this.s(endKey), this.names.thisYear);
  }

  /** An account by its code: "Business bank account 1000". */
  account(code: string | null): string | null {
    if (code === null) return null;
    const name = this.names.accounts.get(code);
    return name ? `${name} ${code}` : `account ${code}`;
  }

  /** A record by id in words (looked up for the page), or null when unknown. */
  thing(id: string | null): string | null {
    return id === null ? null : (this.names.things.get(id) ?? null);
  }

  actor(id: string | null): string | null {
    return id === null ? null : (this.names.actors.get(id) ?? id);
  }

  /** Keep text somebody typed, to be shown quoted beside the sentence. */
  quote(key: string, what = key): void {
    const v = this.s(key);
    if (v === null || v.trim() === '') return;
    const chars = [...v];
    this.said.push({ label: `${this.whose} ${what}`, text: chars.length > SAID_MAX ? `${chars.slice(0, SAID_MAX).join('')}…` : v });
  }

  /** The entity as a document (invoice, bill, employee …), looked up for the page. */
  get subject(): string | null {
    return this.thing(this.row.entityId);
  }
}

/** " for $330.00" when the value is present, else "". */
const opt = (before: string, value: string | null | undefined, after = ''): string =>
  value === null || value === undefined ? '' : `${before}${value}${after}`;

type Worder = (e: Ev) => string;

const heldSuffix = (e: Ev): string => {
  const reason = e.s('heldReason');
  return reason === null ? '' : ` — held: ${HELD_WORDS[reason] ?? words(reason).toLowerCase()}`;
};

/** The invoice an event is about: "invoice INV-0001 to Acme" (looked up), else "an invoice to Acme". */
const invoiceOf = (e: Ev): string => e.subject ?? `an invoice${opt(' to ', e.s('payee'))}`;
const billOf = (e: Ev): string => e.subject ?? `a bill${opt(' from ', e.s('payee'))}`;
const employeeOf = (e: Ev, key = 'employeeId'): string => e.thing(e.s(key)) ?? e.subject ?? 'an employee';
const fundingOf = (e: Ev): string | null => e.thing(e.s('fundingAccountId')) ?? e.s('fundingAccount');
const documentOf = (e: Ev, id: string | null, kind: string | null): string =>
  e.thing(id) ?? (kind === 'journal' ? 'a journal' : kind === 'claim' ? 'an expense claim' : `a ${kind ?? 'document'}`);
const lineWords = (e: Ev): string => {
  const amount = e.n('lineAmountCents');
  const money = amount === null ? '' : amount < 0 ? ` of ${formatCents(-amount)} out` : ` of ${formatCents(amount)} in`;
  return `the bank line${money}${opt(' on ', e.day('date'))}`;
};
/** What a bank line was matched to: the document by name, else its kind and the party. */
const matchTarget = (e: Ev): string => {
  const known = e.thing(e.s('targetId'));
  return known ?? `${documentOf(e, null, e.s('targetKind'))}${opt(' (', e.s('party'), ')')}`;
};
/** A key's label, or null when it has none (an unlabelled key's id is left to the details). */
const keyLabel = (e: Ev, keyId: string | null): string | null => {
  const name = e.actor(keyId);
  return name === null || name === keyId || name.startsWith('unlabelled ') ? null : name;
};
/** ", 1 Jul to 2 Jul", or ", on 26 Nov" for one day. */
const daysWords = (e: Ev, startKey: string, endKey: string): string => {
  const start = e.day(startKey);
  const end = e.day(endKey);
  if (start === null) return '';
  return end === null || end === start ? `, on ${start}` : `, ${start} to ${end}`;
};
const basWords = (e: Ev): string => `the BAS for ${e.period() ?? 'a period'}`;
const netWords = (e: Ev): string => {
  const net = e.n('netCents');
  if (net === null) return '';
  return net >= 0 ? `: ${formatCents(net)} payable` : `: ${formatCents(-net)} refundable`;
};
const hours = (e: Ev): string | null => {
  const milli = e.n('milliHours');
  if (milli !== null) return `${milli / 1000} hours`;
  const h = e.n('hours');
  return h === null ? null : plural(h, 'hour');
};
const payTotals = (e: Ev): string => {
  const t = e.obj('totals');
  if (!t) return '';
  return `${opt(' gross ', e.$('grossCents', t))}${opt(', net pay ', e.$('netCents', t))}`;
};
const receiptWords = (e: Ev, fileKey = 'fileName', hashKey = 'sha256'): string => {
  const hash = e.s(hashKey);
  return `${opt(', receipt ', e.s(fileKey))}${hash ? ` (${hash.slice(0, 6)}…)` : ''}`;
};

const SENTENCES: Readonly<Record<string, Worder>> = {
  // ---- org ----
  [events.orgCreated.kind]: (e) => `${e.who} set up the organisation${opt(' ', e.s('name'))}${opt(', in time zone ', e.s('timeZone'))}`,
  [events.keyIssued.kind]: (e) => {
    const tier = opt('', e.s('tier'), '-tier');
    const agent = e.actor(e.s('agentId'));
    if (agent) return `${e.who} issued ${tier ? `an ${tier}` : 'a'} key for ${agent}`;
    const label = e.s('label') ?? keyLabel(e, e.s('keyId'));
    return `${e.who} issued ${tier ? `an ${tier}` : 'a'} key${label ? ` labelled ${label}` : ' without a label'}`;
  },
  [events.keyRevoked.kind]: (e) => {
    const label = keyLabel(e, e.s('keyId'));
    return `${e.who} revoked ${label ? `the key ${label}` : 'an unlabelled key'}`;
  },
  [events.outboxRetry.kind]: (e) => {
    const channels = Object.keys(e.obj('channels') ?? {}).map(words);
    return `${e.who} put ${plural(e.n('requeued') ?? 0, 'undelivered message')} back in the queue${channels.length ? ` (${channels.join(', ')})` : ''}`;
  },
  [events.exchangeRateSet.kind]: (e) => {
    const rates = (e.row.payload.rates as { currency?: string; date?: string; rate?: string }[] | undefined) ?? [];
    const shown = rates
      .slice(0, 3)
      .map((r) => `${r.currency ?? '?'} on ${dayWords(r.date ?? '', e.names.thisYear)} at ${r.rate ?? '?'}`)
      .join(', ');
    return `${e.who} set ${plural(rates.length, 'exchange rate')} (Australian dollars per unit)${shown ? `: ${shown}${rates.length > 3 ? ', …' : ''}` : ''}`;
  },
  [events.currencyRevalue.kind]: (e) => {
    const gain = e.n('audGainCents') ?? 0;
    const docs = (e.row.payload.documents as unknown[] | undefined)?.length ?? 0;
    return `${e.who} revalued ${plural(docs, 'open foreign document')} at ${e.day('date') ?? 'a date'}: ${formatCents(Math.abs(gain))} ${
      gain >= 0 ? 'unrealised gain' : 'unrealised loss'
    }, reversed ${e.day('reversalDate') ?? 'the next day'}`;
  },
  [events.userDigestSet.kind]: (e) =>
    `${e.who} turned ${e.s('userId') === e.row.actor ? 'their own' : `${e.names.actors.get(e.s('userId') ?? '') ?? 'a person'}'s`} weekly digest email ${e.s('weeklyDigest') === 'on' ? 'on' : 'off'}`.replace(
      /^you turned their own/,
      'you turned your',
    ),
  [events.digestSent.kind]: (e) =>
    `${e.who} sent the weekly digest for ${periodWords(e.s('weekFrom'), e.s('weekTo'), e.names.thisYear) ?? 'last week'} to ${plural(
      (e.row.payload.recipientIds as unknown[] | undefined)?.length ?? 0,
      'person',
      'people',
    )}: ${plural(e.n('agentActs') ?? 0, 'change')} by agents, ${plural(e.n('approvalsWaiting') ?? 0, 'approval')} waiting${
      e.b('chainVerified') === false ? '; the chain did NOT verify' : ''
    }`,
  [events.userAdded.kind]: (e) => {
    const name = e.s('name');
    const email = e.s('email');
    return `${e.who} added ${name ? `${name}${opt(' (', email, ')')}` : (email ?? 'a person')}${opt(' as ', e.s('role'))}`;
  },
  [events.orgProfileUpdate.kind]: (e) => {
    const fields = e.list('fields').filter((f): f is string => typeof f === 'string');
    return `${e.who} changed the organisation's details${fields.length ? `: ${fields.map(profileFieldWords).join(', ')}` : ''}`;
  },
  [events.orgPairingCreate.kind]: (e) =>
    `${e.who} made a pairing code for a new agent${opt(' named ', e.s('agentName'))}${opt(' (', e.s('tier'), ' tier)')}${opt(', valid until ', e.day('expiresAt'))}`,
  [events.orgAgentPair.kind]: (e) => `${e.who} connected using its pairing code${opt(' (', e.s('tier'), ' tier)')}`,
  [events.orgAgentRevoke.kind]: (e) =>
    `${e.who} disconnected ${e.row.actor !== '' && e.row.actor === e.s('agentId') ? 'itself' : opt('the agent ', e.s('name')) || 'an agent'} and revoked ${plural(e.n('keyCount') ?? 0, 'key')}`,
  [events.orgOAuthConsent.kind]: (e) =>
    `${e.who} allowed the connector ${e.s('clientName') ?? e.s('redirectHost') ?? ''} to connect${opt(' at the ', e.s('tier'), ' tier')}`.replace(
      / +/g,
      ' ',
    ),
  [events.orgOAuthDeny.kind]: (e) => `${e.who} refused the connector ${e.s('clientName') ?? e.s('redirectHost') ?? ''}`.trim(),
  [events.orgOAuthToken.kind]: (e) => `${e.who} connected as a remote connector${opt(' (', e.s('tier'), ' tier)')}`,
  // ---- approvals and policy ----
  [events.approvalRequested.kind]: (e) =>
    `${e.who} asked for a person's approval to ${approvalWords(e)}${opt(', open until ', e.day('expiresAt'))}`,
  [events.approvalApproved.kind]: (e) => {
    e.quote('reason');
    return `${e.who} approved the request to ${approvalWords(e)}`;
  },
  [events.approvalDenied.kind]: (e) => {
    e.quote('reason');
    return `${e.who} refused the request to ${approvalWords(e)}`;
  },
  [events.policyChanged.kind]: (e) => `${e.who} changed the approval policy${policyChanges(e)}`,
  // ---- board ----
  [events.itemCreated.kind]: (e) => {
    e.quote('title', 'task');
    return `${e.who} put a task on the board${opt(' (', e.s('priority'), ' priority)')}`;
  },
  [events.itemClaimed.kind]: (e) => `${e.who} took a task from the board`,
  // ---- the signature engine ----
  [events.signatureHold.kind]: (e) =>
    `${e.who} tried to ${actWords(e, e.s('actionClass'), e.s('method'), e.s('subjectId'))}; that needs a person's approval, so it waits for one`,
  // ---- sales ----
  [events.invoiceDraft.kind]: (e) => {
    e.quote('description');
    return `${e.who} drafted an invoice to ${e.s('payee') ?? 'a customer'}${opt(' for ', e.$('totalCents'))}${dueAfterSending(e.n('dueDays'))}${e.s('repeatingId') ? ' (repeating schedule)' : ''}${e.s('quoteId') ? ' (the customer accepted a quote)' : ''}`;
  },
  [events.quoteDraft.kind]: (e) => {
    e.quote('description');
    return `${e.who} drafted quote ${e.s('number') ?? ''} to ${e.s('payee') ?? 'a customer'}${opt(' for ', e.$('totalCents'))}${opt(', open until ', e.day('expiryDate'))}`.replace(
      / +/g,
      ' ',
    );
  },
  [events.quoteSend.kind]: (e) =>
    `${e.who} sent quote ${e.s('number') ?? ''} to ${e.s('payee') ?? 'a customer'}${opt(' for ', e.$('totalCents'))}${opt(', open until ', e.day('expiryDate'))}${
      e.s('channel') === 'email' ? ', emailed' : ', not emailed (no address)'
    }`.replace(/ +/g, ' '),
  [events.quoteDecline.kind]: (e) =>
    `${e.who} recorded that ${e.s('payee') ?? 'the customer'} declined quote ${e.s('number') ?? ''}${opt(' for ', e.$('totalCents'))}`.replace(
      / +/g,
      ' ',
    ),
  [events.invoiceSend.kind]: (e) =>
    `${e.who} sent ${e.s('number') ? `invoice ${e.s('number')}` : 'an invoice'} to ${e.s('payee') ?? 'a customer'}${opt(' for ', e.$('totalCents'))}${opt(', due ', e.day('dueOn'))}${
      e.s('channel') === 'email' ? `, emailed to ${plural(e.n('recipients') ?? 0, 'address', 'addresses')}` : ', not emailed (no address)'
    }`,
  [events.invoiceChase.kind]: (e) =>
    `${e.who} sent reminder ${e.n('step') ?? ''} for ${invoiceOf(e)}${opt(': ', e.$('outstandingCents'), ' still owed')}`.replace(
      / +/g,
      ' ',
    ),
  [events.invoicePayment.kind]: (e) => {
    e.quote('reference');
    const credit = e.$('creditCents');
    return `${e.who} recorded a payment of ${e.$('amountCents') ?? 'an amount'}${e.subject ? '' : opt(' from ', e.s('payee'))} on ${invoiceOf(e)}${opt(' into ', e.account(e.s('accountCode')))}${opt(', received ', e.day('date'))}${opt('; ', e.$('outstandingCents'), ' still owed')}${opt('; ', credit, ' kept as their credit')}`;
  },
  [events.invoiceCredit.kind]: (e) => {
    e.quote('reason');
    return `${e.who} issued a credit note of ${e.$('amountCents') ?? 'an amount'} against ${invoiceOf(e)}${opt('; ', e.$('outstandingCents'), ' still owed')}${opt('; ', e.$('creditCents'), ' kept as their credit')}${e.s('channel') === 'email' ? ', emailed' : ''}`;
  },
  [events.invoiceVoid.kind]: (e) => {
    e.quote('reason');
    return `${e.who} voided ${invoiceOf(e)}${opt(' for ', e.$('totalCents'))}${e.s('journalId') ? ', reversing what it posted' : ''}`;
  },
  [events.invoiceWriteOff.kind]: (e) => {
    e.quote('reason');
    return `${e.who} wrote off ${e.$('amountCents') ?? 'what was owed'} on ${invoiceOf(e)} as a bad debt${opt(', dated ', e.day('date'))}`;
  },
  [events.invoicePromise.kind]: (e) =>
    `${e.who} noted a promise to pay ${e.$('amountCents') ?? 'an amount'} on ${invoiceOf(e)} by ${e.day('promisedOn') ?? 'a date'}${e.b('hasNote') ? ' (with a note, kept with the promise)' : ''}`,
  [events.statementRun.kind]: (e) =>
    `${e.who} sent statements${e.s('payeeName') ? ` to ${e.s('payeeName')}` : ` to ${plural(e.n('customers') ?? 0, 'customer')}`}${opt(' as at ', e.day('asOf'))}: ${plural(e.n('invoices') ?? 0, 'open invoice')}, ${e.$('openCents') ?? '$0.00'} owed`,
  // ---- credits ----
  [events.billCreditNote.kind]: (e) => {
    e.quote('reason');
    return `${e.who} recorded an adjustment note of ${e.$('amountCents') ?? 'an amount'} on ${billOf(e)}${opt('; ', e.$('outstandingCents'), ' still to pay')}${e.n('creditCents') ? `; ${e.$('creditCents')} kept as a credit from them` : ''}`;
  },
  [events.creditPrepayment.kind]: (e) => {
    e.quote('reference');
    const contact = e.thing(e.s('contactId')) ?? 'a contact';
    const money = e.$('amountCents') ?? 'an amount';
    return e.s('side') === 'supplier'
      ? `${e.who} recorded ${money} paid in advance to ${contact} from ${e.account(e.s('accountCode')) ?? 'a bank account'}${opt(' on ', e.day('date'))}, kept as a credit`
      : `${e.who} recorded ${money} received in advance from ${contact} into ${e.account(e.s('accountCode')) ?? 'a bank account'}${opt(' on ', e.day('date'))}, kept as their credit`;
  },
  [events.creditAllocate.kind]: (e) =>
    `${e.who} applied ${e.$('amountCents') ?? 'an amount'} of ${e.subject ?? 'a credit'} to ${e.thing(e.s('documentId')) ?? 'a document'}${opt('; ', e.$('outstandingCents'), ' still open on it')}${opt(', ', e.$('creditRemainingCents'), ' of the credit left')}`,
  [events.creditRefund.kind]: (e) => {
    e.quote('reference');
    return `${e.who} refunded ${e.$('amountCents') ?? 'an amount'} of ${e.subject ?? 'a credit'} through ${e.account(e.s('accountCode')) ?? 'a bank account'}${opt(' on ', e.day('date'))}${opt(', ', e.$('creditRemainingCents'), ' of the credit left')}`;
  },
  // ---- bills ----
  [events.billCapture.kind]: (e) => {
    e.quote('description');
    return `${e.who} captured a bill from ${e.s('payee') ?? 'a supplier'}${opt(' for ', e.$('totalCents'))}${opt(', due ', e.day('dueOn'))}${e.s('repeatingId') ? ' (repeating schedule)' : ''}${heldSuffix(e)}`;
  },
  [events.billApprove.kind]: (e) => {
    const assets = e.list('assetIds').length;
    return `${e.who} approved ${billOf(e)}${opt(' for ', e.$('totalCents'))}${e.s('approvalId') ? " with a person's approval" : ''}${assets ? `; ${plural(assets, 'fixed asset')} put on the register` : ''}`;
  },
  [events.billPayment.kind]: (e) => {
    e.quote('reference');
    const gain = e.n('audGainCents') ?? 0;
    return `${e.who} recorded a payment of ${e.$('amountCents') ?? 'an amount'} on ${billOf(e)}${opt(' from ', e.account(e.s('accountCode')))}${opt(', ', e.$('audAmountCents'), ' in Australian dollars')}${
      gain === 0 ? '' : `; ${formatCents(Math.abs(gain))} ${gain > 0 ? 'gained' : 'lost'} on the exchange rate`
    }${e.n('outstandingCents') === 0 ? '; paid in full' : opt('; ', e.$('outstandingCents'), ' still to pay')}`;
  },
  [events.billHold.kind]: (e) => {
    e.quote('reason');
    return `${e.who} put ${billOf(e)}${opt(' for ', e.$('totalCents'))} on hold`;
  },
  [events.billReturn.kind]: (e) => {
    e.quote('reason');
    return `${e.who} returned ${billOf(e)}${opt(' for ', e.$('totalCents'))}${e.s('reversalJournalId') ? ', reversing what it posted' : ''}`;
  },
  [events.billRunExecute.kind]: (e) =>
    `${e.who} paid ${plural(e.n('billCount') ?? e.objects('bills').length, 'bill')}, ${e.$('totalCents') ?? 'an amount'}${opt(', from ', fundingOf(e))}${opt(', on ', e.day('paymentDate'))}${opt(' (bank file ', e.s('fileName'), ')')}`,
  [events.expenseClaim.kind]: (e) => {
    e.quote('description');
    return `${e.who} submitted ${e.s('claimant') ?? 'an employee'}'s expense claim for ${e.$('amountCents') ?? 'an amount'}${opt(', spent ', e.day('spentOn'))}`;
  },
  [events.expenseApprove.kind]: (e) =>
    `${e.who} approved ${e.s('claimant') ?? 'an employee'}'s expense claim for ${e.$('amountCents') ?? 'an amount'}`,
  [events.expenseReject.kind]: (e) => {
    e.quote('reason');
    return `${e.who} rejected ${e.s('claimant') ?? 'an employee'}'s expense claim for ${e.$('amountCents') ?? 'an amount'}`;
  },
  // ---- bank ----
  [events.feedImport.kind]: (e) => {
    const dup = e.n('duplicates') ?? 0;
    const from = e.s('fromDate');
    const dates = from !== null && from === e.s('toDate') ? ` dated ${e.day('fromDate')}` : opt(' for ', e.period('fromDate', 'toDate'));
    return `${e.who} imported ${plural(e.n('imported') ?? 0, 'bank line')} into ${e.account(e.s('accountCode')) ?? 'a bank account'}${dates}: ${e.$('inCents') ?? '$0.00'} in, ${e.$('outCents') ?? '$0.00'} out${dup ? `; ${plural(dup, 'duplicate')} left out` : ''}`;
  },
  [events.matchAccept.kind]: (e) => `${e.who} matched ${lineWords(e)} to ${matchTarget(e)}${opt(': ', e.$('amountCents'))}`,
  [events.matchHold.kind]: (e) =>
    `${e.who} matched ${lineWords(e)} to ${documentOf(e, e.s('targetId'), e.s('targetKind'))}${opt(' for ', e.$('amountCents'))}; it is above ${e.$('materialityFloorCents') ?? 'the floor'}, so it waits for a person`,
  [events.matchResolve.kind]: (e) =>
    `${e.who} confirmed the held match of ${lineWords(e)} to ${matchTarget(e)}${opt(': ', e.$('amountCents'))}`,
  [events.receiptRegister.kind]: (e) =>
    `${e.who} kept a receipt file${opt(' (', e.s('mimeType'), ')')}${e.s('linkKind') ? ` with ${e.s('linkKind') === 'claim' ? 'an expense claim' : 'a bank line'}` : ''}`,
  [events.receiptLink.kind]: (e) => `${e.who} linked a kept receipt to ${e.s('linkKind') === 'claim' ? 'an expense claim' : 'a bank line'}`,
  [events.lineRecode.kind]: (e) =>
    `${e.who} coded ${lineWords(e)} to ${e.account(e.s('accountCode')) ?? 'an account'}${e.s('reversedJournalId') ? ', replacing its earlier coding' : ''}`,
  [events.journalPost.kind]: (e) => {
    const accounts = e
      .list('accounts')
      .filter((a): a is string => typeof a === 'string')
      .slice(0, 4)
      .map((a) => e.account(a));
    return `${e.who} posted a journal of ${e.$('totalCents') ?? 'an amount'}${opt(' dated ', e.day('date'))}${accounts.length ? ` to ${accounts.join(', ')}` : ''}`;
  },
  [events.attachmentAdd.kind]: (e) =>
    `${e.who} attached a file to ${e.thing(e.s('documentId')) ?? `a ${e.s('documentKind') ?? 'document'}`}${opt(' (', e.s('mimeType'), ')')}`,
  [events.openingBalancesRecord.kind]: (e) =>
    `${e.who} recorded the opening balances${opt(' as at ', e.day('conversionDate'))}: ${plural(e.n('invoiceCount') ?? 0, 'invoice')} (${e.$('receivablesCents') ?? '$0.00'} owed to you), ${plural(
      e.n('billCount') ?? 0,
      'bill',
    )} (${e.$('payablesCents') ?? '$0.00'} you owe)`,
  [events.lineUnmatch.kind]: (e) => {
    e.quote('reason');
    return `${e.who} undid the matching of ${lineWords(e)}${e.objects('reversed').length ? `, reopening ${plural(e.objects('reversed').length, 'match', 'matches')}` : ''}`;
  },
  [events.invoicePaymentDishonour.kind]: (e) => {
    e.quote('reason');
    return `${e.who} recorded that a payment of ${e.$('amountCents') ?? 'an amount'} on ${invoiceOf(e)} bounced${opt('; ', e.$('outstandingCents'), ' is owed again')}`;
  },
  [events.billPaymentReturn.kind]: (e) => {
    e.quote('reason');
    return `${e.who} recorded that a payment of ${e.$('amountCents') ?? 'an amount'} on ${billOf(e)} came back${opt('; ', e.$('outstandingCents'), ' is to pay again')}`;
  },
  [events.journalReverse.kind]: (e) => {
    e.quote('reason');
    return `${e.who} reversed a journal of ${e.$('totalCents') ?? 'an amount'}${opt(', dated ', e.day('date'))}`;
  },
  [events.bankAccountCreate.kind]: (e) =>
    `${e.who} added the ${words(e.s('kind') ?? 'bank')} account ${e.s('name') ?? ''}${opt(' (', e.s('accountCode'), ')')}${opt(', number ending ', e.s('accountNumberEnding'))}`.replace(
      / +/g,
      ' ',
    ),
  [events.bankAccountUpdate.kind]: (e) => {
    const changed = e.list('changed').filter((c): c is string => typeof c === 'string');
    return `${e.who} changed ${e.thing(e.s('bankAccountId')) ?? e.account(e.s('accountCode')) ?? 'a bank account'}'s details${changed.length ? `: ${changed.map(bankFieldWords).join(', ')}` : ''}`;
  },
  [events.transferMatch.kind]: (e) =>
    `${e.who} matched a transfer of ${e.$('amountCents') ?? 'an amount'} from ${e.account(e.s('fromAccountCode')) ?? 'one account'} to ${e.account(e.s('toAccountCode')) ?? 'another'}${opt(' on ', e.day('fromDate'))}`,
  [events.lineSplit.kind]: (e) => `${e.who} split ${lineWords(e)} over ${plural(e.objects('parts').length, 'part')}`,
  // ---- tax ----
  [events.taxPrepare.kind]: (e) => `${e.who} prepared ${basWords(e)}${netWords(e)}${opt(' (', e.s('basis'), ' basis)')}`,
  [events.taxHold.kind]: (e) => {
    e.quote('reason');
    return `${e.who} held ${basWords(e)}${netWords(e)}`;
  },
  [events.taxReturn.kind]: (e) => {
    e.quote('reason');
    return `${e.who} sent ${basWords(e)} back to be prepared again${netWords(e)}`;
  },
  [events.taxSignLodge.kind]: (e) => `${e.who} signed ${basWords(e)}${netWords(e)}; it is queued for lodgement`,
  [events.taxLodged.kind]: (e) => `${capitalise(basWords(e))} was lodged${receiptWords(e)}`,
  // ---- fixed assets ----
  [events.assetDepreciate.kind]: (e) =>
    `${e.who} ran depreciation${opt(' to ', e.day('periodEnd'))}: ${e.$('totalCents') ?? '$0.00'} over ${plural(e.objects('assets').length, 'asset')}`,
  [events.assetDispose.kind]: (e) => {
    const gain = e.n('gainCents') ?? 0;
    const loss = e.n('lossCents') ?? 0;
    return `${e.who} disposed of ${e.subject ?? 'a fixed asset'}${opt(' for ', e.$('proceedsCents'))}${opt(' on ', e.day('date'))}${gain ? `, a gain of ${formatCents(gain)}` : ''}${loss ? `, a loss of ${formatCents(loss)}` : ''}`;
  },
  [events.assetRegister.kind]: (e) =>
    `${e.who} registered the fixed asset ${e.s('name') ?? ''}${opt(' costing ', e.$('costCents'))}${opt(', depreciated over ', e.n('effectiveLifeYears')?.toString() ?? null, ' years')}${opt(' from ', e.day('startDate'))}`.replace(
      / +/g,
      ' ',
    ),
  // ---- people ----
  [events.onboardingStart.kind]: (e) =>
    `${e.who} started onboarding ${e.s('name') ?? 'an employee'}${opt(' (', e.s('employmentBasis') ? words(e.s('employmentBasis') ?? '') : null, ')')}${opt(', starting ', e.day('startDate'))}${
      e.n('annualSalaryCents') !== null
        ? `, ${e.$('annualSalaryCents')} a year`
        : e.n('hourlyRateCents') !== null
          ? `, ${e.$('hourlyRateCents')} an hour`
          : ''
    }`,
  [events.onboardingAdvance.kind]: (e) => {
    const step = e.s('step');
    const who = employeeOf(e);
    if (step === 'tax_declaration') return `${e.who} recorded ${who}'s tax declaration`;
    if (step === 'super') return `${e.who} recorded ${who}'s super fund${opt(', ', e.s('fundName'))}`;
    return `${e.who} issued ${who}'s employment contract${opt(' as ', e.s('title'))}${opt(', starting ', e.day('startDate'))}`;
  },
  [events.employeeUpdate.kind]: (e) => {
    const changed = e.list('changed').filter((c): c is string => typeof c === 'string');
    return `${e.who} changed ${employeeOf(e)}'s ${changed.length ? changed.map(termWords).join(', ') : 'terms'}${opt(' from ', e.day('effectiveFrom'))}`;
  },
  [events.employeeTerminate.kind]: (e) =>
    `${e.who} recorded that ${employeeOf(e)}'s employment ends${opt(' on ', e.day('terminationDate'))}${opt(' (', e.s('reason') ? words(e.s('reason') ?? '') : null, ')')}`,
  [events.leaveRequest.kind]: (e) =>
    `${e.who} asked for ${opt('', hours(e), ' of ')}${e.s('leaveType') ?? ''} leave for ${employeeOf(e)}${daysWords(e, 'startDate', 'endDate')}${e.s('warning') ? ' (more than the balance)' : ''}`.replace(
      / +/g,
      ' ',
    ),
  [events.leaveApprove.kind]: (e) =>
    `${e.who} approved ${opt('', hours(e), ' of ')}${e.s('leaveType') ?? ''} leave for ${employeeOf(e)}`.replace(/ +/g, ' '),
  // ---- payroll ----
  [events.payRunDraft.kind]: (e) =>
    `${e.who} drafted a pay run for ${e.period() ?? 'a period'}${opt(', paid ', e.day('paymentDate'))}: ${plural(e.objects('lines').length, 'employee')},${payTotals(e)}`,
  [events.payRunSign.kind]: (e) =>
    `${e.who} signed the pay run${opt(' paid ', e.day('paymentDate'))}: ${plural(e.objects('lines').length, 'employee')},${payTotals(e)}${opt(', from ', fundingOf(e))}`,
  [events.payRunRecall.kind]: (e) => {
    e.quote('reason');
    return `${e.who} recalled ${e.subject ?? 'a pay run'}${e.s('from') === 'signed' ? ', reversing what it posted and queuing a correction to the tax office' : ''}`;
  },
  [events.stpResubmit.kind]: (e) => {
    e.quote('reason');
    return `${e.who} sent the payroll report of ${e.thing(e.s('payRunId')) ?? 'a pay run'} to the tax office again`;
  },
  [events.stpFinalise.kind]: (e) => {
    e.quote('reason');
    return `${e.who} ${e.s('kind') === 'amendment' ? 'amended' : 'finalised'} the payroll year ${e.s('financialYear') ?? ''} for ${plural(e.list('employeeIds').length, 'employee')}`.replace(
      / +/g,
      ' ',
    );
  },
  [events.leaveProvision.kind]: (e) =>
    `${e.who} brought the leave provision to ${e.$('totalCents') ?? 'its total'}${opt(' as at ', e.day('asAt'))} for ${plural(e.n('employeeCount') ?? 0, 'employee')}${opt(' (a change of ', e.$('differenceCents'), ')')}`,
  [events.superPay.kind]: (e) =>
    `${e.who} paid ${e.$('totalCents') ?? 'an amount'} of super to ${plural(e.objects('funds').length, 'fund')} for ${plural(e.list('payRunIds').length, 'pay run')}${opt(', on ', e.day('paymentDate'))}${opt(', from ', fundingOf(e))}`,
  [events.stpLodged.kind]: (e) => {
    const run = e.thing(e.s('payRunId'));
    return `The tax office received the payroll report${run ? ` for ${run}` : e.s('kind') === 'finalisation' || e.s('kind') === 'amendment' ? ' for the year' : ''}${receiptWords(e)}`;
  },
  // ---- contacts and the chart ----
  [events.contactCreate.kind]: (e) =>
    e.b('created') === false
      ? `${e.who} found the existing ${e.s('kind') ?? 'contact'} ${e.s('name') ?? ''}`.replace(/ +/g, ' ').trim()
      : `${e.who} added the ${e.s('kind') ?? 'contact'} ${e.s('name') ?? ''}${e.b('hasEmail') ? ' (with an email address)' : ''}`.replace(
          / +/g,
          ' ',
        ),
  [events.contactUpdate.kind]: (e) => {
    const changed = e.list('changed').filter((c): c is string => typeof c === 'string');
    const renamed = e.s('previousName') ? `renamed ${e.s('previousName')} to ${e.s('name') ?? ''}` : null;
    return `${e.who} ${renamed ?? `changed ${e.subject ?? e.s('name') ?? 'a contact'}'s details`}${changed.length ? ` (${changed.map((c) => (c === 'abn' ? 'ABN' : c)).join(', ')})` : ''}`;
  },
  [events.accountCreate.kind]: (e) =>
    `${e.who} added the ${e.s('type') ?? ''} account ${e.s('name') ?? ''}${opt(' (', e.s('code'), ')')} to the chart`.replace(/ +/g, ' '),
  [events.accountUpdate.kind]: (e) => {
    const changed = e.list('changed').filter((c): c is string => typeof c === 'string');
    const renamed = e.s('previousName') ? `renamed the account ${e.s('previousName')} to ${e.s('name') ?? ''}` : null;
    return `${e.who} ${renamed ?? `changed ${e.account(e.s('code')) ?? 'an account'}`}${changed.length ? ` (${changed.map((c) => (c === 'taxCode' ? 'tax code' : c)).join(', ')})` : ''}`;
  },
  [events.accountArchive.kind]: (e) =>
    `${e.who} archived the account ${e.s('name') ?? ''}${opt(' (', e.s('code'), ')')}`.replace(/ +/g, ' '),
  [events.budgetSet.kind]: (e) =>
    `${e.who} set the budget for the year from ${e.day('financialYearStart') ?? 'its start'} on ${plural(e.objects('lines').length, 'account')}`,
  [events.trackingSet.kind]: (e) =>
    `${e.who} ${e.b('created') ? 'created' : 'changed'} the tracking category ${e.s('name') ?? ''}${e.s('previousName') ? ` (was ${e.s('previousName')})` : ''}${
      e.objects('options').length ? ` with ${plural(e.objects('options').length, 'option')}${e.b('created') ? '' : ' changed'}` : ''
    }`.replace(/ +/g, ' '),
  [events.repeatingSet.kind]: (e) => {
    const created = e.list('changed').includes('created');
    return `${e.who} ${created ? 'set up' : 'changed'} a ${e.s('frequency') ?? ''} repeating ${e.s('kind') ?? 'document'} ${e.s('kind') === 'bill' ? 'from' : 'to'} ${e.s('payee') ?? 'a contact'}${opt(', starting ', e.day('startDate'))}${opt(' (now ', e.s('status'), ')')}`.replace(
      / +/g,
      ' ',
    );
  },
  [events.askAnswer.kind]: (e) =>
    `${e.who} asked the books a question${e.s('error') ? ', which could not be answered' : `, answered${e.list('citations').length ? ` citing ${plural(e.list('citations').length, 'record')}` : ''}`}`,
};

/** The approval an event is about, as the act asked for (its payload names the class and subject). */
function approvalWords(e: Ev): string {
  const a = e.names.approvals.get(e.row.entityId);
  return actWords(
    e,
    e.s('actionClass') ?? a?.actionClass ?? null,
    e.s('method') ?? a?.method ?? null,
    e.s('subjectId') ?? a?.subjectId ?? null,
  );
}

/** A held act as what it does ("pay the bill from Acme ($330.00)"), after "approval to". */
function actWords(e: Ev, actionClass: string | null, method: string | null, subjectId: string | null): string {
  const subject = e.thing(subjectId);
  const amount = subjectId === null ? undefined : e.names.amounts.get(subjectId);
  const money = amount === undefined ? '' : ` (${formatCents(amount)})`;
  switch (actionClass) {
    case ACTION_CLASS.billApprove:
      return `pay ${subject ?? 'a held bill'}${money}`;
    case ACTION_CLASS.billScheduleRun:
      return 'release a payment run';
    case ACTION_CLASS.invoiceChaseStep:
      return `send a firmer reminder for ${subject ?? 'an unpaid invoice'}${money}`;
    case ACTION_CLASS.taxSignLodge:
      return `sign and lodge ${subject ?? 'a BAS'}`;
    case ACTION_CLASS.matchHoldResolve:
      return 'confirm a bank match above the floor';
    case ACTION_CLASS.onboardingAdvance:
      return method === people.employeeUpdate.name
        ? `change ${subject ?? 'an employee'}'s net pay bank account`
        : `issue ${subject ? `${subject}'s` : 'an'} employment contract`;
    case ACTION_CLASS.payrollSign:
      if (method === payroll.superPay.name) return "pay super to the employees' funds";
      if (method === payroll.stpFinalise.name) return 'finalise the payroll year with the tax office';
      return `sign ${subject ?? 'a pay run'}`;
    default:
      return 'carry out an act that needs a person';
  }
}

const PROFILE_FIELD_WORDS: Readonly<Record<string, string>> = {
  legalName: 'legal name',
  abn: 'ABN',
  gstRegistered: 'GST registration',
  gstBasis: 'GST basis',
  basFrequency: 'how often the BAS is due',
  financialYearStartMonth: 'financial year start',
  invoicePrefix: 'invoice number prefix',
  invoiceNextNumber: 'next invoice number',
  lockDate: 'lock date',
  paymentAccountName: 'payment account name',
  paymentBsb: 'payment BSB',
  paymentAccountNumber: 'payment account number',
};
const profileFieldWords = (f: string): string => PROFILE_FIELD_WORDS[f] ?? f;

const BANK_FIELD_WORDS: Readonly<Record<string, string>> = {
  bsb: 'BSB',
  accountNumber: 'account number',
  bankCode: 'bank code',
  apcaUserId: 'direct-entry user id',
  userName: 'direct-entry user name',
  remitterName: 'remitter name',
  accountTitle: 'account title',
};
const bankFieldWords = (f: string): string => BANK_FIELD_WORDS[f] ?? f;

const TERM_WORDS: Readonly<Record<string, string>> = {
  annualSalaryCents: 'salary',
  hourlyRateCents: 'hourly rate',
  hoursPerWeek: 'hours a week',
  title: 'job title',
  superFund: 'super fund',
  taxDeclaration: 'tax declaration',
  bankAccount: 'net pay bank account',
};
const termWords = (t: string): string => TERM_WORDS[t] ?? t;

function policyChanges(e: Ev): string {
  const before = e.obj('before');
  const after = e.obj('after');
  if (!before || !after) return '';
  const parts: string[] = [];
  const floor = (key: string, what: string) => {
    const b = e.n(key, before);
    const a = e.n(key, after);
    if (a !== null && a !== b) parts.push(`${what} ${b === null ? '' : `from ${formatCents(b)} `}to ${formatCents(a)}`);
  };
  floor('billApprovalFloorCents', 'bill approval floor');
  floor('materialityFloorCents', 'bank match floor');
  const hoursOf = (v: number | null) => (v === null ? null : `${v / 3_600_000} hours`);
  const expiryBefore = hoursOf(e.n('approvalExpiryMs', before));
  const expiryAfter = hoursOf(e.n('approvalExpiryMs', after));
  if (expiryAfter !== null && expiryAfter !== expiryBefore) parts.push(`approvals open for ${expiryAfter}`);
  if (JSON.stringify(before.decisionRights) !== JSON.stringify(after.decisionRights)) parts.push('who may decide');
  return parts.length ? `: ${parts.join('; ')}` : '';
}

/** The kinds this file words: every kind of the catalogue (the activity test checks it). */
export const WORDED_KINDS: ReadonlySet<string> = new Set(Object.keys(SENTENCES));

/** One event in words, and what was typed in it, to show beside. */
export function eventWords(row: EventRow, names: Names): Words {
  const e = new Ev(row, names);
  const worder = SENTENCES[row.kind];
  // A kind this server does not know (a newer server wrote it): say so rather than guess.
  const sentence = worder ? worder(e) : `${e.who} did something this version of Finance Desk cannot describe`;
  return { sentence: capitalise(sentence.trim()), said: e.said };
}
