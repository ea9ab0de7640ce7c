import { chart, tracking } from '@finance-desk/protocol';
import { badRequest, invariant } from '../../errors.js';
import type { Queryable, SqlValue } from '../../storage/types.js';
import type { LineTracking } from '../gl/post.js';
import { searchKey } from '../search-key.js';

/**
 * Tracking categories as lines and reports use them (books.trackingSet writes them, set.ts).
 * A category sits in slot 1 or 2, the column (tracking1, tracking2) of journal_lines,
 * invoice_lines and bill_lines its option ids go in. Lines name options by category and option
 * name, matched by search key (case and accents ignored); what is stored and hashed is the
 * option's id, so a rename changes what the reports print, never what was posted.
 *
 * Bounded: at most 2 categories of at most 100 options, so the whole set is read at once, and
 * only when a line or filter names tracking (lines without it cost no statement).
 */
export interface TrackingOption {
  readonly id: string;
  readonly name: string;
  readonly key: string;
  readonly archived: boolean;
  readonly position: number;
}

export interface TrackingCategory {
  readonly id: string;
  readonly slot: 1 | 2;
  readonly name: string;
  readonly key: string;
  readonly ledgerId: string;
  readonly options: readonly TrackingOption[];
}

/** The organisation's categories by slot, each with its options in the order added. */
export async function loadTracking(q: Queryable, orgId: string): Promise<TrackingCategory[]> {
  const categories = await q.all<{ id: string; slot: unknown; name: string; name_key: string; ledger_id: string }>(
    'SELECT id, slot, name, name_key, ledger_id FROM tracking_categories WHERE org_id = ? ORDER BY slot',
    [orgId],
  );
  if (categories.length === 0) return [];
  const options = await q.all<{
    id: string;
    category_id: string;
    name: string;
    name_key: string;
    archived_at: string | null;
    position: unknown;
  }>(
    'SELECT id, category_id, name, name_key, archived_at, position FROM tracking_options WHERE org_id = ? ORDER BY category_id, position',
    [orgId],
  );
  return categories.map((c) => {
    const slot = Number(c.slot);
    invariant(slot === 1 || slot === 2, `tracking category ${c.id} is in slot 1 or 2`);
    return {
      id: c.id,
      slot,
      name: c.name,
      key: c.name_key,
      ledgerId: c.ledger_id,
      options: options
        .filter((o) => o.category_id === c.id)
        .map((o) => ({ id: o.id, name: o.name, key: o.name_key, archived: o.archived_at !== null, position: Number(o.position) })),
    };
  });
}

/** A category as the API shows it (books.trackingSet, books.accounts). */
export function categoryView(c: TrackingCategory) {
  return { id: c.id, name: c.name, options: c.options.map((o) => ({ id: o.id, name: o.name, archived: o.archived })) };
}

/** Every category of the organisation as the API shows it. */
export async function trackingCategories(q: Queryable, orgId: string) {
  return (await loadTracking(q, orgId)).map(categoryView);
}

const column = (slot: 1 | 2) => (slot === 1 ? 'tracking1' : 'tracking2');
const quoted = (name: string) => `"${name}"`;
const namesOf = (list: readonly { readonly name: string }[]) => (list.length === 0 ? 'none' : list.map((x) => quoted(x.name)).join(', '));

/** The category a name stands for, or a problem naming `field`. */
function categoryNamed(book: readonly TrackingCategory[], name: string, field: string): TrackingCategory | string {
  const c = book.find((x) => x.key === searchKey(name));
  if (c) return c;
  return book.length === 0
    ? `${field}: the organisation has no tracking categories; set one up with ${chart.trackingSet.name}`
    : `${field}: no tracking category named ${quoted(name)} (categories: ${namesOf(book)})`;
}

/** The option a name stands for in a category, or a problem naming `field`. */
function optionNamed(c: TrackingCategory, name: string, field: string): TrackingOption | string {
  const o = c.options.find((x) => x.key === searchKey(name));
  if (o) return o;
  return `${field}: no option ${quoted(name)} in ${quoted(c.name)} (options: ${namesOf(c.options.filter((x) => !x.archived))})`;
}

/** What a line's tracking param names: the option ids by slot, and the names as stored. */
export interface ResolvedTracking {
  readonly ids: LineTracking;
  readonly names: Readonly<Record<string, string>>;
}

type TrackingInput = Readonly<Record<string, string>> | undefined;

/**
 * Each line's tracking param checked against the organisation's categories: every problem of
 * every line named (`<field(i)>: …`) in one BAD_REQUEST, nothing written. An archived option is
 * refused: new lines take only active ones. Lines without tracking cost nothing.
 */
