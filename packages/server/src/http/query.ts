/**
 * A strict query-string parser. Fastify's default leaves a value whose
 * percent-encoding does not decode (`%zz`, or `%ED%A0%80`, the UTF-8 form of a lone surrogate)
 * as its raw text, so it would reach a read as if the caller had typed it. Here such a value is
 * recorded under MALFORMED and the read refuses it with BAD_REQUEST naming the key.
 */
export const MALFORMED: unique symbol = Symbol('malformed query keys');

export type ParsedQuery = Record<string, string | string[]> & { [MALFORMED]?: string[] };

function decode(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

export function parseQuery(text: string): ParsedQuery {
  // No prototype, so a key named __proto__ is only a key.
  const out = Object.create(null) as ParsedQuery;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const key = decode(rawKey);
    const value = decode(eq < 0 ? '' : pair.slice(eq + 1));
    if (key === null || value === null) {
      (out[MALFORMED] ??= []).push(key ?? rawKey.slice(0, 100));
      continue;
    }
    const prior = out[key];
    if (prior === undefined) out[key] = value;
    else out[key] = Array.isArray(prior) ? [...prior, value] : [prior, value];
  }
  return out;
}

/** `key: malformed percent-encoding` for each bad key, or null. */
export function malformedQueryMessage(query: unknown): string | null {
  const bad = (query as ParsedQuery | undefined)?.[MALFORMED];
  return bad && bad.length > 0 ? bad.map((k) => `${k}: malformed percent-encoding`).join('; ') : null;
}
