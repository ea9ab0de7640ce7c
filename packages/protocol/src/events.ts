import { z } from 'zod';
import { ACTION_CLASSES, HELD_REASONS, USER_ROLES } from './signature.js';
import { TIERS } from './scopes.js';
import { TAX_CODE_NAMES, type TaxCode } from './tax.js';
import * as approvalM from './methods/approval.js';
import * as askM from './methods/ask.js';
import * as attachmentsM from './methods/attachments.js';
import * as assetsM from './methods/assets.js';
import * as boardM from './methods/board.js';
import * as booksM from './methods/books.js';
import * as contactsM from './methods/contacts.js';
import * as correctionsM from './methods/corrections.js';
import * as creditsM from './methods/credits.js';
import * as orgM from './methods/org.js';
import * as payablesM from './methods/payables.js';
import * as payrollM from './methods/payroll.js';
import * as peopleM from './methods/people.js';
import * as receivablesM from './methods/receivables.js';
import * as reconciliationM from './methods/reconciliation.js';
import * as bankAccountsM from './methods/bank-accounts.js';
import * as chartM from './methods/chart.js';
import * as currenciesM from './methods/currencies.js';
import * as repeatingM from './methods/repeating.js';
import * as quotesM from './methods/quotes.js';
import * as taxM from './methods/tax.js';
import { methods } from './methods/index.js';
import type { MethodSpec } from './methods/types.js';
import type { PublicRouteSpec } from './methods/org.js';

/**
 * The event catalogue: every kind of ledger event, declared once with its
 * family, what it records and the exact shape of its payload. The server emits an event by its
 * declaration (`uow.emit(events.invoiceSend, { entityId, payload })`), so no emit site writes a
 * family or kind string, and the payload's type is the schema's input type. The schemas are
 * strict: the test harness checks every event a test writes against them, and the catalogue is
 * published as /api/v1/artifacts/events.json. Payloads are stored as built (canonical JSON),
 * never parsed through these schemas on the write path.
 */

export const EVENT_FAMILIES = ['org', 'approval', 'policy', 'board', 'books'] as const;
export type EventFamily = (typeof EVENT_FAMILIES)[number];

/**
 * Who emits events no API method emits: the operator's CLI (`finance-desk`), the human console,
 * the server itself (the lodgement outbox confirming a receipt), or the OAuth endpoints a remote
 * MCP connector calls (`/token`, `/revoke`; docs/agents.md "OAuth").
 */
export const EVENT_ORIGINS = ['operator', 'console', 'system', 'oauth'] as const;
export type EventOrigin = (typeof EVENT_ORIGINS)[number];

/** A method declaration, the public pairing route, or an origin outside the API. */
export type EventSource = MethodSpec | PublicRouteSpec | EventOrigin;

export interface EventKindSpec<S extends z.ZodType = z.ZodType> {
  readonly family: EventFamily;
  readonly kind: string;
  readonly summary: string;
  readonly payload: S;
  readonly emittedBy: readonly EventSource[];
}

/** The payload an emit site builds for a kind (the schema's input type). */
export type EventPayloadOf<E extends EventKindSpec> = z.input<E['payload']>;

export function eventKind<S extends z.ZodType>(spec: EventKindSpec<S>): EventKindSpec<S> {
  return spec;
}

export const sourceName = (s: EventSource): string => (typeof s === 'string' ? s : s.name);

// Field shapes. Exact types; ids and dates are strings as stored.
const int = () => z.number().int();
const str = () => z.string();
const ids = () => z.array(z.string());
const taxCode = z.enum(TAX_CODE_NAMES as [TaxCode, ...TaxCode[]]);
const actionClass = z.enum(ACTION_CLASSES);
const tier = z.enum(TIERS);
/** Signature acts executed with a human proof name it (governance/signature.ts executeWithProof). */
const proof = { approvalId: z.string().optional() };
const signatureActs: readonly MethodSpec[] = methods.filter((m) => m.kind === 'signature');
const sha256 = () => z.string().regex(/^[0-9a-f]{64}$/);
/**
 * What an event binds besides its own fields (bindings.ts): each journal it posted, with the
 * digest of its lines, and each payment or lodgement file it queued or delivered, with its
 * SHA-256. The write path adds them (an emit site never writes them); events written before the
 * binding have neither, which is why they are optional.
 */
export const journalBindings = z.array(z.strictObject({ id: str(), date: str(), linesSha256: sha256() })).min(1);
export const fileBindings = z.array(z.strictObject({ outboxId: str(), fileName: str(), sha256: sha256() })).min(1);
/** The field of every kind that posts a journal. */
const posting = { journals: journalBindings.optional() };
/** The field of every kind that queues or delivers a payment or lodgement file. */
const filing = { files: fileBindings.optional() };

// Shapes several kinds share. Spread where the fields sit, so each payload keeps its field order.
/** An act the signature engine holds or decides: its class, its subject and the hash of the payload a proof binds. */
const signedAct = { actionClass, subjectId: str(), payloadHash: str() };
/** The customer or supplier contact a document names, and whether this event created it. */
const contactRef = { contactId: str(), contactCreated: z.literal(true).optional() };
/** An invoice's or bill's counterparty and total. */
const payeeTotal = { payee: str(), totalCents: int() };
/** The bank line an event matches, codes, splits or undoes. */
const bankLine = { lineId: str(), lineAmountCents: int(), date: str() };
/** A BAS or pay period, first and last day. */
const period = { periodStart: str(), periodEnd: str() };
/** The masked account a payment file is paid from, and the bank account record (fundingAccountId) when one was used. */
const funding = { fundingAccount: str().nullable(), fundingAccountId: str().optional() };
/** The pending fixed assets a posting put on the register (1500 Plant and equipment lines), when any. */
const assetsRegistered = { assetIds: ids().optional() };
/** A file kept with a document: what identifies its bytes, never the bytes. */
const attachmentRef = { sha256: sha256(), filename: str(), mimeType: str(), sizeBytes: int() };
/** The files a document was created with (attachments.ts), when any. */
const attached = { attachments: z.array(z.strictObject(attachmentRef)).min(1).optional() };
const payFrequency = z.enum(peopleM.PAY_FREQUENCIES);
const basBasis = z.enum(taxM.BAS_BASES);

// ---- org ----

export const orgCreated = eventKind({
  family: 'org',
  kind: 'org.created',
  summary:
    'An organisation was created (`finance-desk org create`): its name, slug, time zone, owner and first keys. Seq 1 of every chain.',
  payload: z.strictObject({
    name: str(),
    slug: str(),
    timeZone: str(),
    ownerUserId: str(),
    keyIds: ids(),
    decisionRights: z.boolean(),
  }),
  emittedBy: ['operator'],
});

export const keyIssued = eventKind({
  family: 'org',
  kind: 'key.issued',
  summary:
    'An API key was issued by the operator (`finance-desk key issue`), for an agent when one is named, with the label the operator gave it (absent when none was given, and on events written before labels).',
  payload: z.strictObject({ keyId: str(), tier, agentId: str().nullable(), label: str().optional() }),
  emittedBy: ['operator'],
});

export const keyRevoked = eventKind({
  family: 'org',
  kind: 'key.revoked',
  summary: 'An API key was revoked by the operator (`finance-desk key revoke`).',
  payload: z.strictObject({ keyId: str() }),
  emittedBy: ['operator'],
});

export const outboxRetry = eventKind({
  family: 'org',
  kind: 'outbox.retry',
  summary:
    'Undeliverable outbox rows (emails, payment and lodgement files) were put back in the queue by the operator (`finance-desk outbox retry`): how many, by channel; never their content.',
  payload: z.strictObject({ requeued: z.number().int().min(1), channels: z.record(z.string(), z.number().int().min(1)) }),
  emittedBy: ['operator'],
});

export const userAdded = eventKind({
  family: 'org',
  kind: 'user.added',
  summary: 'A person was added to the organisation (`finance-desk user add`), with their name when one was given; never the password.',
  payload: z.strictObject({ userId: str(), email: str(), role: z.enum(USER_ROLES), name: str().optional() }),
  emittedBy: ['operator'],
});

