import { z } from 'zod';
import { limits } from '../limits.js';
import { TIERS } from '../scopes.js';
import { ACTION_CLASSES, USER_ROLES } from '../signature.js';
import { BAS_BASES } from './tax.js';
import { id, isoDate, queryInt, read, text } from './index-fields.js';
import { abn } from './people-fields.js';
import { abaText, bankAccountNumber, bsb } from './aba-fields.js';

/**
 * The organisation's own records: its profile, the people, agents and keys that act in it, and
 * agent pairing. Reads are GET reads on `org.read`;
 * `org/pair` is the one route that takes no key: a pairing code is the credential.
 */
export const BAS_FREQUENCIES = ['monthly', 'quarterly'] as const;
export const AGENT_STATUSES = ['active', 'revoked'] as const;
export const KEY_STATUSES = ['active', 'revoked'] as const;

/** Pairing limits, in one place (units last in names). */
export const pairingLimits = {
  /** Unused, unexpired codes an organisation may hold at once. */
  openCodesMax: 20,
  ttlMinutesDefault: 60,
  ttlMinutesMax: 7 * 24 * 60,
  /** A person-chosen secret: length bounds and the estimated entropy it must reach. */
  chosenSecretCharsMin: 12,
  chosenSecretCharsMax: 128,
  chosenSecretBitsMin: 60,
  /** Wrong secrets presented for one code before it is burnt. */
  failedAttemptsMax: 5,
  codeCharsMax: 200,
} as const;

/** An agent's name: what the console and events show; letters, digits, spaces, . _ - (as `key issue --agent`). */
export const agentName = () =>
  z.string({ error: 'must be 1 to 64 letters, digits, spaces, dots, _ or -' }).regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/, {
    error: 'must be 1 to 64 letters, digits, spaces, dots, _ or -, starting with a letter or digit',
  });

/** The largest invoice sequence number (eight digits). */
export const invoiceNumberMax = 99_999_999;

/** An invoice-number prefix: up to 12 letters, digits, '-', '/', '_' or '.'; empty allowed. */
export const invoicePrefix = () =>
  z
    .string({ error: "must be up to 12 letters, digits, '-', '/', '_' or '.'" })
    .regex(/^[A-Za-z0-9._/-]{0,12}$/, { error: "must be up to 12 letters, digits, '-', '/', '_' or '.'" });

/**
 * A change to the profile (console, CLI). Every field optional; `null` clears ABN and legal name.
 * The defaults (migration 26) are what the code assumed before: GST registered, accrual basis,
 * quarterly BAS, financial year from July.
 */
export const orgProfilePatch = z.strictObject({
  name: text(limits.nameCharsMax).optional(),
  legalName: text(limits.nameCharsMax).nullable().optional(),
  abn: abn().nullable().optional(),
  gstRegistered: z.boolean({ error: 'must be true or false' }).optional(),
  gstBasis: z.enum(BAS_BASES, { error: `must be one of ${BAS_BASES.join(', ')}` }).optional(),
  basFrequency: z.enum(BAS_FREQUENCIES, { error: `must be one of ${BAS_FREQUENCIES.join(', ')}` }).optional(),
  financialYearStartMonth: z
    .number({ error: 'must be a month number from 1 to 12' })
    .int({ error: 'must be a month number from 1 to 12' })
    .min(1, { error: 'must be a month number from 1 to 12' })
    .max(12, { error: 'must be a month number from 1 to 12' })
    .optional(),
  /** What invoice numbers start with (INV- gives INV-0001); may be empty. */
  invoicePrefix: invoicePrefix().optional(),
  /** The number the next invoice takes; not at or below one already used with the prefix. */
  invoiceNextNumber: z
    .number({ error: `must be a whole number from 1 to ${invoiceNumberMax}` })
    .int({ error: `must be a whole number from 1 to ${invoiceNumberMax}` })
    .min(1, { error: `must be a whole number from 1 to ${invoiceNumberMax}` })
    .max(invoiceNumberMax, { error: `must be a whole number from 1 to ${invoiceNumberMax}` })
    .optional(),
  /** Nothing posts on or before this date (null clears it); not in the future. Owners only (console, CLI). */
  lockDate: isoDate().nullable().optional(),
  /**
   * The business's own bank account, printed as "how to pay" on its invoices
   * (the invoice number is the payment reference). `null` clears each; BSB and account number go
   * together (the server refuses one without the other, naming the missing field).
   */
  paymentAccountName: abaText(32).nullable().optional(),
  paymentBsb: bsb().nullable().optional(),
  paymentAccountNumber: bankAccountNumber().nullable().optional(),
});
export type OrgProfilePatch = z.infer<typeof orgProfilePatch>;

