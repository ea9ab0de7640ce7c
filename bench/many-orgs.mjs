// Seeding many organisations fast, for the many-orgs scenario (bench/scenarios/many-orgs.mjs) and
// its test: organisations made with the compiled server's own functions, their chains appended in
// bulk and chained with the ledger's own `chainEvent`, so `finance-desk verify` passes over them.
//
// Plain ESM, loading only the compiled packages (dist), as run.mjs does.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The slugs: `many-<i>` for the organisations of `events` events, `large-<i>` for the large ones. */
export const smallSlug = (i) => `many-${i}`;
export const largeSlug = (i) => `large-${i}`;

/** Parameters per multi-row INSERT (PostgreSQL takes at most 65 535). */
const PARAMS_MAX = 30_000;
/** Events per insertEvents call for the large organisations. */
const EVENT_CHUNK = 5_000;
const PLAIN_INSERT = /^\s*(INSERT\s+INTO\s+\w+\s*\([^()]*\)\s*VALUES)\s*(\((?:\s*\?\s*,)*\s*\?\s*\))\s*$/i;

/**
 * A transaction whose single-row `INSERT … VALUES (?, …)` statements are held back and sent as
 * multi-row INSERTs, in the order their texts first appeared (parents before children, as the
 * code that issued them wrote them); any other statement sends what is held first. So the
 * server's own row writers (seedChart, issueKey) run unchanged, at a fraction of the round trips.
 */
function batching(tx) {
  const held = new Map();
  const flush = async () => {
    for (const [head, entry] of held) {
      const perRow = entry.rows[0]?.length ?? 1;
      const per = Math.max(1, Math.floor(PARAMS_MAX / perRow));
      for (let at = 0; at < entry.rows.length; at += per) {
        const rows = entry.rows.slice(at, at + per);
        await tx.run(`${head} ${rows.map(() => entry.row).join(', ')}`, rows.flat());
      }
    }
    held.clear();
  };
  return {
    async run(sql, params = []) {
      const m = PLAIN_INSERT.exec(sql);
      if (!m) {
        await flush();
        return tx.run(sql, params);
      }
      const entry = held.get(m[1]) ?? { row: m[2], rows: [] };
      held.set(m[1], entry);
      entry.rows.push(params);
      return { changes: 1 };
    },
    async get(sql, params) {
      await flush();
      return tx.get(sql, params);
    },
    async all(sql, params) {
      await flush();
      return tx.all(sql, params);
    },
    flush,
  };
}

async function serverModules(root) {
  const dist = (p) => import(pathToFileURL(join(root, 'packages/server/dist', p)).href);
  const [open, schema, orgs, passwords, credentials, chart, policy, append, clock, ids, P] = await Promise.all([
    dist('storage/open.js'),
    dist('schema.js'),
    dist('org/orgs.js'),
    dist('org/passwords.js'),
    dist('org/credentials.js'),
    dist('domain/gl/chart.js'),
    dist('governance/policy.js'),
    dist('ledger/append.js'),
    dist('clock.js'),
    dist('ids.js'),
    import(pathToFileURL(join(root, 'packages/protocol/dist/index.js')).href),
  ]);
  return { open, schema, orgs, passwords, credentials, chart, policy, append, clock, ids, P };
}

/** The payload of bench event `i`: an invoice draft as the write path records it (schema-checked below). */
const draftPayload = (i) => ({
  payee: 'Bench Pty Ltd',
  description: 'Consulting',
  totalCents: 10_000 + (i % 9_973),
  dueDays: 14,
  contactId: 'con_bench',
  number: `INV-${i + 1}`,
});

/** Chain `count` invoice-draft events onto `head` (advanced in place) by the organisation's agent key. */
function chainDrafts(M, head, actor, from, count) {
  const out = new Array(count);
  for (let k = 0; k < count; k += 1) {
    const i = from + k;
    out[k] = M.append.chainEvent(head, actor, M.P.events.invoiceDraft, { entityId: `inv_bench_${i}`, payload: draftPayload(i) });
  }
  return out;
}

