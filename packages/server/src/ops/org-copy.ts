/**
 * `finance-desk copy`: organisations moved from one database to another, any engine to any
 * (docs/operations.md, "Moving organisations between databases"). An organisation never spans two
 * databases, and every table of its books is keyed by org_id, so an organisation is exactly the
 * rows carrying its id, plus the rows of shared tables its rows point at.
 *
 * The tables are read from each database's own catalogue, not from a list here that could go
 * stale: every table with an org_id column is copied whole for the organisation. A table without
 * one must be named below (the installation's own, or one the organisation's rows reference), or
 * the copy refuses to start: a new shared table is a decision, not something to skip in silence.
 *
 * The source is read in one snapshot (a running server may keep writing; the copy is as of one
 * instant) and the target written in one transaction, page by page in key order, tables in an
 * order that satisfies their foreign keys. Before it commits, each organisation's chain is
 * verified on the target and every table's row count compared with the source snapshot's; any
 * difference rolls the whole copy back. The source is only read.
 */
import { verifyStoredChain } from '../ledger/verify.js';
import type { Database, Queryable, SqlValue, Tx } from '../storage/types.js';

/** A copy that must not start or did not check out: one line naming why; nothing was committed. */
export class CopyRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CopyRefused';
  }
}

/**
 * Tables without org_id that belong to the installation, not to any organisation: never copied.
 * The target keeps its own (a second signing key would make the target's tokens unreadable).
 */
export const INSTALLATION_TABLES: Readonly<Record<string, string>> = {
  schema_migrations: 'which migrations this database has applied',
  server_secrets: "the installation's secrets (the signature-token signing key): the target keeps its own",
  login_attempts: 'sign-in throttling by address and email, kept per installation and short-lived',
};

/**
 * Tables without org_id whose rows an organisation's rows point at: the rows referenced are
 * copied (when the target does not hold them already). OAuth clients register before any
 * organisation is chosen; an organisation's grants name the client they were made for.
 */
export const REFERENCED_TABLES: Readonly<Record<string, { readonly from: string; readonly column: string; readonly key: string }>> = {
  oauth_clients: { from: 'oauth_grants', column: 'client_id', key: 'client_id' },
};

/** The table that is the organisation itself: keyed by id, not org_id. */
const ORGANISATIONS = 'organisations';

/** Rows read and written per statement at most; fewer when a table is wide (PARAMS_MAX). */
const PAGE_ROWS = 500;

export interface CopyOptions {
  /** Rows per page (default PAGE_ROWS): tests page a small organisation through many pages. */
  readonly pageRows?: number;
}
/** Parameters per INSERT at most: below SQLite's 32 766 and PostgreSQL's 65 535. */
const PARAMS_MAX = 30_000;

interface TableInfo {
  readonly name: string;
  /** In the table's own column order. */
  readonly columns: readonly string[];
  /** Primary key columns in key order. */
  readonly key: readonly string[];
  /** Tables its foreign keys reference. */
  readonly references: readonly string[];
}

/** How one table's rows are chosen for an organisation. */
type Selection =
  | { readonly kind: 'org'; readonly column: 'org_id' | 'id' }
  | { readonly kind: 'referenced'; readonly from: string; readonly column: string; readonly key: string };

interface PlannedTable extends TableInfo {
  readonly selection: Selection;
}

export interface CopiedOrganisation {
  readonly slug: string;
  readonly orgId: string;
  readonly events: number;
  readonly head: { readonly seq: number; readonly rowHash: string };
  readonly rows: number;
  /** Messages queued and not yet delivered at the snapshot: now in both databases (docs: cut-over). */
  readonly outboxQueued: number;
}

export interface CopyReport {
  readonly organisations: readonly CopiedOrganisation[];
  /** Rows copied per table, every organisation together; tables with none are left out. */
  readonly tables: Readonly<Record<string, number>>;
  readonly rows: number;
  readonly seconds: number;
  readonly rowsPerSecond: number;
}

