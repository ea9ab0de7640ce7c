import { z } from 'zod';
import { limits } from '../limits.js';
import { SCOPES, TIERS } from '../scopes.js';
import { ACTION_CLASSES, APPROVAL_STATUSES, USER_ROLES } from '../signature.js';
import { task } from './board.js';
import { contact, contactKind } from './contacts.js';
import { creditSide, creditSource } from './credits.js';
import { id, isoDate, queryInt, read, text } from './index-fields.js';
import { AGENT_STATUSES, keyRow, orgAgents, orgKeys, orgMembers, orgProfile } from './org.js';
import { artifactReads, artifactsIndex } from './artifacts-reads.js';

export { orgAgents, orgKeys, orgMembers, orgProfile };

/**
 * GET reads. Query values arrive as strings; schemas parse them strictly. Each read
 * declares the payload it answers (`result`): its handler is typed by it and the
 * tests check every answer against it. Shapes several reads share are declared once here.
 */
const int = () => z.number().int();

/** The chain head: the last seq and its row_hash; seq 0 and '' before the first event. */
export const chainHead = z.object({ seq: int(), rowHash: z.string() });

/** A ledger event as the wire carries it: stored column names; the payload is free-form JSON. */
export const eventRow = z.object({
  seq: int(),
  family: z.string(),
  kind: z.string(),
  entity_id: z.string(),
  actor: z.string(),
  at: z.string(),
  payload: z.unknown(),
  prev_hash: z.string(),
  row_hash: z.string(),
});

/** An approval as decision.list shows it: what was asked, by whom, and how it stands. */
export const approvalRow = z.object({
  approvalId: z.string(),
  actionClass: z.enum(ACTION_CLASSES),
  subjectId: z.string(),
  payloadHash: z.string(),
  summary: z.string(),
  /** The held call a human approves: its method and params, as the hold recorded them. */
  payload: z.object({ method: z.string(), params: z.unknown() }),
  status: z.enum(APPROVAL_STATUSES),
  requestedBy: z.string(),
  requestedAt: z.string(),
  expiresAt: z.string(),
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  reason: z.string().nullable(),
  usedAt: z.string().nullable(),
  usedLedgerId: z.string().nullable(),
  ledgerId: z.string(),
});

/** The floors of a policy (above them a human decides), in cents, and how long an approval lasts (milliseconds). */
const floors = {
  billApprovalFloorCents: int(),
  materialityFloorCents: int(),
  approvalExpiryMs: int(),
};

export const events = read({
  name: 'events',
  scope: 'org.read',
  summary: 'Page the ledger forward from a cursor (the last seq already held).',
  brief: 'Page the hash-chained event ledger from cursor 0.',
  query: z.strictObject({
    cursor: queryInt(0, Number.MAX_SAFE_INTEGER).default(0).describe('Last seq held; default 0'),
    limit: queryInt(1, limits.eventsPageRowsMax).default(limits.eventsPageRowsDefault).describe('1-500 (100)'),
  }),
  result: z.object({ events: z.array(eventRow), nextCursor: int() }),
});

export const snapshot = read({
  name: 'snapshot',
  scope: 'org.read',
  summary: 'The chain head of the organisation.',
  brief: 'Ledger head: last seq and row hash.',
  query: z.strictObject({}),
  result: z.object({ orgId: z.string(), head: chainHead }),
});

export const boardReady = read({
  name: 'board.ready',
  scope: 'org.read',
  summary: 'Unclaimed board items, most urgent first, then oldest first.',
  brief: 'Unclaimed tasks, most urgent first.',
  query: z.strictObject({
    limit: queryInt(1, limits.pageRowsMax).default(limits.pageRowsDefault).describe('1-200 (50)'),
  }),
  result: z.object({ items: z.array(task) }),
});

export const boardContext = read({
  name: 'board.context',
  scope: 'org.read',
  summary: 'One board item with its history of ledger events.',
  brief: 'One task with its event history.',
  query: z.strictObject({ id: id().describe('Task id') }),
  result: z.object({ item: task, history: z.array(eventRow) }),
});

/** What org/whoami shows of any caller: its key, tier, scopes and organisation. */
const whoamiBase = {
  keyId: z.string(),
  tier: z.enum(TIERS),
  scopes: z.array(z.enum(SCOPES)),
  orgId: z.string(),
  slug: z.string(),
};