/**
 * The rows `createOrg` (org/orgs.ts) writes for an organisation, through the same writers
 * (seedChart, issueKey, chainEvent), with the owner's password hash given: scrypt per owner is
 * what made `createOrg` cost 60 ms an organisation, and a benchmark owner never signs in. The
 * organisation's chain is its `org.created` event and then `events - 1` invoice drafts. The seeder
 * compares every table's rows for one of these with an organisation `createOrg` made (sameShape).
 */
async function bulkOrg(M, b, caps, { slug, name, events, passwordHash, now }) {
  const orgId = M.ids.newId('org');
  const userId = M.ids.newId('usr');
  await b.run('INSERT INTO organisations (id, slug, name, time_zone, created_at) VALUES (?, ?, ?, ?, ?)', [
    orgId,
    slug,
    name,
    M.clock.DEFAULT_TIME_ZONE,
    now,
  ]);
  await b.run('INSERT INTO users (id, org_id, email, role, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
    userId,
    orgId,
    `owner@${slug}.example`,
    'owner',
    passwordHash,
    now,
  ]);
  await b.run('INSERT INTO policies (org_id, body, updated_at) VALUES (?, ?, ?)', [
    orgId,
    M.P.canonicalJson(M.policy.defaultPolicy([userId])),
    now,
  ]);
  await M.chart.seedChart(b, orgId, now);
  const keys = [];
  for (const tier of ['observer', 'reader', 'agent']) {
    keys.push(await M.credentials.issueKey(b, orgId, tier, null, now, M.orgs.setupKeyLabel(tier)));
  }
  const head = { seq: 0, rowHash: '' };
  const created = M.append.chainEvent(head, '', M.P.events.orgCreated, {
    entityId: orgId,
    payload: {
      name,
      slug,
      timeZone: M.clock.DEFAULT_TIME_ZONE,
      ownerUserId: userId,
      keyIds: keys.map((k) => k.keyId),
      decisionRights: true,
    },
  });
  const agent = keys.find((k) => k.tier === 'agent');
  return { orgId, slug, agent: agent.key, agentKeyId: agent.keyId, head, first: created, rest: events - 1 };
}

/** Write the organisation's chain (its first event, then `rest` drafts) and its head row. */
async function writeChain(M, tx, caps, o) {
  await M.append.insertEvents(tx, caps, o.orgId, [o.first]);
  for (let done = 0; done < o.rest; done += EVENT_CHUNK) {
    const n = Math.min(EVENT_CHUNK, o.rest - done);
    await M.append.insertEvents(tx, caps, o.orgId, chainDrafts(M, o.head, o.agentKeyId, done, n));
  }
  await tx.run('INSERT INTO org_heads (org_id, seq, row_hash) VALUES (?, ?, ?)', [o.orgId, o.head.seq, o.head.rowHash]);
}

/** Tables with an org_id column, and how many rows each holds for `orgId`. */
async function rowCounts(db, orgId) {
  const tables =
    db.caps.engine === 'postgres'
      ? await db.reader.all(
          "SELECT table_name AS name FROM information_schema.columns WHERE column_name = 'org_id' AND table_schema = current_schema() ORDER BY table_name",
        )
      : await db.reader.all(
          "SELECT m.name AS name FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'org_id' ORDER BY m.name",
        );
  const out = {};
  for (const { name } of tables) {
    const r = await db.reader.get(`SELECT COUNT(*) AS n FROM ${name} WHERE org_id = ?`, [orgId]);
    if (Number(r.n) > 0) out[name] = Number(r.n);
  }
  return out;
}

/**
 * Seed `orgs` organisations of `events` events each and `largeOrgs` of `largeEvents` each into the
 * database at `databaseUrl` (migrated first). Organisation 0 is made by `createOrg` itself, and its
 * rows, table by table, must match a bulk one's (events apart), so the bulk path cannot drift from
 * what `org create` writes unnoticed. Returns every organisation's slug, id and agent key, in order
 * (the small ones, then the large ones), and the seconds it took.
 */