export const digestSent = eventKind({
  family: 'org',
  kind: 'org.digest.sent',
  summary:
    "The weekly digest of a week (Monday to Sunday in the organisation's time zone) was queued for its recipients (owners, and people who opted in): the week, who receives it, the head it counted to and its headline figures; never the email's text or addresses.",
  payload: z.strictObject({
    weekFrom: str(),
    weekTo: str(),
    recipientIds: ids(),
    headSeq: z.number().int().min(0),
    agentActs: z.number().int().min(0),
    approvalsWaiting: z.number().int().min(0),
    overdueInvoices: z.number().int().min(0),
    overdueBills: z.number().int().min(0),
    cashCents: z.number().int(),
    chainVerified: z.boolean(),
  }),
  emittedBy: ['system'],
});

export const userDigestSet = eventKind({
  family: 'org',
  kind: 'user.digest',
  summary: 'A person turned their weekly digest email on or off (in the console, or `finance-desk user digest`).',
  payload: z.strictObject({ userId: str(), weeklyDigest: z.enum(['on', 'off']) }),
  emittedBy: ['console', 'operator'],
});

const profileFields = orgM.orgProfilePatch.keyof();
const profileValues = z.strictObject({
  name: str().optional(),
  legalName: str().nullable().optional(),
  abn: str().nullable().optional(),
  gstRegistered: z.boolean().optional(),
  gstBasis: basBasis.optional(),
  basFrequency: z.enum(orgM.BAS_FREQUENCIES).optional(),
  financialYearStartMonth: int().optional(),
  invoicePrefix: str().optional(),
  invoiceNextNumber: int().optional(),
  lockDate: str().nullable().optional(),
  // The payment account; its number masked to the last 3 digits (maskDigits).
  paymentAccountName: str().nullable().optional(),
  paymentBsb: str().nullable().optional(),
  paymentAccountNumber: str().nullable().optional(),
});

export const orgProfileUpdate = eventKind({
  family: 'org',
  kind: 'org.profile.update',
  summary: "The organisation profile changed (console or `finance-desk org profile`): the changed fields' values before and after.",
  payload: z.strictObject({ fields: z.array(profileFields), before: profileValues, after: profileValues }),
  emittedBy: ['console', 'operator'],
});

export const orgPairingCreate = eventKind({
  family: 'org',
  kind: 'org.pairing.create',
  summary: 'An owner created a one-time pairing code for an agent (console or `finance-desk agent pair`); never the secret.',
  payload: z.strictObject({ codeId: str(), agentName: str(), tier, expiresAt: str(), chosen: z.boolean() }),
  emittedBy: ['console', 'operator'],
});

/** An agent as the org events name it, and the API key it holds (its id and tier; never the key). */
const agent = { agentId: str(), name: str() };
const agentKey = { ...agent, tier, keyId: str() };

export const orgAgentPair = eventKind({
  family: 'org',
  kind: 'org.agent.pair',
  summary: 'An agent exchanged a pairing code for its API key (POST /api/v1/org/pair).',
  payload: z.strictObject({ ...agentKey, codeId: str() }),
  emittedBy: [orgM.orgPair],
});

export const orgAgentRevoke = eventKind({
  family: 'org',
  kind: 'org.agent.revoke',
  summary:
    'An agent and every key it holds were revoked: by an owner (console or `finance-desk agent revoke`), or by the OAuth ' +
    'client it was connected for, revoking its own token at `/revoke` (actor: the agent); at most 100 key ids, the exact count.',
  payload: z.strictObject({ ...agent, keyIds: ids().max(100), keyCount: int() }),
  emittedBy: ['console', 'operator', 'oauth'],
});

const oauthGrant = { grantId: str(), clientId: str() };
/** The client's own name as it registered (RFC 7591 `client_name`), at most 100 characters; null when it gave none. */
const oauthClient = { ...oauthGrant, clientName: str().max(100).nullable(), redirectHost: str() };

export const orgOAuthConsent = eventKind({
  family: 'org',
  kind: 'org.oauth.consent',
  summary:
    'An owner approved a remote connector (OAuth client) on the console consent page and chose its tier; an authorization code ' +
    "was issued, valid until `expiresAt` (never the code). The agent and its key come with the code's exchange.",
  payload: z.strictObject({ ...oauthClient, tier, expiresAt: str() }),
  emittedBy: ['console'],
});

export const orgOAuthDeny = eventKind({
  family: 'org',
  kind: 'org.oauth.deny',
  summary: 'An owner denied a remote connector (OAuth client) on the console consent page; nothing was issued.',
  payload: z.strictObject(oauthClient),
  emittedBy: ['console'],
});

export const orgOAuthToken = eventKind({
  family: 'org',
  kind: 'org.oauth.token',
  summary:
    'A remote connector exchanged its authorization code (with its PKCE verifier) at `/token`: an agent named after the client ' +
    'was created with an API key of the tier the owner chose (the access token; never the key). Actor: the new agent.',
  payload: z.strictObject({ ...oauthGrant, ...agentKey }),
  emittedBy: ['oauth'],
});

// ---- approval and policy ----

export const approvalRequested = eventKind({
  family: 'approval',
  kind: 'approval.requested',
  summary: 'An agent asked a human to approve a held signature act: class, subject, payload hash, method, summary, expiry.',
  payload: z.strictObject({ ...signedAct, method: str(), summary: str(), expiresAt: str() }),
  emittedBy: [approvalM.request],
});

const decision = z.strictObject({ ...signedAct, reason: str().nullable() });

export const approvalApproved = eventKind({
  family: 'approval',
  kind: 'approval.approved',
  summary: 'A human with decision rights approved a pending approval (console or `finance-desk approval decide`).',
  payload: decision,
  emittedBy: ['console', 'operator'],
});

export const approvalDenied = eventKind({
  family: 'approval',
  kind: 'approval.denied',
  summary: 'A human with decision rights denied a pending approval (console or `finance-desk approval decide`).',
  payload: decision,
  emittedBy: ['console', 'operator'],
});

const policy = z.strictObject({
  billApprovalFloorCents: int(),
  materialityFloorCents: int(),
  approvalExpiryMs: int(),
  decisionRights: z.partialRecord(actionClass, z.array(z.string())),
});

export const policyChanged = eventKind({
  family: 'policy',
  kind: 'policy.changed',
  summary: 'An owner changed the organisation policy (floors, approval expiry, decision rights): the whole policy before and after.',
  payload: z.strictObject({ before: policy, after: policy }),
  emittedBy: ['console', 'operator'],
});

// ---- board ----

export const itemCreated = eventKind({
  family: 'board',
  kind: 'item.created',
  summary: 'A task was put on the board (column ready).',
  payload: z.strictObject({ title: str(), priority: z.enum(boardM.PRIORITIES), col: z.literal('ready') }),
  emittedBy: [boardM.createTask],
});

export const itemClaimed = eventKind({
  family: 'board',
  kind: 'item.claimed',
  summary: 'A task was claimed by the calling actor (column claimed).',
  payload: z.strictObject({ claimedBy: str(), col: z.literal('claimed') }),
  emittedBy: [boardM.claim],
});

// ---- books: the signature engine ----

export const signatureHold = eventKind({
  family: 'books',
  kind: 'books.signature.hold',
  summary: 'A signature act was held for a human decision: every unproven attempt is audited.',
  payload: z.strictObject({ holdId: str(), method: str(), ...signedAct, summary: str() }),
  emittedBy: signatureActs,
});

// ---- books: receivables ----

const invoiceStatus = booksM.invoiceStatus;
/** An email the event sent: to how many recipients, never the body. */
const emailed = { channel: z.literal('email'), recipients: int() };

export const invoiceDraft = eventKind({
  family: 'books',
  kind: 'books.invoice.draft',
  summary:
    'An invoice was drafted for a customer (its contact found or created): payee, description, total, due days; its number, and its reference and issue date when given.',
  payload: z.strictObject({
    payee: str(),
    description: str(),
    totalCents: int(),
    dueDays: int(),
    ...contactRef,
    number: str().optional(),
    reference: str().optional(),
    issueDate: str().optional(),
    /** The repeating schedule that made it (books.repeatingSet); absent otherwise. */
    repeatingId: str().optional(),
    /** The quote whose acceptance drafted it (books.quoteDecide): this event is that decision too. */
    quoteId: str().optional(),
    ...attached,
    /** A foreign invoice (absent: AUD): its currency and the rate fixed at draft. */
    currency: str().optional(),
    exchangeRate: str().optional(),
  }),
  // 'system': the repeating sweep drafts, sends, captures and approves for a schedule.
  emittedBy: [booksM.invoiceDraft, quotesM.quoteDecide, 'system'],
});

