import pg from 'pg';
import { backfillSteps, type Migration } from './migration-types.js';
import { schemaKey, schemaProblems, unknownMigrations, type SchemaObject } from './schema-check.js';

/** `?` placeholders to `$n` (migration SQL never quotes a `?`). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * Apply the ones of `migrations` that `include` selects and are not recorded yet, in order, recording each in
 * schema_migrations, in the caller's transaction and in the first schema of its search_path. The
 * start and the schema check's reference both run this, so the reference is exactly what a start creates.
 */
export async function applyPgMigrations(
  client: pg.ClientBase,
  migrations: readonly Migration[],
  include: (id: number) => boolean,
): Promise<void> {
  await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (id BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const done = new Set((await client.query<{ id: number }>('SELECT id FROM schema_migrations')).rows.map((r) => Number(r.id)));
  for (const m of migrations) {
    if (done.has(m.id) || !include(m.id)) continue;
    for (const sql of m.statements) await client.query(sql);
    for (const step of backfillSteps(m)) {
      const rows = (await client.query<Record<string, unknown>>(step.select)).rows;
      for (const row of rows) await client.query(numbered(step.update), [...step.params(row)]);
    }
    await client.query('INSERT INTO schema_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [
      m.id,
      m.name,
      new Date().toISOString(),
    ]);
  }
}

/** Is the current schema empty (no relation, function, type or operator): one this start creates? */
export const EMPTY_SCHEMA_SQL = `WITH ns AS (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
SELECT NOT EXISTS (SELECT 1 FROM pg_class c JOIN ns ON c.relnamespace = ns.oid)
   AND NOT EXISTS (SELECT 1 FROM pg_proc f JOIN ns ON f.pronamespace = ns.oid)
   AND NOT EXISTS (SELECT 1 FROM pg_type y JOIN ns ON y.typnamespace = ns.oid)
   AND NOT EXISTS (SELECT 1 FROM pg_operator o JOIN ns ON o.oprnamespace = ns.oid) AS empty, current_schema() AS schema`;

/** A qualified relation in a definition (`ON schema.table`): the schema is where, not what. */
const UNQUALIFIED = String.raw`' ON (ONLY )?\S+\.', ' ON \1'`;

/**
 * Every object of one schema that can change what a statement does, one row each: tables (and
 * views, sequences, …) with persistence and row security; columns with type, NOT NULL, default,
 * collation, generation; constraints; indexes; triggers (the internal ones of foreign keys too,
 * by their constraint, with whether they are enabled); rules; policies; and functions, operators
 * and types declared in it. `ns` is the schema's oid as SQL. The reference's tables are temporary
 * ones standing for permanent ones, so a temporary relation counts as permanent.
 */
function fingerprintSql(ns: string): string {
  return `WITH ns AS (SELECT ${ns} AS oid),
rels AS (
  SELECT c.oid, c.relname, c.relkind, c.relpersistence, c.relrowsecurity, c.relforcerowsecurity, c.reloptions
  FROM pg_class c JOIN ns ON c.relnamespace = ns.oid
  WHERE c.relkind NOT IN ('i', 'I')
)
SELECT CASE r.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view'
         WHEN 'S' THEN 'sequence' WHEN 'f' THEN 'foreign table' WHEN 'c' THEN 'type' ELSE 'relation' END AS kind,
       r.relname AS name, '' AS on,
       concat_ws(' ', r.relkind::text, CASE WHEN r.relpersistence = 't' THEN 'p' ELSE r.relpersistence::text END,
         CASE WHEN r.relrowsecurity THEN 'row security' END, CASE WHEN r.relforcerowsecurity THEN 'forced' END,
         r.reloptions::text, CASE WHEN r.relkind IN ('v', 'm') THEN pg_get_viewdef(r.oid) END) AS def
FROM rels r
UNION ALL
SELECT 'column', a.attname, r.relname,
       concat_ws(' ', format_type(a.atttypid, a.atttypmod), CASE WHEN a.attnotnull THEN 'not null' END,
         'default ' || pg_get_expr(d.adbin, d.adrelid),
         CASE WHEN a.attcollation <> t.typcollation THEN 'collate ' || a.attcollation::regcollation::text END,
         CASE WHEN a.attgenerated <> '' THEN 'generated ' || a.attgenerated::text END,
         CASE WHEN a.attidentity <> '' THEN 'identity ' || a.attidentity::text END)
FROM rels r JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
UNION ALL
SELECT 'constraint', k.conname, r.relname, concat_ws(' ', pg_get_constraintdef(k.oid), CASE WHEN NOT k.convalidated THEN 'not valid' END)
FROM rels r JOIN pg_constraint k ON k.conrelid = r.oid
UNION ALL
SELECT 'index', i.relname, r.relname, regexp_replace(pg_get_indexdef(x.indexrelid), ${UNQUALIFIED})
FROM rels r JOIN pg_index x ON x.indrelid = r.oid JOIN pg_class i ON i.oid = x.indexrelid
UNION ALL
SELECT 'trigger',
       CASE WHEN g.tgisinternal THEN coalesce(k.conname, g.tgname) || ' (' || f.proname || ')' ELSE g.tgname END,
       r.relname,
       concat_ws(' ', CASE WHEN g.tgisinternal THEN g.tgtype::text ELSE regexp_replace(pg_get_triggerdef(g.oid), ${UNQUALIFIED}) END,
         'enabled ' || g.tgenabled::text)
FROM rels r JOIN pg_trigger g ON g.tgrelid = r.oid JOIN pg_proc f ON f.oid = g.tgfoid
LEFT JOIN pg_constraint k ON k.oid = g.tgconstraint
UNION ALL
SELECT 'rule', w.rulename, r.relname, concat_ws(' ', pg_get_ruledef(w.oid), 'enabled ' || w.ev_enabled::text)
FROM rels r JOIN pg_rewrite w ON w.ev_class = r.oid
WHERE NOT (w.rulename = '_RETURN' AND r.relkind IN ('v', 'm'))
UNION ALL
SELECT 'policy', p.polname, r.relname,
       concat_ws(' ', p.polcmd::text, p.polpermissive::text, p.polroles::regrole[]::text,
         pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid))
FROM rels r JOIN pg_policy p ON p.polrelid = r.oid
UNION ALL
SELECT CASE f.prokind WHEN 'p' THEN 'procedure' WHEN 'a' THEN 'aggregate' ELSE 'function' END,
       f.proname || '(' || pg_get_function_identity_arguments(f.oid) || ')', '', md5(coalesce(f.prosrc, ''))
FROM pg_proc f JOIN ns ON f.pronamespace = ns.oid
UNION ALL
SELECT 'operator', o.oprname || '(' || o.oprleft::regtype::text || ', ' || o.oprright::regtype::text || ')', '', o.oprcode::text
FROM pg_operator o JOIN ns ON o.oprnamespace = ns.oid
UNION ALL
SELECT 'type', y.typname, '', y.typtype::text
FROM pg_type y JOIN ns ON y.typnamespace = ns.oid
WHERE y.typtype IN ('b', 'd', 'e', 'r', 'm') AND y.typcategory <> 'A'`;
}

