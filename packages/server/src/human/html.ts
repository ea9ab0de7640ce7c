import type { ChainStatus } from './console-data.js';
import { mayViewBooks } from './owner-access.js';
import { csrfToken, type HumanSession } from './sessions.js';

/**
 * Server-rendered HTML for the console. Every value that did not come from this file goes
 * through `escapeHtml` (or `attr`), because summaries and params carry text an agent typed.
 */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Tagged template: interpolations are escaped unless wrapped in `raw`. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export const raw = (text: string): Html => new Html(text);

type Part = Html | string | number | null | undefined | readonly Html[];

function render(part: Part): string {
  if (part === null || part === undefined) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return (part as readonly Html[]).map((p) => p.text).join('');
  return escapeHtml(part);
}

export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] ?? '';
  parts.forEach((part, i) => {
    out += render(part) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

/** `2025-06-01 14:03 UTC` inside a <time>; the script re-renders it in the reader's zone. */
export function when(iso: string | null): Html {
  if (!iso) return html`—`;
  const shown = `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  return html`<time datetime="${iso}">${shown}</time>`;
}

/** "in 23 h 59 min" or "expired", for an instant relative to now (rounded down, never early). */
export function fromNow(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  if (ms <= 0) return 'expired';
  const minutes = Math.floor(ms / 60_000);
  const hours = Math.floor(minutes / 60);
  if (minutes === 0) return 'in under a minute';
  if (hours === 0) return `in ${minutes} min`;
  return `in ${hours} h ${minutes % 60} min`;
}

function chainBadge(chain: ChainStatus): Html {
  const head = chain.head.seq === 0 ? 'empty' : `seq ${chain.head.seq} · #${chain.head.rowHash.slice(0, 8)}`;
  const badge = chain.verified
    ? html`<span class="badge ok">verified</span>`
    : html`<span class="badge broken">BROKEN at seq ${chain.brokenAt?.seq ?? '?'}</span>`;
  return html`<p class="chain">Chain head
<span class="mono" title="${chain.head.rowHash}">${head}</span> ${badge}</p>`;
}

export type NavKey =
  | 'inbox'
  | 'history'
  | 'policy'
  | 'org'
  | 'agents'
  | 'books'
  | 'bank'
  // The chart of accounts (chart-pages.ts):
  | 'chart'
  // Payment and lodgement files:
  | 'files';

function nav(current: NavKey | null, session: HumanSession): Html {
  const items: [NavKey, string, string][] = [
    ['inbox', '/console', 'Inbox'],
    ['history', '/console/history', 'History'],
    ['policy', '/console/policy', 'Policy'],
    ['org', '/console/org', 'Organisation'],
    ['agents', '/console/agents', 'Agents'],
    // Payment and lodgement files (human/files-pages.ts).
    ['files', '/console/files', 'Files'],
    ['bank', '/console/bank-accounts', 'Bank accounts'],
    // Everyone reads the chart; owners change it (chart-pages.ts).
    ['chart', '/console/accounts', 'Chart of accounts'],
  ];
  // The owner's read-only view of the books (owner-pages.ts).
  if (mayViewBooks(session.role)) items.push(['books', '/console/books', 'Books']);
  const links = items.map(([key, href, label]) =>
    key === current ? html`<li><a href="${href}" aria-current="page">${label}</a></li>` : html`<li><a href="${href}">${label}</a></li>`,
  );
  return html`<nav aria-label="Console"><ul>${links}</ul></nav>`;
}

export interface Chrome {
  readonly session: HumanSession;
  readonly chain: ChainStatus;
  readonly current: NavKey | null;
}

function header(c: Chrome): Html {
  const s = c.session;
  return html`<header class="top">
  <p class="brand">Finance Desk</p>
  <p class="who"><span>${s.orgName}</span> <span class="mono">(${s.orgSlug})</span> · ${s.email}, ${s.role}</p>
  ${chainBadge(c.chain)}
  ${nav(c.current, s)}
  <form method="post" action="/console/logout" class="logout">
    <input type="hidden" name="_csrf" value="${csrfToken(s)}">
    <button type="submit" class="secondary">Sign out</button>
  </form>
</header>`;
}

/** The page shell: one <h1> in <main>, a skip link, the header when signed in. */
export function page(title: string, body: Html, chrome: Chrome | null): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Finance Desk</title>
<link rel="icon" href="/console/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to main content</a>
${chrome ? header(chrome) : html`<header class="top"><p class="brand">Finance Desk</p></header>`}
<main id="main" tabindex="-1">
${body}
</main>
</body>
</html>
`.text;
}

export function errorBody(status: number, message: string): Html {
  return html`<h1>Something stopped this (${status})</h1>
<p role="alert" class="notice error">${message}</p>
<p><a href="/console">Back to the inbox</a></p>`;
}