export const invoiceSend = eventKind({
  family: 'books',
  kind: 'books.invoice.send',
  summary: 'An invoice was issued and posted (its journal), and emailed when the customer has an address.',
  payload: z.strictObject({
    ...posting,
    ...payeeTotal,
    gstCents: int(),
    issuedOn: str(),
    dueOn: str(),
    journalId: str(),
    channel: z.literal('email').nullable(),
    recipients: int(),
    /** Added later: absent on events written before it. */
    number: str().optional(),
    /** Assets sold by its lines (assetId), disposed of on its issue date; absent when none. */
    disposedAssetIds: ids().optional(),
    /** A foreign invoice (absent: AUD): its currency, rate and the AUD total and GST posted. */
    currency: str().optional(),
    exchangeRate: str().optional(),
    audTotalCents: int().optional(),
    audGstCents: int().optional(),
  }),
  emittedBy: [booksM.invoiceSend, 'system'],
});

export const invoiceChase = eventKind({
  family: 'books',
  kind: 'books.invoice.chase',
  summary: 'A chase reminder step was sent for an unpaid invoice (steps 2 and 3 with a human proof).',
  payload: z.strictObject({ step: int(), ...emailed, totalCents: int(), outstandingCents: int(), ...proof }),
  emittedBy: [booksM.invoiceChaseStep],
});

export const invoicePayment = eventKind({
  family: 'books',
  kind: 'books.invoice.payment',
  summary: 'A customer payment was recorded against an invoice and posted.',
  payload: z.strictObject({
    ...posting,
    payee: str(),
    amountCents: int(),
    date: str(),
    reference: str(),
    journalId: str(),
    outstandingCents: int(),
    /** The bank account that received it (absent on earlier events). */
    accountCode: str().optional(),
    /** An overpayment kept as a customer credit (excess 'credit'): its id and amount; absent otherwise. */
    creditId: str().optional(),
    creditCents: int().optional(),
    /**
     * A foreign invoice's payment (amountCents and outstandingCents in its currency): the
     * currency, the payment's and the invoice's rates, the AUD banked, the AUD carrying value it
     * settled on 1100 and the difference realised on 4400 (positive a gain); absent for AUD.
     */
    currency: str().optional(),
    exchangeRate: str().optional(),
    invoiceExchangeRate: str().optional(),
    audAmountCents: int().optional(),
    audSettledCents: int().optional(),
    audGainCents: int().optional(),
  }),
  emittedBy: [receivablesM.invoiceRecordPayment],
});

export const invoiceCredit = eventKind({
  family: 'books',
  kind: 'books.invoice.credit',
  summary:
    "A credit note was issued against an invoice and posted: amount, GST, tax code, the invoice's status after; and " +
    'whether its adjustment note PDF was emailed to the payee (channel, recipients; never the body).',
  payload: z.strictObject({
    ...posting,
    creditNoteId: str(),
    payee: str(),
    amountCents: int(),
    gstCents: int(),
    taxCode,
    reason: str(),
    journalId: str(),
    status: invoiceStatus,
    outstandingCents: int(),
    /** The adjustment note's date (absent on events written before it). */
    issuedOn: str().optional(),
    /** Absent on earlier events: the adjustment note's email, redacted as invoiceSend's. */
    channel: z.literal('email').nullable().optional(),
    recipients: int().optional(),
    /** The part beyond what was outstanding, kept as a customer credit: its id and amount; absent otherwise. */
    creditId: str().optional(),
    creditCents: int().optional(),
  }),
  emittedBy: [receivablesM.invoiceCreditNote],
});

export const invoiceVoid = eventKind({
  family: 'books',
  kind: 'books.invoice.void',
  summary: 'An invoice was voided; a sent one has its posting reversed (journalId), a draft none (null).',
  payload: z.strictObject({ ...posting, ...payeeTotal, from: invoiceStatus, reason: str(), journalId: str().nullable() }),
  emittedBy: [receivablesM.invoiceVoid],
});

export const invoiceWriteOff = eventKind({
  family: 'books',
  kind: 'books.invoice.write_off',
  summary:
    'What was outstanding on an invoice was written off as a bad debt and posted (Dr 7000 and 2100 GST / Cr 1100): amount, its GST, date and reason.',
  payload: z.strictObject({
    ...posting,
    payee: str(),
    amountCents: int(),
    gstCents: int(),
    date: str(),
    reason: str(),
    journalId: str(),
    from: invoiceStatus,
  }),
  emittedBy: [receivablesM.invoiceWriteOff],
});

// ---- books: contact credits ----

export const billCreditNote = eventKind({
  family: 'books',
  kind: 'books.bill.credit_note',
  summary:
    "A supplier's adjustment note on part of a bill was posted (Dr 2000 / Cr expense and 1200): amount, GST, tax code, the bill's status and what it owes after, and the supplier credit made of any part beyond what was owed.",
  payload: z.strictObject({
    ...posting,
    creditNoteId: str(),
    payee: str(),
    amountCents: int(),
    gstCents: int(),
    taxCode,
    reason: str(),
    issuedOn: str(),
    status: booksM.billStatus,
    outstandingCents: int(),
    creditId: str().nullable(),
    creditCents: int(),
  }),
  emittedBy: [creditsM.billCreditNote],
});

export const creditPrepayment = eventKind({
  family: 'books',
  kind: 'books.credit.prepayment',
  summary: 'Money received from a customer or paid to a supplier before any document was recorded as a credit on the contact.',
  payload: z.strictObject({
    ...posting,
    creditId: str(),
    contactId: str(),
    side: creditsM.creditSide,
    amountCents: int(),
    date: str(),
    reference: str(),
    accountCode: str(),
    journalId: str(),
  }),
  emittedBy: [creditsM.creditPrepayment],
});

export const creditAllocate = eventKind({
  family: 'books',
  kind: 'books.credit.allocate',
  summary: "Part or all of a contact's credit was applied to one of its invoices or bills: the amount, and what is left of each.",
  payload: z.strictObject({
    ...posting,
    allocationId: str(),
    creditId: str(),
    documentId: str(),
    amountCents: int(),
    date: str(),
    creditRemainingCents: int(),
    outstandingCents: int(),
    journalId: str(),
  }),
  emittedBy: [creditsM.creditAllocate],
});

export const creditRefund = eventKind({
  family: 'books',
  kind: 'books.credit.refund',
  summary: "A contact's credit was refunded through a bank account (money paid to the customer, or received back from the supplier).",
  payload: z.strictObject({
    ...posting,
    refundId: str(),
    creditId: str(),
    amountCents: int(),
    date: str(),
    reference: str(),
    accountCode: str(),
    creditRemainingCents: int(),
    journalId: str(),
  }),
  emittedBy: [creditsM.creditRefund],
});

// ---- books: quotes (no posting: a quote is an offer, not a transaction) ----

export const quoteDraft = eventKind({
  family: 'books',
  kind: 'books.quote.draft',
  summary:
    'A quote was drafted for a customer (its contact found or created): number, payee, description, total and GST, date, expiry date and the due days of the invoice it would become.',
  payload: z.strictObject({
    number: str(),
    ...payeeTotal,
    description: str(),
    gstCents: int(),
    date: str(),
    expiryDate: str(),
    dueDays: int(),
    ...contactRef,
    reference: str().optional(),
  }),
  emittedBy: [quotesM.quoteDraft],
});

export const quoteSend = eventKind({
  family: 'books',
  kind: 'books.quote.send',
  summary: 'A quote was sent to the customer, and emailed with its PDF when an address was known.',
  payload: z.strictObject({
    number: str(),
    ...payeeTotal,
    sentOn: str(),
    expiryDate: str(),
    channel: z.literal('email').nullable(),
    recipients: int(),
  }),
  emittedBy: [quotesM.quoteSend],
});

