import type { Queryable } from '../storage/types.js';

/**
 * Who an actor id is, in words. Unknown or system actors fall back to the id itself. An agent's
 * name was typed when it was paired: `quote` puts it in quotes for plain text (emails), where it
 * must not pass for the server's words (the console escapes it as HTML instead).
 */
export async function actorName(q: Queryable, orgId: string, id: string, quote = false): Promise<string> {
  if (id === '') return 'the system';
  if (id.startsWith('usr_')) {
    const u = await q.get<{ email: string }>('SELECT email FROM users WHERE org_id = ? AND id = ?', [orgId, id]);
    return u ? u.email : id;
  }
  if (id.startsWith('agt_')) {
    const a = await q.get<{ name: string }>('SELECT name FROM agents WHERE org_id = ? AND id = ?', [orgId, id]);
    return a ? `agent ${quote ? JSON.stringify(a.name) : a.name}` : id;
  }
  if (id.startsWith('key_')) {
    const k = await q.get<{ tier: string }>('SELECT tier FROM credentials WHERE org_id = ? AND id = ?', [orgId, id]);
    return k ? `API key ${id} (${k.tier} tier)` : id;
  }
  return id;
}
