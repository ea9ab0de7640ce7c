/**
 * The schema check: a database is used only if its schema is exactly what Finance Desk's
 * migrations create. Every chain verifying says nothing about the schema around the rows: a
 * trigger added to a backup (`AFTER INSERT ON approvals … SET status = 'approved'`) restores with
 * every chain intact and then approves every request with no human. So a restore, and a start on
 * a database that already existed, compare the schema object by object with a reference built
 * from the migrations themselves (each engine builds its own: sqlite.ts, postgres.ts), and refuse
 * with a line naming the first object that differs. Engine-neutral parts here.
 */

/** One schema object, normalised so that the same definition compares equal on every installation. */
export interface SchemaObject {
  /** table, index, trigger, view, column, constraint, function, … */
  readonly kind: string;
  readonly name: string;
  /** The table it belongs to (an index, trigger, column, rule, policy); '' for a table itself. */
  readonly on: string;
  /** Its definition, compared as text. */
  readonly def: string;
}

export function schemaKey(o: Pick<SchemaObject, 'kind' | 'name' | 'on'>): string {
  return `${o.kind}\u0000${o.on}\u0000${o.name}`;
}

function named(o: SchemaObject): string {
  return `${o.kind} ${o.name}${o.on ? ` on ${o.on}` : ''}`;
}

const MIGRATIONS = "Finance Desk's migrations";

/** Up to this much of a definition in a message. */
const DEF_SHOWN = 160;

function shown(text: string): string {
  return text.length > DEF_SHOWN ? `${text.slice(0, DEF_SHOWN)}…` : text;
}

/**
 * How a definition differs: both whole when they are short; for a long one (a table's CREATE
 * statement) the first comma-separated piece of each that the other lacks (a column, a
 * constraint), so a message points at the change, not at the whole statement.
 */
function difference(found: string, expected: string): string {
  if (found.length <= DEF_SHOWN && expected.length <= DEF_SHOWN) return `is ${found}; the migrations make ${expected}`;
  const pieces = (s: string) => s.split(/,\s*/);
  const [f, e] = [pieces(found), pieces(expected)];
  const extra = f.find((p) => !e.includes(p));
  const lacking = e.find((p) => !f.includes(p));
  if (extra !== undefined && lacking !== undefined) return `has ${shown(extra.trim())} where the migrations have ${shown(lacking.trim())}`;
  if (extra !== undefined) return `has ${shown(extra.trim())}, which the migrations do not`;
  if (lacking !== undefined) return `lacks ${shown(lacking.trim())}`;
  return `is ${shown(found)}; the migrations make ${shown(expected)}`;
}

/**
 * The differences between the schema the migrations create (`expected`) and the one found, as
 * lines naming each object: objects the migrations do not create first (they are what can act
 * unseen), then changed definitions, then missing objects.
 */
export function schemaProblems(expected: ReadonlyMap<string, SchemaObject>, actual: ReadonlyMap<string, SchemaObject>): string[] {
  // The columns, indexes, constraints and triggers of a table that is itself extra or missing
  // go without saying: the table is named.
  const whole = new Set<string>();
  for (const [key, o] of actual) if (o.on === '' && !expected.has(key)) whole.add(o.name);
  for (const [key, o] of expected) if (o.on === '' && !actual.has(key)) whole.add(o.name);
  const extra: string[] = [];
  const changed: string[] = [];
  const missing: string[] = [];
  for (const [key, found] of actual) {
    if (whole.has(found.on)) continue;
    const want = expected.get(key);
    if (!want) extra.push(`${named(found)} is not created by ${MIGRATIONS}`);
    else if (want.def !== found.def)
      changed.push(`${named(found)} is not as ${MIGRATIONS} create it: it ${difference(found.def, want.def)}`);
  }
  for (const [key, want] of expected) {
    if (!actual.has(key) && !whole.has(want.on)) missing.push(`${named(want)}, which ${MIGRATIONS} create, is missing`);
  }
  return [...extra.sort(), ...changed.sort(), ...missing.sort()];
}

/** Problems for applied migrations this build does not know (a newer build's database). */
export function unknownMigrations(ids: readonly number[]): string[] {
  return ids.length === 0
    ? []
    : [
        `migration${ids.length > 1 ? 's' : ''} ${[...ids].sort((a, b) => a - b).join(', ')} applied to it ${ids.length > 1 ? 'are' : 'is'} not known to this build of Finance Desk (a newer build wrote it)`,
      ];
}

/** How many problems a refusal spells out; the rest are counted. */
const PROBLEMS_SHOWN = 3;

/** The line that names what differs: the first few problems and how many more there are. */
export function problemLine(problems: readonly string[]): string {
  const more = problems.length - PROBLEMS_SHOWN;
  return problems.slice(0, PROBLEMS_SHOWN).join('; ') + (more > 0 ? `; and ${more} more difference${more > 1 ? 's' : ''}` : '');
}

/** A database refused at start because its schema is not what the migrations create. */
export class SchemaRefused extends Error {
  constructor(
    readonly problems: readonly string[],
    where: string,
  ) {
    super(`refusing to start on ${where}: ${problemLine(problems)}`);
    this.name = 'SchemaRefused';
  }
}
