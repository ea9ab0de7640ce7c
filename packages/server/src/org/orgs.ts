import { events, canonicalJson, isTier, type Tier } from '@finance-desk/protocol';
import { canonicalTimeZone, DEFAULT_TIME_ZONE, nowIso } from '../clock.js';
import { DomainError, notFound } from '../errors.js';
import { seedChart } from '../domain/gl/chart.js';
import { defaultPolicy } from '../governance/policy.js';
import { generatePassword, hashPassword } from './passwords.js';
import { isEmail } from './email-address.js';
import { appendEvent } from '../ledger/append.js';
import { newId } from '../ids.js';
import type { Database, Queryable } from '../storage/types.js';
import { inUnitOfWork } from '../write-path.js';
import { issueKey, type IssuedKey } from './credentials.js';
import { displayNameProblem } from '../governance/actor-name.js';

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$/;

export interface CreateOrgInput {
  readonly name: string;
  readonly slug?: string;
  readonly ownerEmail?: string;
  readonly decisionRights: boolean;
  /** IANA time zone its dates are kept in (clock.ts); default Australia/Sydney. */
  readonly timeZone?: string;
}

export interface CreatedOrg {
  readonly orgId: string;
  readonly slug: string;
  readonly keys: Readonly<Record<Tier, string>>;
  readonly keyIds: Readonly<Record<Tier, string>>;
  readonly owner: { readonly userId: string; readonly email: string; readonly password: string };
}

export function slugify(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/g, '');
  return s || 'org';
}

export interface OrgInputProblem {
  readonly field: 'name' | 'slug' | 'ownerEmail' | 'timeZone';
  readonly reason: string;
}

/**
 * What is wrong with a createOrg input, or null; shared by createOrg and the CLI, which names
 * its flags instead of the fields (a one-line reason, non-zero exit, nothing created).
 */
export function orgInputProblem(input: Omit<CreateOrgInput, 'decisionRights'>): OrgInputProblem | null {
  const name = input.name.trim();
  if (!name || name.length > 200) return { field: 'name', reason: 'must be 1 to 200 characters' };
  const slug = input.slug ?? slugify(name);
  if (!SLUG.test(slug)) {
    return { field: 'slug', reason: 'must be lowercase letters, digits and inner hyphens, at most 48' };
  }
  if (input.ownerEmail !== undefined && !isEmail(input.ownerEmail.trim().toLowerCase())) {
    return { field: 'ownerEmail', reason: 'must be an email address' };
  }
  if (input.timeZone !== undefined && !canonicalTimeZone(input.timeZone)) {
    return { field: 'timeZone', reason: 'must be an IANA time zone such as Australia/Sydney' };
  }
  return null;
}

/**
 * Create an organisation with its ledger head, policy, owner and one key per tier. One
 * transaction holds every row and the one event, `org` / `org.created` (key ids and owner id,
 * never secrets), so a failure anywhere leaves nothing behind. The head is
 * inserted at seq 0 in the same transaction and appended to directly: no other writer can
 * see the organisation before commit, so there is nothing to lock.
 */
export async function createOrg(db: Database, input: CreateOrgInput): Promise<CreatedOrg> {
  const problem = orgInputProblem(input);
  if (problem) throw new DomainError('BAD_REQUEST', `${problem.field}: ${problem.reason}`);
  const name = input.name.trim();
  const slug = input.slug ?? slugify(name);
  // Checked by orgInputProblem above; the canonical spelling is stored.
  const timeZone = canonicalTimeZone(input.timeZone ?? DEFAULT_TIME_ZONE) ?? DEFAULT_TIME_ZONE;
  const orgId = newId('org');
  const now = nowIso();
  const userId = newId('usr');
  const email = (input.ownerEmail ?? `owner@${slug}.example`).trim().toLowerCase();
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  const issued = await db.write(async (tx) => {
    const taken = await tx.get('SELECT id FROM organisations WHERE slug = ?', [slug]);
    if (taken) throw new DomainError('CONFLICT', `slug ${slug} is already taken`);
    await tx.run('INSERT INTO organisations (id, slug, name, time_zone, created_at) VALUES (?, ?, ?, ?, ?)', [
      orgId,
      slug,
      name,
      timeZone,
      now,
    ]);
    await tx.run("INSERT INTO org_heads (org_id, seq, row_hash) VALUES (?, 0, '')", [orgId]);
    await tx.run('INSERT INTO users (id, org_id, email, role, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
      userId,
      orgId,
      email,
      'owner',
      passwordHash,
      now,
    ]);
    const policy = defaultPolicy(input.decisionRights ? [userId] : []);
    await tx.run('INSERT INTO policies (org_id, body, updated_at) VALUES (?, ?, ?)', [orgId, canonicalJson(policy), now]);
    await seedChart(tx, orgId, now);
    const keys: IssuedKey[] = [];
    // Labelled so the console names them ("Setup agent key") rather than showing their ids.
    for (const tier of ['observer', 'reader', 'agent'] as const) keys.push(await issueKey(tx, orgId, tier, null, now, setupKeyLabel(tier)));
    await appendEvent(tx, db.caps, orgId, { seq: 0, rowHash: '' }, '', events.orgCreated, {
      entityId: orgId,
      payload: { name, slug, timeZone, ownerUserId: userId, keyIds: keys.map((k) => k.keyId), decisionRights: input.decisionRights },
    });
    return keys;
  });
  const byTier = (f: (k: IssuedKey) => string) => Object.fromEntries(issued.map((k) => [k.tier, f(k)])) as Record<Tier, string>;
  return {
    orgId,
    slug,
    keys: byTier((k) => k.key),
    keyIds: byTier((k) => k.keyId),
    owner: { userId, email, password },
  };
}