export const whoami = read({
  name: 'org/whoami',
  scope: 'org.read',
  summary: "The caller's own identity; `slug` must be the caller's organisation (a key reads only its own).",
  brief: 'Your key, tier, scopes, organisation and agent.',
  query: z.strictObject({ slug: text(limits.idCharsMax).describe("Your org's slug") }),
  result: z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('agent'),
      agentId: z.string(),
      name: z.string(),
      /** Null for an agent named by `key issue --agent` rather than paired. */
      pairedAt: z.string().nullable(),
      ...whoamiBase,
    }),
    z.object({ kind: z.literal('key'), ...whoamiBase }),
  ]),
});

export const orgSelf = read({
  name: 'org/self',
  scope: 'org.read',
  summary: "The caller's organisation: id, slug, name, creation time.",
  brief: 'Your organisation: id, slug, name, created.',
  query: z.strictObject({}),
  result: z.object({ orgId: z.string(), slug: z.string(), name: z.string(), createdAt: z.string() }),
});

export const approvalWait = read({
  name: 'approval.wait',
  scope: 'org.read',
  summary:
    'Long-poll an approval until a human decides or timeoutMs passes (at most 30 000). Returns the status and, once approved, the signatureToken.',
  brief: "A human's decision on an approval.",
  query: z.strictObject({
    approvalId: id().describe('From approval.request'),
    timeoutMs: queryInt(0, limits.approvalWaitMsMax).default(0).describe('0-30000; default 0'),
  }),
  result: z.object({
    approvalId: z.string(),
    status: z.enum(APPROVAL_STATUSES),
    /** Present once a human decided. */
    decidedBy: z.string().optional(),
    decidedAt: z.string().nullable().optional(),
    /** Present when approved: the proof the signature act presents. */
    signatureToken: z.string().optional(),
    reason: z.string().optional(),
  }),
});

export const decisionList = read({
  name: 'decision.list',
  scope: 'org.read',
  summary: 'Approvals of the organisation, newest first, with filters; page with cursor.',
  brief: 'Approvals, newest first, with held call, status, decider, proof use.',
  query: z.strictObject({
    status: z.enum(APPROVAL_STATUSES).optional().describe('Status'),
    actionClass: z.enum(ACTION_CLASSES).optional().describe('Action class'),
    subjectId: id().optional().describe('e.g. a bill id'),
    cursor: id().optional().describe('nextCursor'),
    limit: queryInt(1, limits.pageRowsMax).default(limits.pageRowsDefault).describe('1-200 (50)'),
  }),
  result: z.object({ decisions: z.array(approvalRow), nextCursor: z.string().nullable() }),
});

export const policy = read({
  name: 'policy',
  scope: 'org.read',
  summary: 'The organisation’s governance policy: floors, approval expiry, decision rights.',
  brief: 'Approval floors (cents), approval lifetime (ms), and who decides each action class.',
  query: z.strictObject({}),
  result: z.object({
    orgId: z.string(),
    ...floors,
    /** Per action class, who may decide: user ids and `role:<role>`. */
    decisionRights: z.partialRecord(z.enum(ACTION_CLASSES), z.array(z.string())),
  }),
});

export const directory = read({
  name: 'directory',
  scope: 'org.read',
  summary: `Who acts in the organisation: people (id, email, role), agents, and API keys (id, tier, agent, revoked) — never secrets. Each list holds at most its newest ${limits.directoryRowsMax} rows, oldest first; truncated is true when one was cut.`,
  brief: 'People, agents and API keys (never secrets).',
  query: z.strictObject({}),
  result: z.object({
    orgId: z.string(),
    people: z.array(z.object({ userId: z.string(), email: z.string(), role: z.enum(USER_ROLES), createdAt: z.string() })),
    agents: z.array(z.object({ agentId: z.string(), name: z.string(), createdAt: z.string() })),
    keys: z.array(keyRow),
    truncated: z.boolean(),
  }),
});

export const ops = read({
  name: 'ops',
  scope: 'org.read',
  summary:
    'Operational state of the organisation: chain head, pending approvals, open holds, and the outbox (queued: still to be tried; undeliverable: attempts spent or refused by the adapter — `finance-desk outbox retry` re-queues them).',
  brief: 'Ledger head, pending approvals, open holds, and the outbox (queued, undeliverable).',
  query: z.strictObject({}),
  result: z.object({
    orgId: z.string(),
    head: chainHead,
    pendingApprovals: int(),
    openHolds: int(),
    outbox: z.object({ queued: int(), undeliverable: int() }),
  }),
});