export const quoteDecline = eventKind({
  family: 'books',
  kind: 'books.quote.decline',
  summary: 'A customer declined a quote (an acceptance is the books.invoice.draft event of the invoice it drafted, naming the quote).',
  payload: z.strictObject({ number: str(), ...payeeTotal, date: str() }),
  emittedBy: [quotesM.quoteDecide],
});

export const invoicePromise = eventKind({
  family: 'books',
  kind: 'books.invoice.promise',
  summary: 'A customer promised to pay an invoice by a date; whether a note was given, never the note.',
  payload: z.strictObject({
    promiseId: str(),
    payee: str(),
    promisedOn: str(),
    amountCents: int(),
    outstandingCents: int(),
    hasNote: z.boolean(),
  }),
  emittedBy: [receivablesM.invoicePromise],
});

export const statementRun = eventKind({
  family: 'books',
  kind: 'books.statement.run',
  summary: 'Customer statements were produced and emailed: how many customers, invoices, open cents and recipients.',
  payload: z.strictObject({ asOf: str(), payeeName: str().nullable(), customers: int(), invoices: int(), openCents: int(), ...emailed }),
  emittedBy: [receivablesM.statementRun],
});

// ---- books: payables ----

const heldReason = z.enum(HELD_REASONS).nullable();
/** Every bill event carries payee, totalCents, heldReason and runId (bills.ts billEventPayload). */
const billBase = { ...payeeTotal, heldReason, runId: str().nullable() };

export const billCapture = eventKind({
  family: 'books',
  kind: 'books.bill.capture',
  summary:
    'A supplier bill was captured (held by the bill-approval rule when heldReason is set: a new payee, a total above the floor, or changed bank details); bank details only masked.',
  payload: z.strictObject({
    ...billBase,
    description: str(),
    dueOn: str(),
    gstCents: int(),
    lineCount: int(),
    payeeAccount: str().nullable(),
    ...contactRef,
    /** Added later: absent on events written before it. */
    issuedOn: str().optional(),
    reference: str().optional(),
    /** The repeating schedule that made it (books.repeatingSet); absent otherwise. */
    repeatingId: str().optional(),
    ...attached,
    /** A foreign bill (absent: AUD): its currency, rate and the AUD total and GST it posts on approval. */
    currency: str().optional(),
    exchangeRate: str().optional(),
    audTotalCents: int().optional(),
    audGstCents: int().optional(),
  }),
  emittedBy: [booksM.billCapture, 'system'],
});

export const billApprove = eventKind({
  family: 'books',
  kind: 'books.bill.approve',
  summary: 'A bill was approved and (the first time) posted; fixed assets its lines register are named.',
  payload: z.strictObject({ ...billBase, journalId: str(), gstCents: int(), ...assetsRegistered, ...proof, ...posting }),
  emittedBy: [booksM.billApprove, 'system'],
});

export const billPayment = eventKind({
  family: 'books',
  kind: 'books.bill.payment',
  summary:
    "A foreign bill's payment was recorded and posted: the amount and what is left in its currency, the payment's and the bill's rates, the AUD paid, the AUD carrying value settled on 2000 and the difference realised on 4400 (positive a gain).",
  payload: z.strictObject({
    ...posting,
    payee: str(),
    amountCents: int(),
    date: str(),
    reference: str(),
    journalId: str(),
    outstandingCents: int(),
    accountCode: str(),
    currency: str(),
    exchangeRate: str(),
    billExchangeRate: str(),
    audAmountCents: int(),
    audSettledCents: int(),
    audGainCents: int(),
  }),
  emittedBy: [payablesM.billRecordPayment],
});

export const billHold = eventKind({
  family: 'books',
  kind: 'books.bill.hold',
  summary: 'A bill was put on hold (parked) with a reason.',
  payload: z.strictObject({ ...billBase, reason: str() }),
  emittedBy: [booksM.billHold],
});

export const billReturn = eventKind({
  family: 'books',
  kind: 'books.bill.return',
  summary: 'A bill was returned (final); a posted one has its posting reversed and its fixed assets taken off the register.',
  payload: z.strictObject({
    ...posting,
    ...billBase,
    reason: str(),
    reversalJournalId: str().optional(),
    returnedAssetIds: ids().optional(),
  }),
  emittedBy: [booksM.billReturn],
});

/** The bill transitions (bills.ts `transition`), by verb. */
export const billMoves = { approve: billApprove, hold: billHold, return: billReturn } as const;

export const billRunExecute = eventKind({
  family: 'books',
  kind: 'books.bill_run.execute',
  summary: 'A payment run paid approved bills: its ABA file, each bill paid, the total and the masked funding account.',
  payload: z.strictObject({
    ...posting,
    ...filing,
    runId: str(),
    billIds: ids(),
    bills: z.array(z.strictObject({ id: str(), ...payeeTotal, amountCents: int(), heldReason, runId: str() })),
    billCount: int(),
    totalCents: int(),
    paymentDate: str(),
    ...funding,
    fileName: str(),
    journalId: str(),
    ...proof,
  }),
  emittedBy: [payablesM.billScheduleRun],
});

const claimBase = { claimant: str(), amountCents: int(), gstCents: int() };

export const expenseClaim = eventKind({
  family: 'books',
  kind: 'books.expense.claim',
  summary: 'An employee expense claim was submitted.',
  payload: z.strictObject({ ...claimBase, description: str(), taxCode, spentOn: str(), receiptRef: str(), issuedOn: str().optional() }),
  emittedBy: [payablesM.expenseClaim],
});

export const expenseApprove = eventKind({
  family: 'books',
  kind: 'books.expense.approve',
  summary:
    'An expense claim was approved and posted; a claim on 1500 Plant and equipment puts a pending fixed asset on the register, named.',
  payload: z.strictObject({ ...claimBase, journalId: str(), ...assetsRegistered, ...posting }),
  emittedBy: [payablesM.expenseApprove],
});

export const expenseReject = eventKind({
  family: 'books',
  kind: 'books.expense.reject',
  summary: 'An expense claim was rejected with a reason.',
  payload: z.strictObject({ ...claimBase, reason: str() }),
  emittedBy: [payablesM.expenseReject],
});

// ---- books: reconciliation ----

export const feedImport = eventKind({
  family: 'books',
  kind: 'books.feed.import',
  summary: 'Bank lines were imported into a bank account: counts (received, imported, duplicates, skipped), date range, money in and out.',
  payload: z.strictObject({
    importId: str(),
    accountCode: str(),
    source: str(),
    received: int(),
    imported: int(),
    duplicates: int(),
    skipped: int(),
    possibleDuplicates: int(),
    fromDate: str().nullable(),
    toDate: str().nullable(),
    inCents: int(),
    outCents: int(),
  }),
  emittedBy: [reconciliationM.feedLines],
});

const matchPayload = {
  matchId: str(),
  ...bankLine,
  targetKind: reconciliationM.matchTargetKind,
  targetId: str(),
  party: str(),
  amountCents: int(),
  outstandingCents: int(),
  journalId: str(),
};

export const matchAccept = eventKind({
  family: 'books',
  kind: 'books.match.accept',
  summary: 'A bank line was matched to a document (or journal) below the materiality floor and posted.',
  payload: z.strictObject({ ...matchPayload, ...posting }),
  emittedBy: [reconciliationM.matchAccept],
});

export const matchHold = eventKind({
  family: 'books',
  kind: 'books.match.hold',
  summary: 'A match above the materiality floor was held for books.matchHoldResolve (nothing posted).',
  payload: z.strictObject({
    lineId: str(),
    lineAmountCents: int(),
    targetKind: reconciliationM.matchTargetKind,
    targetId: str(),
    amountCents: int(),
    materialityFloorCents: int(),
  }),
  emittedBy: [reconciliationM.matchAccept],
});

export const matchResolve = eventKind({
  family: 'books',
  kind: 'books.match.resolve',
  summary: 'A held match was resolved with a human proof and posted.',
  payload: z.strictObject({ ...matchPayload, ...proof, ...posting }),
  emittedBy: [reconciliationM.matchHoldResolve],
});