function ident(name: string): string {
  // Catalogue names of this schema are plain lower-case identifiers; anything else is refused
  // rather than quoted, so no name read from a database can change a statement.
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new CopyRefused(`table or column ${JSON.stringify(name)} is not a plain identifier`);
  return name;
}

/** Every table of the database's current schema, from its own catalogue. */
export async function catalogueOf(q: Queryable, engine: 'sqlite' | 'postgres'): Promise<Map<string, TableInfo>> {
  const out = new Map<string, TableInfo>();
  if (engine === 'sqlite') {
    const tables = await q.all<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    );
    for (const { name } of tables) {
      const cols = await q.all<{ name: string; pk: number }>('SELECT name, pk FROM pragma_table_info(?) ORDER BY cid', [name]);
      const refs = await q.all<{ table: string }>('SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)', [name]);
      out.set(name, {
        name,
        columns: cols.map((c) => c.name),
        key: cols
          .filter((c) => Number(c.pk) > 0)
          .sort((a, b) => Number(a.pk) - Number(b.pk))
          .map((c) => c.name),
        references: refs.map((r) => r.table).sort(),
      });
    }
    return out;
  }
  const ns = '(SELECT oid FROM pg_namespace WHERE nspname = current_schema())';
  const cols = await q.all<{ tbl: string; col: string }>(
    `SELECT c.relname AS tbl, a.attname AS col
     FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
     WHERE c.relnamespace = ${ns} AND c.relkind IN ('r', 'p')
     ORDER BY c.relname, a.attnum`,
  );
  const constraints = await q.all<{ tbl: string; kind: string; col: string; ref: string | null }>(
    `SELECT c.relname AS tbl, k.contype::text AS kind, a.attname AS col, f.relname AS ref
     FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
     CROSS JOIN LATERAL unnest(k.conkey) WITH ORDINALITY AS u(attnum, ord)
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = u.attnum
     LEFT JOIN pg_class f ON f.oid = k.confrelid
     WHERE c.relnamespace = ${ns} AND k.contype IN ('p', 'f')
     ORDER BY c.relname, k.contype, k.conname, u.ord`,
  );
  const building = new Map<string, { columns: string[]; key: string[]; references: Set<string> }>();
  for (const r of cols) {
    const t = building.get(r.tbl) ?? { columns: [], key: [], references: new Set<string>() };
    t.columns.push(r.col);
    building.set(r.tbl, t);
  }
  for (const r of constraints) {
    const t = building.get(r.tbl);
    if (!t) continue;
    if (r.kind === 'p') t.key.push(r.col);
    else if (r.ref !== null) t.references.add(r.ref);
  }
  for (const [name, t] of [...building].sort(([a], [b]) => (a < b ? -1 : 1))) {
    out.set(name, { name, columns: t.columns, key: t.key, references: [...t.references].sort() });
  }
  return out;
}

/**
 * What to copy and in which order: every table classified (refused otherwise), the target's
 * tables and columns the source's (both are migrated by this build; a difference is refused),
 * ordered so that a table comes after every table it references.
 */
