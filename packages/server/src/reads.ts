import { artifactReads, artifactsIndex, limits, readSpecs, type Tier, type UserRole } from '@finance-desk/protocol';
import { artifactsIndexBody, servedArtifact } from './artifacts.js';
import { bindRead, type ReadBinding } from './binding.js';
import { outboxCounts } from './adapters/outbox.js';
import * as boardDomain from './domain/board/board.js';
import { notFound } from './errors.js';
import { listDecisions, waitForApproval } from './governance/approvals.js';
import { loadPolicy } from './governance/policy.js';
import { eventsPageJson, headOf } from './ledger/read.js';
import { RawJson } from './raw-json.js';
import { listContacts } from './domain/contacts/contacts-read.js';
import { meetingsList } from './calendar/meetings.js';
import { hierarchy } from './org/hierarchy.js';
import { orgAgents, orgKeys, orgMembers } from './org/org-reads.js';
import { loadProfile } from './org/profile.js';
import { costRollup } from './domain/ask/cost-rollup.js';
import { fileWithContent, listFiles } from './ops/files.js';
import { clockOf } from './clock.js';

export const readHandlers: readonly ReadBinding[] = [
  bindRead(readSpecs.events, async (q, { db, principal }) => {
    const page = await eventsPageJson(db.reader, principal.orgId, q.cursor, q.limit);
    return new RawJson(`{"events":[${page.rows.join(',')}],"nextCursor":${page.lastSeq ?? q.cursor}}`);
  }),
  bindRead(readSpecs.snapshot, async (_q, { db, principal }) => {
    const head = (await headOf(db.reader, principal.orgId)) ?? { seq: 0, rowHash: '' };
    return { orgId: principal.orgId, head };
  }),
  bindRead(readSpecs.boardReady, async (q, { db, principal }) => boardDomain.ready(db.reader, principal.orgId, q.limit)),
  bindRead(
    readSpecs.boardContext,
    async (q, { db, principal }) => new RawJson(await boardDomain.context(db.reader, principal.orgId, q.id)),
  ),
  bindRead(readSpecs.whoami, (q, { principal }) => {
    // Another organisation's slug is NOT_FOUND; existence does not leak.
    if (q.slug !== principal.orgSlug) return Promise.reject(notFound('organisation', q.slug));
    const base = {
      keyId: principal.credentialId,
      tier: principal.tier,
      scopes: principal.scopes,
      orgId: principal.orgId,
      slug: principal.orgSlug,
    };
    // A paired agent's record: its id, name, pairing time, its key's tier.
    return Promise.resolve(
      principal.agent
        ? { kind: 'agent' as const, agentId: principal.agent.id, name: principal.agent.name, pairedAt: principal.agent.pairedAt, ...base }
        : { kind: 'key' as const, ...base },
    );
  }),
  bindRead(readSpecs.approvalWait, async (q, { db, principal, signal }) =>
    waitForApproval(db, principal.orgId, q.approvalId, q.timeoutMs, signal),
  ),
  bindRead(readSpecs.decisionList, async (q, { db, principal }) => listDecisions(db.reader, principal.orgId, q, clockOf(db)())),
  bindRead(readSpecs.policy, async (_q, { db, principal }) => ({
    orgId: principal.orgId,
    ...(await loadPolicy(db.reader, principal.orgId)),
  })),
  bindRead(readSpecs.directory, async (_q, { db, principal }) => {
    const org = principal.orgId;
    const max = limits.directoryRowsMax;
    // The newest `max` rows of each list (one more to learn whether any was cut), answered oldest first.
    const newest = <T>(columns: string, table: string) =>
      db.reader
        .all<T>(`SELECT ${columns} FROM ${table} WHERE org_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`, [org, max + 1])
        .then((rows) => rows.slice(0, max).reverse());
    const [people, agents, keys, counts] = await Promise.all([
      newest<{ id: string; email: string; role: UserRole; created_at: string }>('id, email, role, created_at', 'users'),
      newest<{ id: string; name: string; created_at: string }>('id, name, created_at', 'agents'),
      newest<{ id: string; tier: Tier; agent_id: string | null; created_at: string; revoked_at: string | null }>(
        'id, tier, agent_id, created_at, revoked_at',
        'credentials',
      ),
      db.reader.get<{ users: unknown; agents: unknown; keys: unknown }>(
        `SELECT (SELECT COUNT(*) FROM users WHERE org_id = ?) AS users, (SELECT COUNT(*) FROM agents WHERE org_id = ?) AS agents,
                (SELECT COUNT(*) FROM credentials WHERE org_id = ?) AS keys`,
        [org, org, org],
      ),
    ]);
    const truncated = [counts?.users, counts?.agents, counts?.keys].some((n) => Number(n) > max);
    return {
      orgId: org,
      people: people.map((p) => ({ userId: p.id, email: p.email, role: p.role, createdAt: p.created_at })),
      agents: agents.map((a) => ({ agentId: a.id, name: a.name, createdAt: a.created_at })),
      keys: keys.map((k) => ({ keyId: k.id, tier: k.tier, agentId: k.agent_id, createdAt: k.created_at, revokedAt: k.revoked_at })),
      truncated,
    };
  }),
  bindRead(readSpecs.ops, async (_q, { db, principal }) => {
    const org = principal.orgId;
    const now = new Date().toISOString();
    const count = async (sql: string, args: (string | number)[]) => Number((await db.reader.get<{ n: number }>(sql, args))?.n ?? 0);
    const head = (await headOf(db.reader, org)) ?? { seq: 0, rowHash: '' };
    return {
      orgId: org,
      head,
      pendingApprovals: await count("SELECT COUNT(*) AS n FROM approvals WHERE org_id = ? AND status = 'pending' AND expires_at >= ?", [
        org,
        now,
      ]),
      openHolds: await count('SELECT COUNT(*) AS n FROM holds WHERE org_id = ? AND released_at IS NULL', [org]),
      outbox: await outboxCounts(db.reader, org),
    };
  }),
  // Customers and suppliers with their balances.
  bindRead(readSpecs.contactsList, listContacts),
  // People, agents and decision rights (org/hierarchy.ts).
  bindRead(readSpecs.hierarchy, async (_q, { db, principal }) => hierarchy(db.reader, principal.orgId)),
  // The desk's calendar (calendar/meetings.ts).
  bindRead(readSpecs.meetingsList, async (q, { db, principal }) => meetingsList(db, principal.orgId, q)),
  // AI gateway spend (domain/ask/cost-rollup.ts).
  bindRead(readSpecs.costRollup, costRollup),
  bindRead(readSpecs.orgSelf, async (_q, { db, principal }) => {
    const org = await db.reader.get<{ id: string; slug: string; name: string; created_at: string }>(
      'SELECT id, slug, name, created_at FROM organisations WHERE id = ?',
      [principal.orgId],
    );
    if (!org) throw notFound('organisation', principal.orgSlug);
    return { orgId: org.id, slug: org.slug, name: org.name, createdAt: org.created_at };
  }),
  // The /api/v1/org/* DTO reads (org/org-reads.ts, org/profile.ts).
  bindRead(readSpecs.orgProfile, async (_q, { db, principal }) => loadProfile(db.reader, principal.orgId)),
  bindRead(readSpecs.orgMembers, async (q, { db, principal }) => orgMembers(db.reader, principal.orgId, q)),
  bindRead(readSpecs.orgAgents, async (q, { db, principal }) => orgAgents(db.reader, principal.orgId, q)),
  bindRead(readSpecs.orgKeys, async (q, { db, principal }) => orgKeys(db.reader, principal.orgId, q)),
  // Payment and lodgement files with their SHA-256 (ops/files.ts).
  bindRead(readSpecs.booksFiles, async (q, { db, principal }) => listFiles(db.reader, principal.orgId, q)),
  bindRead(readSpecs.booksFile, async (q, { db, principal }) => fileWithContent(db.reader, principal.orgId, q.id)),
  // The API described from its declarations (artifacts.ts); one read per artifact.
  bindRead(artifactsIndex, (_q, { db, principal }) => Promise.resolve(new RawJson(artifactsIndexBody(db, principal.orgId)))),
  ...artifactReads.map(({ file, spec }) => bindRead(spec, () => Promise.resolve(new RawJson(servedArtifact(file).text)))),
];