const linkKind = z.enum(['line', 'claim']);

export const receiptRegister = eventKind({
  family: 'books',
  kind: 'books.receipt.register',
  summary: 'A receipt file was registered (by its SHA-256), linked to a bank line or a claim when one was named.',
  payload: z.strictObject({
    receiptId: str(),
    sha256: str(),
    sizeBytes: int(),
    mimeType: str(),
    linkKind: linkKind.nullable(),
    linkId: str().nullable(),
  }),
  emittedBy: [reconciliationM.receiptsRegister],
});

export const receiptLink = eventKind({
  family: 'books',
  kind: 'books.receipt.link',
  summary: 'A receipt already registered was linked to another bank line or claim.',
  payload: z.strictObject({ receiptId: str(), sha256: str(), linkKind, linkId: str() }),
  emittedBy: [reconciliationM.receiptsRegister],
});

export const lineRecode = eventKind({
  family: 'books',
  kind: 'books.line.recode',
  summary: 'A bank line was coded to an account and posted; a previous coding is reversed.',
  payload: z.strictObject({
    ...posting,
    ...bankLine,
    accountCode: str(),
    taxCode,
    gstCents: int(),
    journalId: str(),
    reversedJournalId: str().nullable(),
    reversalJournalId: str().nullable(),
  }),
  emittedBy: [reconciliationM.lineRecode],
});

export const journalPost = eventKind({
  family: 'books',
  kind: 'books.journal.post',
  summary: 'A manual journal was posted: total, line count, accounts touched and any fixed assets it registered.',
  payload: z.strictObject({
    ...posting,
    journalId: str(),
    date: str(),
    totalCents: int(),
    lineCount: int(),
    accounts: ids(),
    ...assetsRegistered,
    ...attached,
  }),
  emittedBy: [reconciliationM.journalPost],
});

export const attachmentAdd = eventKind({
  family: 'books',
  kind: 'books.attachment.add',
  summary: "A file was attached to an invoice, bill or journal after it was created: the file's SHA-256, name, media type and size.",
  payload: z.strictObject({
    documentKind: z.enum(attachmentsM.ATTACHMENT_DOCUMENT_KINDS),
    documentId: str(),
    ...attachmentRef,
  }),
  emittedBy: [attachmentsM.attachmentAdd],
});

// ---- books: opening balances and corrections (extensions) ----

export const openingBalancesRecord = eventKind({
  family: 'books',
  kind: 'books.opening_balances.record',
  summary:
    "The business's conversion was recorded: one journal dated the conversion date, its totals and the documents carried in (counts, not every line).",
  payload: z.strictObject({
    ...posting,
    conversionDate: str(),
    journalId: str(),
    debitCents: int(),
    accountCount: int(),
    invoiceCount: int(),
    receivablesCents: int(),
    billCount: int(),
    payablesCents: int(),
    /** Bills carried in held by the bill-approval rule (as billCapture holds them); absent on events recorded before bills were checked. */
    heldBillCount: int().optional(),
    /** Employees whose year-to-date figures and leave balances were carried in (payroll); absent without them. */
    payrollEmployeeCount: int().optional(),
    /** Fixed assets carried in (registered, on 1500 at cost and 1510); absent without them. */
    ...assetsRegistered,
  }),
  emittedBy: [correctionsM.openingBalances],
});

const reversedMatch = z.strictObject({
  matchId: str().nullable(),
  kind: str(),
  targetId: str(),
  amountCents: int(),
  journalId: str(),
  reversalJournalId: str().nullable(),
});

export const lineUnmatch = eventKind({
  family: 'books',
  kind: 'books.line.unmatch',
  summary:
    "A bank line's matches (or its recode) were undone: each payment journal reversed, the documents reopened, the line unmatched again.",
  payload: z.strictObject({ ...posting, ...bankLine, reversed: z.array(reversedMatch), status: str(), reason: str().nullable() }),
  emittedBy: [correctionsM.lineUnmatch],
});

/** A payment that came back, reversed to its document, which is owed (or payable) again. */
const paymentReversal = {
  ...posting,
  paymentId: str(),
  amountCents: int(),
  date: str(),
  reason: str(),
  journalId: str(),
  outstandingCents: int(),
};

export const invoicePaymentDishonour = eventKind({
  family: 'books',
  kind: 'books.invoice.payment_dishonour',
  summary: "A customer's payment bounced: reversed to the invoice, which is owed again.",
  payload: z.strictObject({ ...paymentReversal, status: invoiceStatus }),
  emittedBy: [correctionsM.invoicePaymentDishonour],
});

export const billPaymentReturn = eventKind({
  family: 'books',
  kind: 'books.bill.payment_return',
  summary: 'A payment to a supplier came back: reversed to the bill, which is payable again.',
  payload: z.strictObject(paymentReversal),
  emittedBy: [correctionsM.billPaymentReturn],
});

export const journalReverse = eventKind({
  family: 'books',
  kind: 'books.journal.reverse',
  summary: 'A manual journal was reversed by its mirror journal.',
  payload: z.strictObject({
    ...posting,
    journalId: str(),
    reversalJournalId: str(),
    date: str(),
    totalCents: int(),
    reason: str(),
  }),
  emittedBy: [correctionsM.journalReverse],
});

// ---- books: bank, credit-card and loan accounts ----

/** A bank account record's direct-entry details (null where not set): not secret, every bank file carries them. */
const directEntryDetails = z.strictObject({
  bankCode: str().nullable(),
  apcaUserId: str().nullable(),
  userName: str().nullable(),
  remitterName: str().nullable(),
  accountTitle: str().nullable(),
});

/** The BSB and the account number's last 3 digits (null where not set). */
const accountNumber = { bsb: str().nullable(), accountNumberEnding: str().nullable() };

export const bankAccountCreate = eventKind({
  family: 'books',
  kind: 'books.bank_account.create',
  summary:
    "An owner added a bank, credit-card or loan account (console or `finance-desk bank-account add`) and its chart account (or gave 1000, the default, a record): kind, name, account code, the BSB and the account number's last 3 digits when given, and its direct-entry details (what a bank file paid from it carries).",
  payload: z.strictObject({
    bankAccountId: str(),
    kind: z.enum(bankAccountsM.BANK_ACCOUNT_KINDS),
    name: str(),
    accountCode: str(),
    accountType: z.enum(['asset', 'liability']),
    ...accountNumber,
    directEntry: directEntryDetails.optional(),
  }),
  emittedBy: ['console', 'operator'],
});

export const bankAccountUpdate = eventKind({
  family: 'books',
  kind: 'books.bank_account.update',
  summary:
    "An owner changed a bank account record's BSB, account number or direct-entry details (console or `finance-desk bank-account update`): the fields changed and the values now held (the account number's last 3 digits).",
  payload: z.strictObject({
    bankAccountId: str(),
    accountCode: str(),
    changed: z.array(str()),
    ...accountNumber,
    directEntry: directEntryDetails,
  }),
  emittedBy: ['console', 'operator'],
});

export const transferMatch = eventKind({
  family: 'books',
  kind: 'books.transfer.match',
  summary:
    'A transfer between two bank accounts was matched on both sides: the two lines, accounts, dates, amount and the two journals through 1300 Bank clearing.',
  payload: z.strictObject({
    ...posting,
    transferId: str(),
    amountCents: int(),
    fromLineId: str(),
    fromAccountCode: str(),
    fromDate: str(),
    toLineId: str(),
    toAccountCode: str(),
    toDate: str(),
    journalIds: ids(),
  }),
  emittedBy: [bankAccountsM.transferMatch],
});

export const lineSplit = eventKind({
  family: 'books',
  kind: 'books.line.split',
  summary:
    "A bank line was applied to several documents and accounts in one call: each part's kind, target (document id or account code), amount, journal and GST.",
  payload: z.strictObject({
    ...posting,
    ...bankLine,
    accountCode: str(),
    parts: z
      .array(
        z.strictObject({
          kind: reconciliationM.allocationKind,
          targetId: str(),
          amountCents: int(),
          journalId: str(),
          outstandingCents: int(),
          taxCode: taxCode.nullable(),
          gstCents: int(),
        }),
      )
      .max(bankAccountsM.bankAccountLimits.splitPartsMax),
  }),
  emittedBy: [bankAccountsM.lineSplit],
});