function planOf(source: Map<string, TableInfo>, target: Map<string, TableInfo>): PlannedTable[] {
  const planned: PlannedTable[] = [];
  for (const t of source.values()) {
    if (t.name in INSTALLATION_TABLES) continue;
    let selection: Selection;
    if (t.name === ORGANISATIONS) selection = { kind: 'org', column: 'id' };
    else if (t.columns.includes('org_id')) selection = { kind: 'org', column: 'org_id' };
    else {
      const ref = REFERENCED_TABLES[t.name];
      if (!ref)
        throw new CopyRefused(
          `table ${t.name} has no org_id column and ops/org-copy.ts does not say whether it belongs to the installation or is referenced by an organisation's rows`,
        );
      selection = { kind: 'referenced', ...ref };
    }
    if (t.key.length === 0) throw new CopyRefused(`table ${t.name} has no primary key to page through it by`);
    const there = target.get(t.name);
    if (!there) throw new CopyRefused(`table ${t.name} is not in the target database (is it migrated by the same build?)`);
    const missing = t.columns.filter((c) => !there.columns.includes(c));
    const extra = there.columns.filter((c) => !t.columns.includes(c));
    if (missing.length > 0 || extra.length > 0) {
      throw new CopyRefused(
        `table ${t.name} differs between source and target: ${[...missing.map((c) => `target lacks ${c}`), ...extra.map((c) => `source lacks ${c}`)].join(', ')}`,
      );
    }
    planned.push({ ...t, name: ident(t.name), columns: t.columns.map(ident), key: t.key.map(ident), selection });
  }
  for (const name of target.keys()) {
    if (!source.has(name) && !(name in INSTALLATION_TABLES)) throw new CopyRefused(`table ${name} is in the target but not the source`);
  }
  // Kahn's algorithm by name: a table once every table it references (within the copy) is placed.
  const byName = new Map(planned.map((t) => [t.name, t]));
  const ordered: PlannedTable[] = [];
  const placed = new Set<string>();
  while (ordered.length < planned.length) {
    const next = planned.find((t) => !placed.has(t.name) && t.references.every((r) => r === t.name || placed.has(r) || !byName.has(r)));
    if (!next) throw new CopyRefused('the foreign keys between tables form a cycle: no order to insert them in');
    ordered.push(next);
    placed.add(next.name);
  }
  return ordered;
}

/** A value as it is written on the other engine; anything but text, a safe integer or null is refused by name. */
function checked(value: unknown, table: string, column: string): SqlValue {
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  // A BIGINT past 2^53 would have lost digits on the way in; a blob or a float has no column in
  // this schema. Either is refused rather than written changed.
  throw new CopyRefused(`${table}.${column}: a value of a kind the copy does not carry exactly (${typeof value})`);
}

async function rowsOf(q: Queryable, sql: string, params: readonly SqlValue[]): Promise<unknown[][]> {
  if (q.values) return q.values(sql, params);
  return (await q.all<Record<string, unknown>>(sql, params)).map((r) => Object.values(r));
}

/** WHERE for one organisation's rows of `t`, with its parameters (before any key cursor). */
function scopeOf(t: PlannedTable, orgId: string): { where: string; params: SqlValue[] } {
  const s = t.selection;
  if (s.kind === 'org') return { where: `${s.column} = ?`, params: [orgId] };
  return {
    where: `${ident(s.key)} IN (SELECT ${ident(s.column)} FROM ${ident(s.from)} WHERE org_id = ?)`,
    params: [orgId],
  };
}

/**
 * Copy one organisation's rows of `t`: pages in key order (a row-value cursor past the last key,
 * never OFFSET), each page inserted while the next is read. Returns the rows written.
 */