export const contactsList = read({
  name: 'contacts.list',
  scope: 'org.read',
  summary:
    "Customers and suppliers, in name order (case and accents folded), each with email, ABN, isCustomer, isSupplier, bank (BSB, account number masked to its last 3 digits, account name; from the most recently approved bill) and balances: receivableCents and openInvoices (what is still owed on its sent invoices, as books.invoices' outstandingCents), payableCents and openBills (what is still to pay on its approved bills, as books.bills' outstandingCents once a bill is posted; bills awaiting approval are not owed yet, except bills carried in by books.openingBalances and held, which the conversion posted), customerCreditCents and supplierCreditCents (what is left of its credits) and credits (its open credits, oldest first, at most 20: the creditId books.creditAllocate and books.creditRefund take). Filters: kind (customer | supplier), q (1–100 characters, matched anywhere in the name, case and accents folded). Page with cursor (the nextCursor of the previous page) and limit (1–200, default 50).",
  brief: 'Contacts by name: email, ABN, masked bank details, receivableCents, payableCents.',
  query: z.strictObject({
    kind: contactKind.optional().describe('Contact kind'),
    q: text(limits.contactQueryCharsMax).optional().describe('Name contains'),
    cursor: id().optional().describe('nextCursor'),
    limit: queryInt(1, limits.pageRowsMax).default(limits.pageRowsDefault).describe('1-200 (50)'),
  }),
  result: z.object({
    contacts: z.array(
      contact.omit({ noop: true }).extend({
        receivableCents: int(),
        openInvoices: int(),
        payableCents: int(),
        openBills: int(),
        customerCreditCents: int(),
        supplierCreditCents: int(),
        credits: z.array(
          z.object({
            id: z.string(),
            side: creditSide,
            source: creditSource,
            documentId: z.string().nullable(),
            date: z.string(),
            amountCents: int(),
            remainingCents: int(),
          }),
        ),
      }),
    ),
    nextCursor: z.string().nullable(),
  }),
});

export const hierarchy = read({
  name: 'hierarchy',
  scope: 'org.read',
  summary:
    'Who is who before asking for approval: people (userId, email, role, the action classes each may decide), agents (agentId, name, status active|revoked, the tiers and scopes of their active keys, how many), active keys paired with no agent by tier, and for EVERY action class its method, when a human is needed (the floors of the policy), whether decision rights are declared and who holds them. A class with declared false has no holder: its acts are refused with GOVERNANCE_NOT_READY. Lists stop at 500 rows with truncated true. Never secrets or password hashes.',
  brief: "Who may approve what: people, agents' scopes, each action class's floors and holders.",
  query: z.strictObject({}),
  result: z.object({
    orgId: z.string(),
    people: z.array(
      z.object({
        userId: z.string(),
        email: z.string(),
        role: z.enum(USER_ROLES),
        decisionRights: z.array(z.enum(ACTION_CLASSES)),
      }),
    ),
    peopleTruncated: z.boolean(),
    agents: z.array(
      z.object({
        agentId: z.string(),
        name: z.string(),
        status: z.enum(AGENT_STATUSES),
        tiers: z.array(z.enum(TIERS)),
        scopes: z.array(z.enum(SCOPES)),
        activeKeys: int(),
      }),
    ),
    agentsTruncated: z.boolean(),
    /** Active keys paired with no agent, per tier (every tier present). */
    unpairedKeys: z.record(z.enum(TIERS), int()),
    floors: z.object(floors),
    decisionRights: z.array(
      z.object({
        actionClass: z.enum(ACTION_CLASSES),
        method: z.string(),
        humanNeeded: z.string(),
        declared: z.boolean(),
        grants: z.array(z.string()),
        holders: z.array(z.object({ userId: z.string(), email: z.string() })),
      }),
    ),
    truncated: z.boolean(),
  }),
});

/** The kinds of dated item `meetings.list` shows, in the order items of one date are listed. */
export const MEETING_KINDS = ['approval.expiry', 'bas.due', 'bill.due', 'invoice.due', 'payday', 'promise', 'super.due'] as const;
export type MeetingKind = (typeof MEETING_KINDS)[number];

/** At most this many days from `from` to `to` in one `meetings.list` call. */
export const MEETINGS_RANGE_DAYS_MAX = 92;