/** Creating a pairing code (console JSON API; the form and the CLI are converted to this). */
export const pairingCodeCreate = z.strictObject({
  agentName: agentName(),
  tier: z.enum(TIERS, { error: `must be one of ${TIERS.join(', ')}` }),
  /** A person-chosen secret; omitted, the server generates 256 bits. */
  secret: z
    .string({ error: 'must be a string' })
    .min(pairingLimits.chosenSecretCharsMin, { error: `must be at least ${pairingLimits.chosenSecretCharsMin} characters` })
    .max(pairingLimits.chosenSecretCharsMax, { error: `must be at most ${pairingLimits.chosenSecretCharsMax} characters` })
    .regex(/^[\x21-\x7e]+$/, { error: 'must be printable ASCII without spaces' })
    .optional(),
  ttlMinutes: z
    .number({ error: `must be an integer from 1 to ${pairingLimits.ttlMinutesMax}` })
    .int({ error: `must be an integer from 1 to ${pairingLimits.ttlMinutesMax}` })
    .min(1, { error: `must be an integer from 1 to ${pairingLimits.ttlMinutesMax}` })
    .max(pairingLimits.ttlMinutesMax, { error: `must be an integer from 1 to ${pairingLimits.ttlMinutesMax}` })
    .default(pairingLimits.ttlMinutesDefault),
});
export type PairingCodeCreate = z.infer<typeof pairingCodeCreate>;

/** A route outside the key pipeline (no Authorization): its body schema and words for the docs. */
export interface PublicRouteSpec<P extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly summary: string;
  readonly params: P;
}

export const orgPair: PublicRouteSpec = {
  name: 'org/pair',
  summary:
    'Exchange a one-time pairing code (from an owner: console Agents page or `finance-desk agent pair`) for an agent API key. ' +
    'No Authorization header: the code is the credential. Answers `{agentId, keyId, key, tier, orgId, slug}` once; the agent id is ' +
    'the `actor` of the events its key causes. An unknown, expired, used or burnt code (5 wrong secrets) is UNAUTHORIZED, ' +
    'all alike. Rate-limited per client address (RATE_LIMITED with Retry-After). Event `org` / `org.agent.pair`.',
  params: z.strictObject({ code: text(pairingLimits.codeCharsMax).describe('One-time pairing code from an owner') }),
};

export const publicRoutes: readonly PublicRouteSpec[] = [orgPair];

const page = {
  cursor: id().optional().describe('nextCursor'),
  limit: queryInt(1, limits.pageRowsMax).default(limits.pageRowsDefault).describe('1-200 (50)'),
};

/** `nextCursor` of a paged read: the last id of the page, null at the end. */
const nextCursor = z.string().nullable();