export async function orgBySlug(q: Queryable, slug: string) {
  const org = await q.get<{ id: string; slug: string; name: string; created_at: string }>(
    'SELECT id, slug, name, created_at FROM organisations WHERE slug = ?',
    [slug],
  );
  if (!org) throw notFound('organisation', slug);
  return org;
}

/** The label of each key an organisation is created with. */
export const setupKeyLabel = (tier: Tier): string => `Setup ${tier} key`;

/**
 * Issue a key for an existing organisation (CLI `key issue`); event `org` / `key.issued`. `label`:
 * what the console and emails call the key's acts (a key bound to an agent is named by its agent).
 */
export async function issueOrgKey(
  db: Database,
  slug: string,
  tier: string,
  agentName: string | null,
  label: string | null = null,
): Promise<IssuedKey & { agentId: string | null }> {
  if (!isTier(tier)) throw new DomainError('BAD_REQUEST', 'tier: must be one of observer, reader, agent');
  const labelProblem = label === null ? null : displayNameProblem('label', label);
  if (labelProblem) throw new DomainError('BAD_REQUEST', labelProblem);
  const keyLabel = label === null ? null : label.trim();
  if (agentName !== null && !/^[A-Za-z0-9 ._-]{1,64}$/.test(agentName)) {
    throw new DomainError('BAD_REQUEST', 'agent: must be 1 to 64 letters, digits, spaces, dots, _ or -');
  }
  const org = await orgBySlug(db.reader, slug);
  let out: (IssuedKey & { agentId: string | null }) | null = null;
  await inUnitOfWork(db, org.id, '', async (uow) => {
    let agentId: string | null = null;
    if (agentName !== null) {
      const existing = await uow.tx.get<{ id: string; revoked_at: string | null }>(
        'SELECT id, revoked_at FROM agents WHERE org_id = ? AND name = ?',
        [org.id, agentName],
      );
      // A revoked agent's name is never silently revived.
      if (existing?.revoked_at) {
        throw new DomainError('CONFLICT', `agent "${agentName}" (${existing.id}) was revoked; choose another name`);
      }
      agentId = existing?.id ?? newId('agt');
      if (!existing) {
        await uow.tx.run('INSERT INTO agents (id, org_id, name, created_at) VALUES (?, ?, ?, ?)', [agentId, org.id, agentName, uow.now]);
      }
    }
    const key = await issueKey(uow.tx, org.id, tier, agentId, uow.now, keyLabel);
    out = { ...key, agentId };
    await uow.emit(events.keyIssued, {
      entityId: key.keyId,
      payload: { keyId: key.keyId, tier, agentId, ...(keyLabel === null ? {} : { label: keyLabel }) },
    });
    return {};
  });
  if (!out) throw new Error('key was not issued');
  return out;
}

/** Revoke a key (CLI `key revoke`); event `org` / `key.revoked`. Revoking twice is a no-op. */
export async function revokeOrgKey(db: Database, slug: string, keyId: string): Promise<{ revoked: boolean }> {
  const org = await orgBySlug(db.reader, slug);
  const result = await inUnitOfWork(db, org.id, '', async (uow) => {
    const row = await uow.tx.get<{ revoked_at: string | null }>('SELECT revoked_at FROM credentials WHERE id = ? AND org_id = ?', [
      keyId,
      org.id,
    ]);
    if (!row) throw notFound('key', keyId);
    if (row.revoked_at !== null) return { noop: true };
    await uow.tx.run('UPDATE credentials SET revoked_at = ? WHERE id = ?', [uow.now, keyId]);
    await uow.emit(events.keyRevoked, { entityId: keyId, payload: { keyId } });
    return {};
  });
  return { revoked: !('noop' in result && result.noop === true) };
}