export async function seedManyOrgs(root, databaseUrl, { orgs, events, largeOrgs, largeEvents, orgsPerTransaction = 250, log = () => {} }) {
  if (orgs < 2 || events < 1 || largeOrgs < 0 || largeEvents < 1)
    throw new Error('seedManyOrgs: at least 2 organisations and 1 event each');
  const M = await serverModules(root);
  const probe = M.P.events.invoiceDraft.payload.safeParse(draftPayload(0));
  if (!probe.success) throw new Error(`the seeded invoice-draft payload no longer fits its schema: ${probe.error.message}`);
  const db = M.open.openDatabase(databaseUrl, { migrations: M.schema.migrations });
  const started = performance.now();
  try {
    await db.migrate();
    const out = [];
    // Organisation 0: `org create`'s own function, then its drafts appended after its head.
    const template = await M.orgs.createOrg(db, { name: 'Many 0', slug: smallSlug(0), decisionRights: true });
    await db.write(async (tx) => {
      const row = await tx.get(`SELECT seq, row_hash FROM org_heads WHERE org_id = ?${db.caps.forUpdate}`, [template.orgId]);
      const head = { seq: Number(row.seq), rowHash: row.row_hash };
      const from = { ...head };
      await M.append.insertEvents(tx, db.caps, template.orgId, chainDrafts(M, head, template.keyIds.agent, 0, events - 1));
      await M.append.moveHead(tx, template.orgId, from, head);
    });
    out.push({ slug: template.slug, orgId: template.orgId, agent: template.keys.agent });
    const passwordHash = await M.passwords.hashPassword(M.passwords.generatePassword());
    const specs = [
      ...Array.from({ length: orgs - 1 }, (_, i) => ({ slug: smallSlug(i + 1), name: `Many ${i + 1}`, events })),
      ...Array.from({ length: largeOrgs }, (_, i) => ({ slug: largeSlug(i), name: `Large ${i}`, events: largeEvents })),
    ];
    let lastLog = performance.now();
    for (let at = 0; at < specs.length;) {
      // A large organisation gets a transaction of its own; small ones go orgsPerTransaction at a time.
      const take = specs[at].events > events ? 1 : Math.min(orgsPerTransaction, specs.length - at);
      const batch = specs.slice(at, at + take);
      const now = M.clock.nowIso();
      const made = await db.write(async (tx) => {
        const b = batching(tx);
        const list = [];
        for (const spec of batch) list.push(await bulkOrg(M, b, db.caps, { ...spec, passwordHash, now }));
        await b.flush();
        for (const o of list) await writeChain(M, tx, db.caps, o);
        return list;
      });
      for (const o of made) out.push({ slug: o.slug, orgId: o.orgId, agent: o.agent });
      at += take;
      if (performance.now() - lastLog > 10_000) {
        lastLog = performance.now();
        log(`many-orgs: seeded ${at + 1} of ${specs.length + 1} organisations (${((performance.now() - started) / 1000).toFixed(0)} s)`);
      }
    }
    // The bulk rows must be createOrg's, table by table (the chain's length apart).
    const want = await rowCounts(db, template.orgId);
    const got = await rowCounts(db, out[1].orgId);
    const shape = (c) => JSON.stringify(c);
    if (shape(want) !== shape(got)) throw new Error(`bulk organisations differ from createOrg's: ${shape(got)} against ${shape(want)}`);
    if (db.caps.engine === 'postgres') await db.reader.run('ANALYZE');
    const total = await db.reader.get('SELECT COUNT(*) AS n FROM events');
    return { orgs: out, seconds: (performance.now() - started) / 1000, totalEvents: Number(total.n) };
  } finally {
    await db.close();
  }
}

/**
 * Verify every organisation's chain in-process with the function `finance-desk verify` runs
 * (ledger/verify.ts verifyStoredChain), `parallel` at a time; the verdicts by slug.
 */
export async function verifyAll(root, databaseUrl, orgs, { parallel = 4 } = {}) {
  const M = await serverModules(root);
  const { verifyStoredChain } = await import(pathToFileURL(join(root, 'packages/server/dist/ledger/verify.js')).href);
  const db = M.open.openDatabase(databaseUrl, { migrations: M.schema.migrations, poolSize: parallel + 1 });
  try {
    const verdicts = new Array(orgs.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < orgs.length) {
          const i = next++;
          verdicts[i] = await verifyStoredChain(db, orgs[i].orgId);
        }
      }),
    );
    return verdicts;
  } finally {
    await db.close();
  }
}