export const meetingsList = read({
  name: 'meetings.list',
  scope: 'org.read',
  summary:
    "The desk's calendar as dated items, so an agent can plan its week. from (default the organisation's today) to to (default from + 13 days; at most 92 days after from; dates from 1970-01-01 to 9999-06-30), optional kind; items sorted by (date, kind, id), paged with cursor (the nextCursor of the previous page, null at the end) and limit (1–200, default 50). Kinds: invoice.due (a sent or part-paid invoice due that day, amount outstanding); bill.due (an approved, unpaid bill due that day, amount outstanding); promise (the latest promise to pay on an open invoice, on its promised date); approval.expiry (an approval still pending a human, or approved with its proof unused, on the organisation-local date it expires); bas.due (a BAS on its due date with its status and net amount; once a BAS exists, the following periods not yet prepared show as not_prepared); super.due (a signed pay run's super guarantee still outstanding, on its due date); payday (a drafted or signed pay run on its payment date with its net pay; for each pay frequency with active employees, the pay days after the latest run on it, as projected). Titles are written by the server; customer and agent text in them is quoted.",
  brief: 'Calendar: dues, promises, expiring approvals, BAS, super, paydays; default 14 days.',
  query: z.strictObject({
    from: isoDate().optional().describe('Default today'),
    to: isoDate().optional().describe('Default from + 13 days'),
    kind: z.enum(MEETING_KINDS).optional().describe('Kind'),
    cursor: z
      .string()
      .max(400)
      .regex(/^[A-Za-z0-9_-]+$/, { error: 'must be the nextCursor of a previous page' })
      .optional()
      .describe('nextCursor'),
    limit: queryInt(1, limits.pageRowsMax).default(limits.pageRowsDefault).describe('1-200 (50)'),
  }),
  result: z.object({
    orgId: z.string(),
    timeZone: z.string(),
    today: z.string(),
    from: z.string(),
    to: z.string(),
    items: z.array(
      z.object({
        date: z.string(),
        kind: z.enum(MEETING_KINDS),
        id: z.string(),
        subjectId: z.string().nullable(),
        title: z.string(),
        amountCents: int().nullable(),
        status: z.string(),
        ledgerId: z.string().nullable(),
      }),
    ),
    nextCursor: z.string().nullable(),
  }),
});

/** At most this many days from `from` to `to` in one `cost.rollup` call (inclusive range of 366 days). */
export const COST_ROLLUP_RANGE_DAYS_MAX = 366;

/** Calls, tokens and integer micro-dollars (1 000 000 = US$1) of AI gateway use. */
const aiUsage = { calls: int(), inputTokens: int(), outputTokens: int(), costMicroUsd: int() };

export const costRollup = read({
  name: 'cost.rollup',
  scope: 'org.read',
  summary:
    "AI gateway spend: every books.ask call of the organisation, grouped by day (the organisation's local date), actor and model, each row with calls, inputTokens, outputTokens and costMicroUsd (integer micro-dollars: 1 000 000 = US$1; the built-in grounded answerer costs 0), plus totals over the whole range. from (default to − 29 days) to to (default the organisation's today), inclusive, at most 366 days; optional actor (an agent or key id as events show it) and model. Rows are ordered by day, actor, model and paged with cursor (the nextCursor of the previous page, null at the end) and limit (1–200, default 50); totals always cover every row of the range and filters.",
  brief: 'books.ask spend by day, actor and model (micro-dollars); default 30 days.',
  query: z.strictObject({
    from: isoDate().optional().describe('Default to - 29 days'),
    to: isoDate().optional().describe('Default today'),
    actor: text(limits.idCharsMax).optional().describe('Agent or key id'),
    model: text(limits.nameCharsMax).optional().describe('Model'),
    cursor: z
      .string()
      .max(800)
      .regex(/^[A-Za-z0-9_-]+$/, { error: 'must be the nextCursor of a previous page' })
      .optional()
      .describe('nextCursor'),
    limit: queryInt(1, limits.pageRowsMax).default(limits.pageRowsDefault).describe('1-200 (50)'),
  }),
  result: z.object({
    orgId: z.string(),
    from: z.string(),
    to: z.string(),
    rows: z.array(z.object({ day: z.string(), actor: z.string(), model: z.string(), ...aiUsage })),
    totals: z.object(aiUsage),
    nextCursor: z.string().nullable(),
  }),
});