async function copyTable(
  source: Queryable,
  target: Tx,
  t: PlannedTable,
  orgId: string,
  skip: (row: unknown[]) => boolean,
  pageMax: number,
): Promise<number> {
  const scope = scopeOf(t, orgId);
  // Within one organisation org_id is fixed: the cursor walks the rest of the key.
  const cursorCols = t.selection.kind === 'org' && t.selection.column === 'org_id' ? t.key.filter((k) => k !== 'org_id') : [...t.key];
  const cursorIdx = cursorCols.map((c) => t.columns.indexOf(c));
  const cols = t.columns.join(', ');
  const order = cursorCols.length > 0 ? ` ORDER BY ${cursorCols.join(', ')}` : '';
  const pageRows = Math.max(1, Math.min(pageMax, Math.floor(PARAMS_MAX / t.columns.length)));
  const after = cursorCols.length === 1 ? `${cursorCols[0]} > ?` : `(${cursorCols.join(', ')}) > (${cursorCols.map(() => '?').join(', ')})`;
  const first = `SELECT ${cols} FROM ${t.name} WHERE ${scope.where}${order} LIMIT ${pageRows}`;
  const more = `SELECT ${cols} FROM ${t.name} WHERE ${scope.where} AND ${after}${order} LIMIT ${pageRows}`;
  const rowSql = `(${t.columns.map(() => '?').join(', ')})`;
  const insertOf = (n: number) => `INSERT INTO ${t.name} (${cols}) VALUES ${Array.from({ length: n }, () => rowSql).join(', ')}`;
  const insert = async (rows: unknown[][]): Promise<void> => {
    const kept = rows.filter((r) => !skip(r));
    if (kept.length === 0) return;
    const params: SqlValue[] = [];
    for (const row of kept) row.forEach((v, i) => params.push(checked(v, t.name, t.columns[i] as string)));
    try {
      await target.run(insertOf(kept.length), params);
    } catch (error) {
      throw new CopyRefused(`writing ${t.name} on the target: ${firstLine(error)}`);
    }
    written += kept.length;
  };
  let written = 0;
  let page = await rowsOf(source, first, scope.params);
  for (;;) {
    const last = page[page.length - 1];
    const done = page.length < pageRows || cursorCols.length === 0 || last === undefined;
    const nextRead = done
      ? Promise.resolve([] as unknown[][])
      : rowsOf(source, more, [...scope.params, ...cursorIdx.map((i) => last[i] as SqlValue)]);
    // Reading the next page and writing this one overlap when the two are different servers.
    const [, next] = await Promise.all([insert(page), nextRead]);
    if (done) return written;
    page = next;
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n', 1)[0] ?? '').slice(0, 300);
}

async function countOf(q: Queryable, t: PlannedTable, orgId: string): Promise<number> {
  const scope = scopeOf(t, orgId);
  const row = await q.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${t.name} WHERE ${scope.where}`, scope.params);
  return Number(row?.n ?? 0);
}

/**
 * Copy the organisations with these slugs (none: every organisation of the source) from `source`
 * to `target`, both migrated. Refuses, writing nothing, when a slug is not in the source or an
 * organisation of that id or slug is already in the target.
 */
export async function copyOrganisations(
  source: Database,
  target: Database,
  slugs: readonly string[],
  options: CopyOptions = {},
): Promise<CopyReport> {
  const pageMax = options.pageRows ?? PAGE_ROWS;
  const started = performance.now();
  const targetTables = await target.read((q) => catalogueOf(q, target.caps.engine));
  const report = await source.read(async (src) => {
    const plan = planOf(await catalogueOf(src, source.caps.engine), targetTables);
    const all = await src.all<{ id: string; slug: string }>('SELECT id, slug FROM organisations ORDER BY slug');
    const unknown = slugs.filter((s) => !all.some((o) => o.slug === s));
    if (unknown.length > 0) throw new CopyRefused(`--org: no organisation ${unknown.join(', ')} in the source database`);
    const orgs = slugs.length === 0 ? all : all.filter((o) => slugs.includes(o.slug));
    if (orgs.length === 0) throw new CopyRefused('the source database holds no organisation');
    // The snapshot's own counts, to compare the target's with before committing.
    const expected = new Map<string, Map<string, number>>();
    for (const org of orgs) {
      const counts = new Map<string, number>();
      for (const t of plan) counts.set(t.name, await countOf(src, t, org.id));
      expected.set(org.id, counts);
    }
    return target.write(async (tx) => {
      const clash = await tx.all<{ id: string; slug: string }>(
        `SELECT id, slug FROM organisations WHERE id IN (${orgs.map(() => '?').join(', ')}) OR slug IN (${orgs.map(() => '?').join(', ')}) ORDER BY slug`,
        [...orgs.map((o) => o.id), ...orgs.map((o) => o.slug)],
      );
      if (clash.length > 0) {
        throw new CopyRefused(
          `the target already holds ${clash.map((c) => `organisation ${c.slug} (${c.id})`).join(', ')}; nothing was copied`,
        );
      }
      const tables: Record<string, number> = {};
      const copied: CopiedOrganisation[] = [];
      for (const org of orgs) {
        let rows = 0;
        const counts = expected.get(org.id) as Map<string, number>;
        for (const t of plan) {
          // A referenced row another organisation already brought over is there once, shared.
          const present = t.selection.kind === 'referenced' ? await presentKeys(src, tx, t, org.id) : null;
          const keyAt = present ? t.columns.indexOf(t.key[0] as string) : -1;
          const n = await copyTable(src, tx, t, org.id, present ? (row) => present.has(String(row[keyAt])) : () => false, pageMax);
          if (n > 0) tables[t.name] = (tables[t.name] ?? 0) + n;
          rows += n;
        }
        // Counted once every table is in: a referenced table's rows are found through another's.
        for (const t of plan) {
          const want = counts.get(t.name) ?? 0;
          const have = await countOf(tx, t, org.id);
          if (have !== want) {
            throw new CopyRefused(`${org.slug}: ${t.name} has ${have} rows on the target, the source snapshot ${want}; nothing was copied`);
          }
        }
        const verdict = await verifyStoredChain(tx, org.id);
        const sourceHead = await src.get<{ seq: number; row_hash: string }>('SELECT seq, row_hash FROM org_heads WHERE org_id = ?', [
          org.id,
        ]);
        if (!verdict.ok) {
          throw new CopyRefused(
            `${org.slug}: the chain on the target is broken at seq ${verdict.seq} (${verdict.reason}); nothing was copied`,
          );
        }
        if (verdict.head.seq !== Number(sourceHead?.seq ?? 0) || verdict.head.rowHash !== (sourceHead?.row_hash ?? '')) {
          throw new CopyRefused(
            `${org.slug}: the target's chain ends at seq ${verdict.head.seq}, the source's at ${sourceHead?.seq ?? 0}; nothing was copied`,
          );
        }
        const queued = await src.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM outbox WHERE org_id = ? AND delivered_at IS NULL', [
          org.id,
        ]);
        copied.push({
          slug: org.slug,
          orgId: org.id,
          events: verdict.rows,
          head: verdict.head,
          rows,
          outboxQueued: Number(queued?.n ?? 0),
        });
      }
      return { organisations: copied, tables };
    });
  });
  if (target.caps.engine === 'postgres') {
    // Tables filled in one go have no planner statistics until autovacuum comes round; the
    // first reads of a moved organisation should not be planned blind.
    for (const name of Object.keys(report.tables)) await target.reader.run(`ANALYZE ${ident(name)}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const rows = Object.values(report.tables).reduce((a, b) => a + b, 0);
  return { ...report, rows, seconds, rowsPerSecond: seconds > 0 ? Math.round(rows / seconds) : rows };
}

/** Keys of `t`'s rows this organisation references that the target already holds. */
async function presentKeys(source: Queryable, target: Queryable, t: PlannedTable, orgId: string): Promise<Set<string>> {
  if (t.selection.kind !== 'referenced') return new Set();
  const scope = scopeOf(t, orgId);
  const key = ident(t.selection.key);
  const wanted = (await source.all<{ k: string }>(`SELECT ${key} AS k FROM ${t.name} WHERE ${scope.where}`, scope.params)).map((r) =>
    String(r.k),
  );
  const present = new Set<string>();
  for (let i = 0; i < wanted.length; i += PAGE_ROWS) {
    const chunk = wanted.slice(i, i + PAGE_ROWS);
    const rows = await target.all<{ k: string }>(
      `SELECT ${key} AS k FROM ${t.name} WHERE ${key} IN (${chunk.map(() => '?').join(', ')})`,
      chunk,
    );
    for (const r of rows) present.add(String(r.k));
  }
  return present;
}