export async function resolveLineTracking(
  q: Queryable,
  orgId: string,
  inputs: readonly TrackingInput[],
  field: (i: number) => string,
): Promise<(ResolvedTracking | undefined)[]> {
  if (inputs.every((t) => t === undefined)) return inputs.map(() => undefined);
  const book = await loadTracking(q, orgId);
  const problems: string[] = [];
  const out = inputs.map((t, i): ResolvedTracking | undefined => {
    if (t === undefined) return undefined;
    const ids: { tracking1?: string; tracking2?: string } = {};
    const names: Record<string, string> = {};
    for (const [categoryName, optionName] of Object.entries(t)) {
      const c = categoryNamed(book, categoryName, field(i));
      if (typeof c === 'string') {
        problems.push(c);
        continue;
      }
      const col = column(c.slot);
      if (ids[col] !== undefined) {
        problems.push(`${field(i)}: names category ${quoted(c.name)} twice; a line takes one option a category`);
        continue;
      }
      const o = optionNamed(c, optionName, `${field(i)}.${categoryName}`);
      if (typeof o === 'string') problems.push(o);
      else if (o.archived)
        problems.push(`${field(i)}.${categoryName}: option ${quoted(o.name)} is archived; new lines take only active options`);
      else {
        ids[col] = o.id;
        names[c.name] = o.name;
      }
    }
    return { ids, names };
  });
  if (problems.length > 0) throw badRequest(problems.join('; '));
  return out;
}

/** Names of stored tracking ids: built once per read, from the whole (bounded) set. */
export type TrackingNamer = (t: {
  readonly tracking1?: string | null;
  readonly tracking2?: string | null;
}) => Record<string, string> | undefined;

/**
 * A namer for rows that may carry tracking ids: reads the categories only when one row has any
 * (so a read of untracked lines costs no statement). An id no category knows is a broken invariant.
 */
export async function trackingNamer(
  q: Queryable,
  orgId: string,
  rows: readonly { readonly tracking1?: string | null; readonly tracking2?: string | null }[],
): Promise<TrackingNamer> {
  if (rows.every((r) => r.tracking1 == null && r.tracking2 == null)) return () => undefined;
  const byId = new Map<string, { category: string; option: string }>();
  for (const c of await loadTracking(q, orgId)) for (const o of c.options) byId.set(o.id, { category: c.name, option: o.name });
  return (t) => {
    if (t.tracking1 == null && t.tracking2 == null) return undefined;
    const names: Record<string, string> = {};
    for (const id of [t.tracking1, t.tracking2]) {
      if (id == null) continue;
      const n = byId.get(id);
      invariant(n !== undefined, `tracking option ${id} exists`);
      names[n.category] = n.option;
    }
    return names;
  };
}

/** A report's tracking filter as SQL on journal lines aliased `l`, and what it was, as stored names. */
export interface ReportTrackingFilter {
  /** ` AND l.trackingN = ?` / ` AND l.trackingN IS NULL`, one a category. */
  readonly sql: string;
  readonly args: readonly SqlValue[];
  readonly echo: Readonly<Record<string, string | null>>;
}

/**
 * books.reports' tracking param checked (BAD_REQUEST naming `tracking`): a category by name, an
 * option of it by name (archived ones too: their history is still reported) or null for lines
 * with no option in that category.
 */
export async function reportTrackingFilter(
  q: Queryable,
  orgId: string,
  filter: Readonly<Record<string, string | null>> | undefined,
): Promise<ReportTrackingFilter | undefined> {
  if (filter === undefined) return undefined;
  const book = await loadTracking(q, orgId);
  const problems: string[] = [];
  const parts: string[] = [];
  const args: SqlValue[] = [];
  const echo: Record<string, string | null> = {};
  const seen = new Set<number>();
  for (const [categoryName, optionName] of Object.entries(filter)) {
    const c = categoryNamed(book, categoryName, 'tracking');
    if (typeof c === 'string') {
      problems.push(c);
      continue;
    }
    if (seen.has(c.slot)) {
      problems.push(`tracking: names category ${quoted(c.name)} twice`);
      continue;
    }
    seen.add(c.slot);
    if (optionName === null) {
      parts.push(` AND l.${column(c.slot)} IS NULL`);
      echo[c.name] = null;
      continue;
    }
    const o = optionNamed(c, optionName, `tracking.${categoryName}`);
    if (typeof o === 'string') {
      problems.push(o);
      continue;
    }
    parts.push(` AND l.${column(c.slot)} = ?`);
    args.push(o.id);
    echo[c.name] = o.name;
  }
  if (problems.length > 0) throw badRequest(problems.join('; '));
  invariant(seen.size <= tracking.TRACKING_CATEGORIES_MAX, 'a filter names at most the categories there are');
  return { sql: parts.join(''), args, echo };
}