const CURRENT_SCHEMA_SQL = fingerprintSql('(SELECT oid FROM pg_namespace WHERE nspname = current_schema())');
const TEMP_SCHEMA_SQL = fingerprintSql('pg_my_temp_schema()');

async function fingerprint(client: pg.ClientBase, sql: string): Promise<Map<string, SchemaObject>> {
  const rows = (await client.query<SchemaObject>(sql)).rows;
  const out = new Map<string, SchemaObject>();
  for (const r of rows) {
    const object = { kind: r.kind, name: r.name, on: r.on, def: r.def ?? '' };
    out.set(schemaKey(object), object);
  }
  return out;
}

/**
 * What `migrations` create, on this server (catalogue text can differ between PostgreSQL
 * versions, so it is built on the server compared against, once per process, list and database): on a
 * connection of its own, every migration is run into the session's temporary schema (TEMP is
 * granted to every role, no CREATE on the database is needed) in a transaction that is rolled
 * back, so nothing of it outlives the reading and no other session ever sees it.
 */
const references = new WeakMap<readonly Migration[], Map<string, Promise<Map<string, SchemaObject>>>>();

export function pgReference(url: string, migrations: readonly Migration[]): Promise<Map<string, SchemaObject>> {
  let ofList = references.get(migrations);
  if (!ofList) {
    ofList = new Map();
    references.set(migrations, ofList);
  }
  const built = ofList;
  let reference = built.get(url);
  if (!reference) {
    reference = buildReference(url, migrations);
    built.set(url, reference);
    // A failed build (the server went away) is tried again by the next start.
    reference.catch(() => built.delete(url));
  }
  return reference;
}

async function buildReference(url: string, migrations: readonly Migration[]): Promise<Map<string, SchemaObject>> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('BEGIN');
    try {
      await client.query('SET LOCAL search_path TO pg_temp');
      await applyPgMigrations(client, migrations, () => true);
      return await fingerprint(client, TEMP_SCHEMA_SQL);
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
    }
  } catch (error) {
    const e = error as { code?: string; message?: string };
    // The code is kept: a connection failure is still named as DATABASE_URL's (storage/open.ts).
    throw Object.assign(
      new Error(`schema check: cannot build the migrations' schema in a temporary schema: ${e.message ?? String(error)}`),
      { code: e.code },
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * How the current schema differs from what every one of `migrations` creates (`reference`; empty:
 * it is exactly that), and migrations it records that the list does not hold. One catalogue
 * query, on the caller's connection and in its transaction: the caller holds the migration lock.
 */
export async function pgSchemaProblems(
  client: pg.ClientBase,
  migrations: readonly Migration[],
  reference: Map<string, SchemaObject>,
): Promise<string[]> {
  const applied = (await client.query<{ id: number }>('SELECT id FROM schema_migrations')).rows.map((r) => Number(r.id));
  const known = new Set(migrations.map((m) => m.id));
  return [
    ...unknownMigrations(applied.filter((id) => !known.has(id))),
    ...schemaProblems(reference, await fingerprint(client, CURRENT_SCHEMA_SQL)),
  ];
}