// ---- books: tax (BAS) ----

const basLabels = z.strictObject(
  Object.fromEntries(taxM.BAS_LABELS.map((l) => [l, int()])) as Record<(typeof taxM.BAS_LABELS)[number], ReturnType<typeof int>>,
);
const basId = { id: str(), ...period };
const basBase = { ...basId, basis: basBasis, labels: basLabels, netCents: int() };

export const taxPrepare = eventKind({
  family: 'books',
  kind: 'books.tax.prepare',
  summary: 'A BAS was prepared from the ledger for a period: basis, label figures and the net owed (+) or refunded (−).',
  payload: z.strictObject(basBase),
  emittedBy: [taxM.taxPrepare],
});

export const taxHold = eventKind({
  family: 'books',
  kind: 'books.tax.hold',
  summary: 'A prepared BAS was held (it cannot be signed) with a reason.',
  payload: z.strictObject({ ...basBase, reason: str() }),
  emittedBy: [taxM.taxHold],
});

export const taxReturn = eventKind({
  family: 'books',
  kind: 'books.tax.return',
  summary: 'A BAS was returned to prepared with its figures recomputed.',
  payload: z.strictObject({ ...basBase, from: taxM.basStatus, reason: str() }),
  emittedBy: [taxM.taxReturn],
});

export const taxSignLodge = eventKind({
  family: 'books',
  kind: 'books.tax.sign_lodge',
  summary: 'A BAS was signed by a human and queued for lodgement; its settlement journal posted (null when nothing settles).',
  payload: z.strictObject({ ...posting, ...basId, labels: basLabels, netCents: int(), journalId: str().nullable(), ...proof }),
  emittedBy: [taxM.taxSignLodge],
});

const lodgedReceipt = { fileName: str(), sha256: str() };

export const taxLodged = eventKind({
  family: 'books',
  kind: 'books.tax.lodged',
  summary: "The lodgement channel confirmed a BAS: the receipt file's name and SHA-256.",
  payload: z.strictObject({ ...basId, ...lodgedReceipt, ...filing }),
  emittedBy: ['system'],
});

// ---- books: fixed assets ----

export const assetDepreciate = eventKind({
  family: 'books',
  kind: 'books.asset.depreciate',
  summary: 'A depreciation run for a period end: each asset and its amount, its journal (null when nothing was depreciated).',
  payload: z.strictObject({
    ...posting,
    runId: str(),
    periodEnd: str(),
    totalCents: int(),
    journalId: str().nullable(),
    assets: z.array(z.strictObject({ assetId: str(), amountCents: int() })),
    /** Pending assets the run skipped (absent on events written before pending assets). */
    pendingSkipped: int().optional(),
  }),
  emittedBy: [assetsM.assetDepreciationRun],
});

export const assetRegister = eventKind({
  family: 'books',
  kind: 'books.asset.register',
  summary: 'A pending fixed asset was given its name, effective life and method: active from its start date (nothing is posted).',
  payload: z.strictObject({
    assetId: str(),
    name: str(),
    effectiveLifeYears: int(),
    method: z.enum(assetsM.ASSET_METHODS),
    startDate: str(),
    costCents: int(),
    /** Given with it (absent: same_as_book, and on events written before tax treatments). */
    taxTreatment: z.enum(assetsM.TAX_TREATMENTS).optional(),
  }),
  emittedBy: [assetsM.assetRegister],
});

export const assetDispose = eventKind({
  family: 'books',
  kind: 'books.asset.dispose',
  summary: 'A fixed asset was disposed of and posted: proceeds, GST, depreciation to date, gain or loss.',
  payload: z.strictObject({
    ...posting,
    assetId: str(),
    date: str(),
    proceedsCents: int(),
    taxCode,
    gstCents: int(),
    depreciationCents: int(),
    gainCents: int(),
    lossCents: int(),
    journalId: str(),
  }),
  emittedBy: [assetsM.assetDispose],
});

// ---- books: people ----

/** Where an onboarding stands after the event: still onboarding, and the step that comes next. */
const onboarding = <N extends string>(nextStep: N) => ({ status: z.literal('onboarding'), nextStep: z.literal(nextStep) });

export const onboardingStart = eventKind({
  family: 'books',
  kind: 'books.employee.onboarding_start',
  summary: 'An employee was added, onboarding (next step tax_declaration); bank account masked.',
  payload: z.strictObject({
    name: str(),
    startDate: str(),
    employmentBasis: z.enum(peopleM.EMPLOYMENT_BASES),
    payFrequency,
    annualSalaryCents: int().nullable(),
    hourlyRateCents: int().nullable(),
    // Whole hours (`hoursPerWeek`) in events written before hours a week took decimals; milli-hours since (payloads hold integers only).
    hoursPerWeek: int().optional(),
    milliHoursPerWeek: int().optional(),
    bankAccount: str().nullable(),
    ...onboarding('tax_declaration'),
  }),
  emittedBy: [peopleM.onboardingStart],
});

export const onboardingAdvance = eventKind({
  family: 'books',
  kind: 'books.employee.onboarding_advance',
  summary: 'An onboarding step was done (the contract step with a human proof); never the TFN itself (masked, or the not-quoted code).',
  payload: z.discriminatedUnion('step', [
    z.strictObject({
      step: z.literal('tax_declaration'),
      taxFileNumber: str(),
      residency: z.enum(['resident', 'foreign']),
      claimsTaxFreeThreshold: z.boolean(),
      taxScale: int(),
      ...onboarding('super'),
      ...proof,
    }),
    z.strictObject({
      step: z.literal('super'),
      fundName: str(),
      fundAbn: str(),
      memberNumber: str(),
      ...onboarding('contract'),
      ...proof,
    }),
    z.strictObject({
      step: z.literal('contract'),
      title: str(),
      startDate: str(),
      status: z.literal('active'),
      nextStep: z.null(),
      ...proof,
    }),
  ]),
  emittedBy: [peopleM.onboardingAdvance],
});

export const employeeUpdate = eventKind({
  family: 'books',
  kind: 'books.employee.update',
  summary:
    "An active employee's terms changed from effectiveFrom (a bank account change with a human proof): the terms changed and their new values, the bank account and TFN masked.",
  payload: z.strictObject({
    effectiveFrom: str(),
    changed: z.array(z.enum(peopleM.EMPLOYEE_TERMS)),
    annualSalaryCents: int().optional(),
    hourlyRateCents: int().optional(),
    // As onboarding_start: whole hours in events before hours a week took decimals, milli-hours since.
    hoursPerWeek: int().optional(),
    milliHoursPerWeek: int().optional(),
    title: str().optional(),
    superFund: z.strictObject({ fundName: str(), fundAbn: str(), memberNumber: str() }).optional(),
    taxDeclaration: z
      .strictObject({ taxFileNumber: str(), residency: z.enum(['resident', 'foreign']), claimsTaxFreeThreshold: z.boolean() })
      .optional(),
    bankAccount: str().optional(),
    ...proof,
  }),
  emittedBy: [peopleM.employeeUpdate],
});

export const employeeTerminate = eventKind({
  family: 'books',
  kind: 'books.employee.terminate',
  summary:
    "An employee's termination was recorded (or replaced, before the final pay run was signed): the last day employed, the reason, its STP cessation type code and the leave loading on unused leave; the run covering the date pays the final pay.",
  payload: z.strictObject({
    terminationDate: str(),
    reason: z.enum(peopleM.TERMINATION_REASONS),
    cessationTypeCode: str(),
    leaveLoadingPercent: str().nullable(),
    /** The termination this one replaced (other details before the final run was signed), or null. */
    replaced: z.strictObject({ terminationDate: str(), reason: z.enum(peopleM.TERMINATION_REASONS) }).nullable(),
  }),
  emittedBy: [peopleM.employeeTerminate],
});