/**
 * Payment and lodgement files: the ABA files of payment runs and signed pay
 * runs, the super contribution files of super payments, and the BAS and STP lodgement documents, as the outbox carried them to the bank or the
 * ATO (the same source as the audit pack's documents). Extensions to the core contract. A TFN is never
 * served to a key: an STP pay event is served with every TFN masked (`masked`), beside the
 * SHA-256 of the exact bytes that were lodged.
 */
export const FILE_KINDS = ['aba', 'bas', 'stp_pay_event', 'super_contribution'] as const;

const fileRow = z.object({
  /** The outbox row that carried the file (pay_… for payment files, lodg_… for lodgements). */
  id: z.string(),
  kind: z.enum(FILE_KINDS),
  filename: z.string(),
  contentType: z.string(),
  /** Size of the file's exact stored bytes (what the bank or the ATO received). */
  sizeBytes: int(),
  /** Lowercase hex SHA-256 of the file's exact stored bytes (for a lodgement, its receipt's). */
  sha256: z.string(),
  createdAt: z.string(),
  /** What the file is of: the payment run or pay run id (aba), the super payment id (super_contribution), the BAS or pay run id (lodgements). */
  source: z.string(),
  /** When the outbox handed it to the bank channel or lodgement agent; null while queued. */
  deliveredAt: z.string().nullable(),
});

export const booksFiles = read({
  name: 'books.files',
  scope: 'books.read',
  summary:
    "Payment and lodgement files (an extension): every ABA file a payment run or signed pay run wrote, every super contribution file (CSV) a super payment wrote, and every BAS and STP lodgement document, newest first, each with id, kind (aba | bas | stp_pay_event | super_contribution), filename, contentType, sizeBytes and sha256 (of the exact stored bytes, what the bank or the ATO received), createdAt, source (the run, pay run or BAS id) and deliveredAt. Optional kind filter. Page with cursor (the nextCursor of the previous page, null at the end) and limit (1–200, default 50). Fetch one file's bytes with books.file (an STP pay event's TFNs masked).",
  brief: 'ABA, BAS and STP files, newest first; fetch with books.file.',
  query: z.strictObject({
    kind: z
      .enum(FILE_KINDS, { error: `must be one of ${FILE_KINDS.join(', ')}` })
      .optional()
      .describe('Kind'),
    cursor: id().optional().describe('nextCursor'),
    limit: queryInt(1, limits.pageRowsMax).default(limits.pageRowsDefault).describe('1-200 (50)'),
  }),
  result: z.object({ files: z.array(fileRow), nextCursor: z.string().nullable() }),
});

export const booksFile = read({
  name: 'books.file',
  scope: 'books.read',
  summary:
    "One payment or lodgement file (an extension) by its id from books.files: its row (sizeBytes and sha256 of the exact stored bytes the bank or the ATO received) and contentBase64, the bytes served (base64). A TFN is never served to a key: an STP pay event is served with every payee's TFN masked as books.employees shows it (******210; an ATO not-quoted code as it is) and its nonce as asterisks, masked true; every other file is its exact bytes, masked false. contentSha256 and contentSizeBytes are of the bytes served (equal to sha256 and sizeBytes when masked is false). The exact pay event goes only to the lodgement agent and, in the console, to people with payroll decision rights. Another organisation's file, or an id that is not a file, is NOT_FOUND.",
  brief: "One file's base64 bytes, size and SHA-256; STP TFNs masked.",
  query: z.strictObject({ id: id().describe('File id') }),
  result: fileRow.extend({
    /** True when the bytes served differ from the stored ones: an STP pay event's TFNs (and nonce) masked. */
    masked: z.boolean(),
    /** Lowercase hex SHA-256 of the bytes in contentBase64. */
    contentSha256: z.string(),
    /** Size of the bytes in contentBase64. */
    contentSizeBytes: int(),
    contentBase64: z.string(),
  }),
});

/** Reads of the contract that are not built yet: NOT_FOUND "not deployed". None remain. */
export const NOT_DEPLOYED_READS = [] as const satisfies readonly string[];

export const reads = [
  directory,
  ops,
  events,
  snapshot,
  boardReady,
  boardContext,
  whoami,
  orgSelf,
  approvalWait,
  decisionList,
  policy,
  contactsList,
  hierarchy,
  meetingsList,
  orgProfile,
  orgMembers,
  orgAgents,
  orgKeys,
  costRollup,
  booksFiles,
  booksFile,
  artifactsIndex,
  ...artifactReads.map((a) => a.spec),
] as const;
