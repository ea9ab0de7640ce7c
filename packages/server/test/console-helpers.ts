import { expect } from 'vitest';
import type { TestServer } from './harness.js';

/** Console plumbing for tests outside console.test.ts: sign in, JSON API calls, form posts. */
export interface Signed {
  readonly cookie: string;
  readonly csrf: string;
}

export interface Res {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: any;
}

export async function toRes(r: Response): Promise<Res> {
  const text = await r.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // an HTML page or an empty redirect
  }
  return { status: r.status, headers: r.headers, text, body };
}

export async function consoleSignIn(t: TestServer, slug: string, email: string, password: string): Promise<Signed> {
  const r = await fetch(`${t.url}/console/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ org: slug, email, password }).toString(),
    redirect: 'manual',
  });
  expect(r.status).toBe(303);
  const cookie = (r.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const session = await consoleGet(t, { cookie, csrf: '' }, '/console/api/session');
  expect(session.status).toBe(200);
  return { cookie, csrf: session.body.csrfToken as string };
}

export async function consoleGet(t: TestServer, s: Signed | null, path: string): Promise<Res> {
  const headers: Record<string, string> = s ? { cookie: s.cookie } : {};
  return toRes(await fetch(`${t.url}${path}`, { headers, redirect: 'manual' }));
}

export async function consoleJson(
  t: TestServer,
  s: Signed | null,
  method: 'POST' | 'PUT',
  path: string,
  body: unknown = {},
  csrf: string | null = s?.csrf ?? null,
): Promise<Res> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (s) headers.cookie = s.cookie;
  if (csrf !== null) headers['x-csrf-token'] = csrf;
  return toRes(await fetch(`${t.url}${path}`, { method, headers, body: JSON.stringify(body), redirect: 'manual' }));
}

export async function consoleForm(t: TestServer, s: Signed, path: string, fields: Record<string, string>): Promise<Res> {
  return toRes(
    await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: s.cookie },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    }),
  );
}

/** Every event of an organisation, oldest first, payloads parsed. */
export async function orgEvents(
  t: TestServer,
  orgId: string,
): Promise<{ kind: string; actor: string; entity_id: string; payload: any; raw: string }[]> {
  const rows = await t.db.reader.all<{ kind: string; actor: string; entity_id: string; payload: string }>(
    'SELECT kind, actor, entity_id, payload FROM events WHERE org_id = ? ORDER BY seq',
    [orgId],
  );
  return rows.map((r) => ({ kind: r.kind, actor: r.actor, entity_id: r.entity_id, payload: JSON.parse(r.payload), raw: r.payload }));
}