const leaveType = z.enum(peopleM.LEAVE_TYPES);
/** A leave request's hours, its status after the event and the warning when it exceeds the balance. */
// Whole hours (`hours`) in events written before hours took decimals; milli-hours since (event payloads hold integers only).
const leaveOutcome = <S extends string>(status: S) => ({
  hours: int().optional(),
  milliHours: int().optional(),
  status: z.literal(status),
  warning: str().nullable(),
});

export const leaveRequest = eventKind({
  family: 'books',
  kind: 'books.leave.request',
  summary: 'Leave was requested for an employee; a warning when it exceeds the balance.',
  payload: z.strictObject({ employeeId: str(), leaveType, startDate: str(), endDate: str(), ...leaveOutcome('requested') }),
  emittedBy: [peopleM.leaveRequest],
});

export const leaveApprove = eventKind({
  family: 'books',
  kind: 'books.leave.approve',
  summary: 'A leave request was approved.',
  payload: z.strictObject({ employeeId: str(), leaveType, ...leaveOutcome('approved') }),
  emittedBy: [peopleM.leaveApprove],
});

// ---- books: payroll ----

const payAmounts = { grossCents: int(), paygCents: int(), superCents: int(), netCents: int() };
const payTotals = z.strictObject(payAmounts);
const payLine = { employeeId: str(), ...payAmounts };
/** One earnings line of a pay run line as priced (overtime and penalty: milli-hours and the multiplier in thousandths; allowance: its STP code). */
const payEarning = z.strictObject({
  type: str(),
  category: str().nullable(),
  milliHours: int().nullable(),
  multiplierMilli: int().nullable(),
  amountCents: int(),
});

export const payRunDraft = eventKind({
  family: 'books',
  kind: 'books.pay_run.draft',
  summary: 'A pay run was drafted: period, payment date, each line and the totals; whether a funding account was given.',
  payload: z.strictObject({
    id: str(),
    ...period,
    paymentDate: str(),
    payFrequency,
    // The earnings lines and salary sacrifice of a line (pay items); absent in drafts made before them.
    lines: z.array(
      z.strictObject({ ...payLine, leaveIds: ids(), earnings: z.array(payEarning).optional(), salarySacrificeCents: int().optional() }),
    ),
    totals: payTotals,
    funded: z.boolean(),
  }),
  emittedBy: [payrollM.payrollDraft],
});

export const payRunSign = eventKind({
  family: 'books',
  kind: 'books.pay_run.sign',
  summary:
    'A pay run was signed by a human and posted; its ABA file written (null without a funding account) and its STP pay event queued.',
  payload: z.strictObject({
    ...posting,
    ...filing,
    id: str(),
    paymentDate: str(),
    totals: payTotals,
    lines: z.array(z.strictObject(payLine)),
    ...funding,
    fileName: str().nullable(),
    journalId: str(),
    ...proof,
  }),
  emittedBy: [payrollM.payrollSign],
});

export const payRunRecall = eventKind({
  family: 'books',
  kind: 'books.pay_run.recall',
  summary: 'A pay run was recalled; a signed one has its posting reversed and an STP correction queued.',
  payload: z.strictObject({
    ...posting,
    id: str(),
    from: z.enum(payrollM.PAY_RUN_STATUSES),
    reason: str(),
    journalId: str().nullable(),
    reversalJournalId: str().nullable(),
  }),
  emittedBy: [payrollM.payrollRecall],
});

export const stpResubmit = eventKind({
  family: 'books',
  kind: 'books.stp.resubmit',
  summary: "A signed pay run's STP pay event was queued again with a reason.",
  payload: z.strictObject({ payRunId: str(), submissionId: str(), reason: str() }),
  emittedBy: [payrollM.stpResubmit],
});

export const leaveProvision = eventKind({
  family: 'books',
  kind: 'books.leave.provision',
  summary:
    "The annual leave provision was brought to the employees' leave liability as at a date: the total, the provision's balance before, and the journal posting the difference.",
  payload: z.strictObject({
    ...posting,
    asAt: str(),
    totalCents: int(),
    balanceBeforeCents: int(),
    differenceCents: int(),
    employeeCount: int(),
    journalId: str(),
  }),
  emittedBy: [payrollM.leaveProvision],
});

export const stpFinalise = eventKind({
  family: 'books',
  kind: 'books.stp.finalise',
  summary:
    "A financial year's STP finalisation, or an amendment of it, was signed by a human and queued: the submission, the year, the employees and the amendment's reason.",
  payload: z.strictObject({
    submissionId: str(),
    kind: z.enum(payrollM.STP_FINAL_KINDS),
    financialYear: str(),
    employeeIds: ids(),
    reason: str().nullable(),
    ...proof,
  }),
  emittedBy: [payrollM.stpFinalise],
});

export const superPay = eventKind({
  family: 'books',
  kind: 'books.super.pay',
  summary:
    "Signed pay runs' super guarantee was paid by a human's signature: the runs, each fund's amount and contribution file, the paying account and the journal on 2300.",
  payload: z.strictObject({
    ...posting,
    ...filing,
    superPaymentId: str(),
    paymentDate: str(),
    payRunIds: ids(),
    totalCents: int(),
    funds: z.array(z.strictObject({ fundAbn: str(), amountCents: int(), fileName: str() })),
    fundingAccountId: str(),
    journalId: str(),
    ...proof,
  }),
  emittedBy: [payrollM.superPay],
});

export const stpLodged = eventKind({
  family: 'books',
  kind: 'books.stp.lodged',
  summary:
    "The lodgement channel confirmed an STP submission: the receipt file's name and SHA-256 (payRunId null for a year's finalisation).",
  payload: z.strictObject({
    ...filing,
    id: str(),
    payRunId: str().nullable(),
    kind: z.enum(payrollM.STP_SUBMISSION_KINDS),
    ...lodgedReceipt,
  }),
  emittedBy: ['system'],
});

// ---- books: contacts ----

export const contactCreate = eventKind({
  family: 'books',
  kind: 'books.contact.create',
  summary:
    'A contact was created (created true) or an existing one of the same name taken (false); whether it has an email, never the email.',
  payload: z.strictObject({
    name: str(),
    kind: contactsM.contactKind,
    abn: str().nullable(),
    hasEmail: z.boolean(),
    created: z.boolean(),
  }),
  emittedBy: [contactsM.contactCreate],
});

export const contactUpdate = eventKind({
  family: 'books',
  kind: 'books.contact.update',
  summary: 'A contact changed: the fields changed, the new and previous name and the new ABN; never the email.',
  payload: z.strictObject({
    changed: z.array(z.enum(['name', 'email', 'abn'])),
    name: str().optional(),
    previousName: str().optional(),
    abn: str().nullable().optional(),
  }),
  emittedBy: [contactsM.contactUpdate],
});

// ---- books: the chart of accounts (extensions) ----

const accountTypeE = z.enum(['asset', 'liability', 'equity', 'revenue', 'expense']);

export const accountCreate = eventKind({
  family: 'books',
  kind: 'books.account.create',
  summary: "An account was added to the organisation's chart: its code, name, type, default tax code and whether it is reconciled.",
  payload: z.strictObject({ code: str(), name: str(), type: accountTypeE, taxCode: taxCode.nullable(), reconcilable: z.boolean() }),
  emittedBy: [chartM.accountCreate],
});

export const accountUpdate = eventKind({
  family: 'books',
  kind: 'books.account.update',
  summary: 'An account of the chart changed: the fields changed and their new values (and the previous name when renamed).',
  payload: z.strictObject({
    code: str(),
    changed: z.array(z.enum(['name', 'type', 'taxCode', 'reconcilable'])),
    name: str().optional(),
    previousName: str().optional(),
    type: accountTypeE.optional(),
    taxCode: taxCode.nullable().optional(),
    reconcilable: z.boolean().optional(),
  }),
  emittedBy: [chartM.accountUpdate],
});

export const accountArchive = eventKind({
  family: 'books',
  kind: 'books.account.archive',
  summary: 'An account with a zero balance and no open documents was archived: it refuses new postings.',
  payload: z.strictObject({ code: str(), name: str() }),
  emittedBy: [chartM.accountArchive],
});

