import { placeholders, readInParts } from '../storage/sql.js';
import type { Queryable } from '../storage/types.js';

/** What the system (the operator's CLI, the server's own sweeps, actor "") is called. */
export const SYSTEM_NAME = 'Finance Desk';

/** Ids looked up per query: the page being named is bounded, and so is each IN list. */
const IDS_PER_QUERY = 100;
/** Distinct actors named in one call at most; the rest show as their ids (a page has far fewer). */
export const ACTORS_MAX = 500;

export interface ActorNameOptions {
  /**
   * Put an agent's name in quotes, for plain text (emails), where it must not pass for the
   * server's words (the console escapes it as HTML instead). An agent's name was typed when it
   * was paired or connected.
   */
  readonly quote?: boolean;
}

const chunked = <R>(ids: readonly string[], read: (part: readonly string[]) => Promise<R[]>) => readInParts(ids, read, IDS_PER_QUERY);

/**
 * Who each actor id is, in words, the one place that decides it: the system is "Finance Desk";
 * a person their name, else their email; a paired or connected agent "agent <its name>"; a key
 * issued without pairing its label, else "unlabelled <tier> key <id>" (no name exists to show).
 * An id this organisation does not know shows as itself. One query per kind of actor (users,
 * agents, keys), in bounded IN lists, whatever the number of rows being named.
 */
export async function actorNames(
  q: Queryable,
  orgId: string,
  ids: Iterable<string>,
  options: ActorNameOptions = {},
): Promise<Map<string, string>> {
  const distinct = [...new Set(ids)].slice(0, ACTORS_MAX);
  const names = new Map<string, string>();
  const of = (prefix: string) => distinct.filter((id) => id.startsWith(prefix));
  const users = await chunked(of('usr_'), (part) =>
    q.all<{ id: string; email: string; name: string | null }>(
      `SELECT id, email, name FROM users WHERE org_id = ? AND id IN (${placeholders(part.length)})`,
      [orgId, ...part],
    ),
  );
  for (const u of users) names.set(u.id, u.name ?? u.email);
  const agents = await chunked(of('agt_'), (part) =>
    q.all<{ id: string; name: string }>(`SELECT id, name FROM agents WHERE org_id = ? AND id IN (${placeholders(part.length)})`, [
      orgId,
      ...part,
    ]),
  );
  for (const a of agents) names.set(a.id, `agent ${options.quote ? JSON.stringify(a.name) : a.name}`);
  const keys = await chunked(of('key_'), (part) =>
    q.all<{ id: string; tier: string; label: string | null }>(
      `SELECT id, tier, label FROM credentials WHERE org_id = ? AND id IN (${placeholders(part.length)})`,
      [orgId, ...part],
    ),
  );
  for (const k of keys) names.set(k.id, k.label ?? `unlabelled ${k.tier} key ${k.id}`);
  for (const id of distinct) if (!names.has(id)) names.set(id, id === '' ? SYSTEM_NAME : id);
  return names;
}

/** One actor's name (actorNames for a single id). */
export async function actorName(q: Queryable, orgId: string, id: string, quote = false): Promise<string> {
  return (await actorNames(q, orgId, [id], { quote })).get(id) ?? id;
}

/** The label of a key or the name of a person, as given: one line, 1 to 64 characters, trimmed. */
export function displayNameProblem(field: string, value: string): string | null {
  const v = value.trim();
  if (v.length === 0 || v.length > 64) return `${field}: must be 1 to 64 characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(v)) return `${field}: must be one line of text, without control characters`;
  return null;
}