/** An API key as reads show it (org/keys, directory): never its secret or hash. */
export const keyRow = z.object({
  keyId: z.string(),
  tier: z.enum(TIERS),
  /** The agent the key belongs to; null for a key paired with no agent. */
  agentId: z.string().nullable(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
});

export const orgProfile = read({
  name: 'org/profile',
  scope: 'org.read',
  summary:
    'The organisation profile: name, legal name, ABN, GST registration and basis (the default basis of books.taxPrepare), BAS ' +
    'frequency, financial-year start month, time zone; invoice numbering (prefix, next number) and the lock date, and the bank account invoices ask customers to pay into (paymentAccountName, paymentBsb, paymentAccountNumber). Owners set it in the console or with `finance-desk org profile`.',
  brief: 'Organisation profile: ABN, GST basis, BAS frequency, lock date, pay-in account.',
  query: z.strictObject({}),
  result: z.object({
    orgId: z.string(),
    slug: z.string(),
    name: z.string(),
    legalName: z.string().nullable(),
    abn: z.string().nullable(),
    gstRegistered: z.boolean(),
    gstBasis: z.enum(BAS_BASES),
    basFrequency: z.enum(BAS_FREQUENCIES),
    financialYearStartMonth: z.number().int(),
    timeZone: z.string(),
    /** Invoice numbering (the next invoice is invoicePrefix + invoiceNextNumber, INV-0001). */
    invoicePrefix: z.string(),
    invoiceNextNumber: z.number().int(),
    /** Nothing posts on or before it; null when the books are not locked. */
    lockDate: z.string().nullable(),
    /** The bank account invoices ask customers to pay into (null until an owner sets it). */
    paymentAccountName: z.string().nullable(),
    paymentBsb: z.string().nullable(),
    paymentAccountNumber: z.string().nullable(),
  }),
});

export const orgMembers = read({
  name: 'org/members',
  scope: 'org.read',
  summary:
    'People of the organisation: userId, email, role and the action classes they may decide (policy decision rights, by id or ' +
    'role); never password hashes. Paged by `cursor` (the last userId held).',
  brief: 'People: id, email, role, action classes.',
  query: z.strictObject(page),
  result: z.object({
    orgId: z.string(),
    members: z.array(
      z.object({
        userId: z.string(),
        email: z.string(),
        role: z.enum(USER_ROLES),
        createdAt: z.string(),
        decisionRights: z.array(z.enum(ACTION_CLASSES)),
      }),
    ),
    nextCursor,
  }),
});

export const orgAgents = read({
  name: 'org/agents',
  scope: 'org.read',
  summary:
    'Agents of the organisation: agentId, name, tier (of its pairing; null for agents named by `key issue --agent`), status ' +
    'active|revoked, pairedAt, revokedAt, revokedBy, keyIds (newest first, at most 20) and keyCount. Optional `status`; paged by `cursor`.',
  brief: 'Agents: id, name, tier, status, key ids.',
  query: z.strictObject({ ...page, status: z.enum(AGENT_STATUSES).optional().describe('Status') }),
  result: z.object({
    orgId: z.string(),
    agents: z.array(
      z.object({
        agentId: z.string(),
        name: z.string(),
        tier: z.enum(TIERS).nullable(),
        status: z.enum(AGENT_STATUSES),
        createdAt: z.string(),
        pairedAt: z.string().nullable(),
        revokedAt: z.string().nullable(),
        revokedBy: z.string().nullable(),
        keyIds: z.array(z.string()),
        keyCount: z.number().int(),
      }),
    ),
    nextCursor,
  }),
});

export const orgKeys = read({
  name: 'org/keys',
  scope: 'org.read',
  summary:
    'API keys of the organisation: keyId, tier, agentId, createdAt, revokedAt; never secrets or hashes. Optional `status` ' +
    'active|revoked and `agentId`; paged by `cursor` (the last keyId held).',
  brief: 'API keys: id, tier, agent, status; never secrets.',
  query: z.strictObject({
    ...page,
    status: z.enum(KEY_STATUSES).optional().describe('Status'),
    agentId: id().optional().describe('Agent id'),
  }),
  result: z.object({ orgId: z.string(), keys: z.array(keyRow), nextCursor }),
});

export const orgReads = [orgProfile, orgMembers, orgAgents, orgKeys] as const;