export const repeatingSet = eventKind({
  family: 'books',
  kind: 'books.repeating.set',
  summary:
    "A repeating invoice or bill schedule was set or changed: its definition, status and the SHA-256 of its template's canonical JSON (the template itself is in the schedule, not the ledger: it may hold bank details).",
  payload: z.strictObject({
    kind: z.enum(repeatingM.REPEATING_KINDS),
    action: z.enum(repeatingM.REPEATING_ACTIONS),
    frequency: z.enum(repeatingM.REPEATING_FREQUENCIES),
    dayOfMonth: int().nullable(),
    startDate: str(),
    endDate: str().nullable(),
    count: int().nullable(),
    status: z.enum(repeatingM.REPEATING_STATUSES),
    payee: str(),
    templateSha256: sha256(),
    changed: z.array(z.enum(['created', 'template', 'endDate', 'status'])),
  }),
  emittedBy: [repeatingM.repeatingSet],
});

export const budgetSet = eventKind({
  family: 'books',
  kind: 'books.budget.set',
  summary: "A financial year's budget changed: each account whose twelve monthly figures were replaced, with the new and previous figures.",
  payload: z.strictObject({
    financialYearStart: str(),
    lines: z.array(z.strictObject({ accountCode: str(), monthlyCents: z.array(int()), previousMonthlyCents: z.array(int()) })),
  }),
  emittedBy: [chartM.budgetSet],
});

export const trackingSet = eventKind({
  family: 'books',
  kind: 'books.tracking.set',
  summary:
    'A tracking category was created or changed: its id, slot (1 or 2: the journal line column its option ids are in), name (and previous name when renamed), and each option added, renamed, archived or restored with its id, name, previous name and archived.',
  payload: z.strictObject({
    categoryId: str(),
    slot: int(),
    name: str(),
    previousName: str().optional(),
    created: z.boolean(),
    options: z.array(
      z.strictObject({ id: str(), name: str(), previousName: str().optional(), archived: z.boolean(), created: z.boolean() }),
    ),
  }),
  emittedBy: [chartM.trackingSet],
});

export const exchangeRateSet = eventKind({
  family: 'books',
  kind: 'books.exchangeRate.set',
  summary:
    "Exchange rates of the owner's table were set: each currency and date whose rate changed, with the new and previous rate (null when new).",
  payload: z.strictObject({
    rates: z.array(z.strictObject({ currency: str(), date: str(), rate: str(), previousRate: str().nullable() })),
  }),
  emittedBy: [currenciesM.exchangeRateSet],
});

export const currencyRevalue = eventKind({
  family: 'books',
  kind: 'books.currency.revalue',
  summary:
    'Open foreign invoices and bills were revalued at a date: each document with its outstanding, rate and AUD difference; the journal dated then and its reversal dated the next day.',
  payload: z.strictObject({
    ...posting,
    date: str(),
    reversalDate: str(),
    journalId: str(),
    reversalJournalId: str(),
    audGainCents: int(),
    documents: z.array(
      z.strictObject({
        kind: z.enum(['invoice', 'bill']),
        id: str(),
        currency: str(),
        outstandingCents: int(),
        exchangeRate: str(),
        audCarriedCents: int(),
        audRevaluedCents: int(),
        audDifferenceCents: int(),
      }),
    ),
  }),
  emittedBy: [currenciesM.currencyRevalue],
});

// ---- books: ask ----

export const askAnswer = eventKind({
  family: 'books',
  kind: 'books.ask.answer',
  summary: 'A question was answered (books.ask): its hash (never the question), provider, model, tokens, cost, latency, citations.',
  payload: z.strictObject({
    questionHash: str(),
    asOf: str(),
    provider: str(),
    model: str(),
    intent: str().nullable(),
    inputTokens: int(),
    outputTokens: int(),
    costMicroUsd: int(),
    latencyMs: int(),
    grounded: z.boolean(),
    citations: ids(),
    error: str().optional(),
    refusedTools: ids().optional(),
  }),
  emittedBy: [askM.ask],
});

/** Every event kind, declared once. */
export const eventKinds: readonly EventKindSpec[] = [
  orgCreated,
  keyIssued,
  keyRevoked,
  outboxRetry,
  userAdded,
  digestSent,
  userDigestSet,
  orgProfileUpdate,
  orgPairingCreate,
  orgAgentPair,
  orgAgentRevoke,
  orgOAuthConsent,
  orgOAuthDeny,
  orgOAuthToken,
  approvalRequested,
  approvalApproved,
  approvalDenied,
  policyChanged,
  itemCreated,
  itemClaimed,
  signatureHold,
  invoiceDraft,
  invoiceSend,
  invoiceChase,
  invoicePayment,
  invoiceCredit,
  invoiceVoid,
  invoiceWriteOff,
  invoicePromise,
  statementRun,
  quoteDraft,
  quoteSend,
  quoteDecline,
  billCreditNote,
  creditPrepayment,
  creditAllocate,
  creditRefund,
  billCapture,
  billApprove,
  billPayment,
  billHold,
  billReturn,
  billRunExecute,
  expenseClaim,
  expenseApprove,
  expenseReject,
  feedImport,
  matchAccept,
  matchHold,
  matchResolve,
  receiptRegister,
  receiptLink,
  lineRecode,
  journalPost,
  attachmentAdd,
  openingBalancesRecord,
  lineUnmatch,
  invoicePaymentDishonour,
  billPaymentReturn,
  journalReverse,
  bankAccountCreate,
  bankAccountUpdate,
  transferMatch,
  lineSplit,
  taxPrepare,
  taxHold,
  taxReturn,
  taxSignLodge,
  taxLodged,
  assetDepreciate,
  assetDispose,
  assetRegister,
  onboardingStart,
  onboardingAdvance,
  employeeUpdate,
  employeeTerminate,
  leaveRequest,
  leaveApprove,
  payRunDraft,
  payRunSign,
  payRunRecall,
  stpResubmit,
  stpFinalise,
  leaveProvision,
  superPay,
  stpLodged,
  contactCreate,
  contactUpdate,
  accountCreate,
  accountUpdate,
  accountArchive,
  budgetSet,
  trackingSet,
  exchangeRateSet,
  currencyRevalue,
  repeatingSet,
  askAnswer,
];

/** The catalogue by kind. */
export const eventKindsByKind: ReadonlyMap<string, EventKindSpec> = new Map(eventKinds.map((e) => [e.kind, e]));
const byKind = eventKindsByKind;

/** The declaration of a stored event's kind, or undefined for a kind the catalogue does not know. */
export const eventKindOf = (kind: string): EventKindSpec | undefined => byKind.get(kind);

/** At most this many failing paths are named per event. */
const PROBLEMS_NAMED = 5;

/**
 * Check a stored event against the catalogue: its kind is declared, its family is the kind's,
 * and its payload parses with the kind's strict schema. Returns the problems (empty when it
 * conforms), each naming the failing path. The test harness runs it over every event a test
 * writes; it is not on the write path.
 */
export function checkEvent(
  event: { family: string; kind: string; payload: unknown },
  catalogue: ReadonlyMap<string, EventKindSpec> = byKind,
): string[] {
  const spec = catalogue.get(event.kind);
  if (!spec) return [`kind ${event.kind} is not declared in the event catalogue`];
  const problems: string[] = [];
  if (spec.family !== event.family) problems.push(`family is ${event.family}, declared ${spec.family}`);
  const parsed = spec.payload.safeParse(event.payload);
  if (!parsed.success) {
    for (const issue of parsed.error.issues.slice(0, PROBLEMS_NAMED)) {
      problems.push(`payload${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}: ${issue.message}`);
    }
  }
  return problems;
}

/** Bump when a kind is added or a payload changes shape. */
export const EVENT_CATALOGUE_VERSION = 1;

/** The catalogue as published (/api/v1/artifacts/events.json): JSON Schema of each payload. */
export function eventCatalogueArtifact() {
  return {
    version: EVENT_CATALOGUE_VERSION,
    events: eventKinds.map((e) => ({
      family: e.family,
      kind: e.kind,
      summary: e.summary,
      emittedBy: e.emittedBy.map(sourceName),
      payload: z.toJSONSchema(e.payload, { io: 'output' }),
    })),
  };
}
