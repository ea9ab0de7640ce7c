import { ACTION_CLASSES, type ActionClass, type UserRole } from '@finance-desk/protocol';
import { enqueueEmail } from '../adapters/outbox.js';
import { actTitle } from './act-titles.js';
import { formatCents } from '../money.js';
import type { Uow } from '../write-path.js';
import { approvalFacts, factLines } from './approval-facts.js';
import { actorName } from './actor-name.js';
import { loadPolicy, mayDecide } from './policy.js';
import { quoted } from './quote.js';

/**
 * Approval emails: when an approval becomes pending (approval.request files a
 * new one; a repeat for the same pending approval is a no-op and sends nothing), every user of the
 * organisation with decision rights for its action class gets one email, queued in the outbox in
 * the request's own transaction and delivered after commit like every other email. The text is
 * the server's: who asked, what, how much, to whom, from which account, when it expires, and a
 * link to the approval's card in the console. Text an agent wrote (payee names, reasons, notes)
 * is quoted and labelled as the agent's words.
 */

/**
 * The console's public address (PUBLIC_URL, docs/configuration.md), set once at start-up by
 * server.ts. A process-wide setting: every server in one process serves the same console.
 */
let publicUrl: string | null = null;

export function setPublicUrl(url: string | null): void {
  publicUrl = url ? url.replace(/\/+$/, '') : null;
}

/** The console's public address as set at start-up (null when PUBLIC_URL is unset). */
export function publicUrlSetting(): string | null {
  return publicUrl;
}

/** The path of an approval's card in the console. */
export function cardPath(approvalId: string): string {
  return `/console/approvals/${encodeURIComponent(approvalId)}`;
}

/** Params whose text an agent wrote and a decider should read: shown quoted, labelled as the agent's. */
const AGENT_TEXT = ['reason', 'note', 'description', 'memo'] as const;

function agentWords(params: unknown): string[] {
  if (!params || typeof params !== 'object') return [];
  const p = params as Record<string, unknown>;
  return AGENT_TEXT.flatMap((k) => (typeof p[k] === 'string' && p[k] !== '' ? [`  ${k}: ${quoted(p[k].slice(0, 500))}`] : []));
}

export interface PendingApproval {
  readonly approvalId: string;
  readonly actionClass: ActionClass;
  readonly subjectId: string;
  readonly method: string;
  readonly params: unknown;
  readonly summary: string;
  readonly requestedAt: string;
  readonly expiresAt: string;
}

/** At most this many deciders are emailed for one approval (an organisation has a handful). */
const DECIDERS_MAX = 200;

function utc(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** Queue one email per decider; returns how many were queued. */
export async function emailDeciders(uow: Uow, a: PendingApproval): Promise<number> {
  if (!(ACTION_CLASSES as readonly string[]).includes(a.actionClass)) return 0;
  const policy = await loadPolicy(uow.tx, uow.orgId);
  const users = await uow.tx.all<{ id: string; email: string; role: UserRole }>(
    `SELECT id, email, role FROM users WHERE org_id = ? ORDER BY email LIMIT ${DECIDERS_MAX}`,
    [uow.orgId],
  );
  const deciders = users.filter((u) => mayDecide(policy, a.actionClass, u));
  if (deciders.length === 0) return 0;
  const org = await uow.tx.get<{ name: string; slug: string }>('SELECT name, slug FROM organisations WHERE id = ?', [uow.orgId]);
  const orgWords = org ? `${quoted(org.name)} (${org.slug})` : uow.orgId;
  const who = await actorName(uow.tx, uow.orgId, uow.actor, true);
  const facts = await approvalFacts(uow.tx, uow.orgId, a, uow.today);
  const title = actTitle(a.actionClass, a.method);
  const path = cardPath(a.approvalId);
  const link = publicUrl
    ? [`Decide on its card: ${publicUrl}${path}`]
    : [
        'This server has no public address set (PUBLIC_URL), so this email cannot give a full link.',
        `Open the approval console where you normally sign in and go to ${path}`,
      ];
  const words = [...facts.agentText.map((w) => `  ${w.label}: ${quoted(w.text)}`), ...agentWords(a.params)];
  const amount = facts.amount ? ` (${formatCents(facts.amount.cents)})` : '';
  const subject = `Approval needed: ${title}${amount} [${a.approvalId}]`;
  for (const d of deciders) {
    const text = [
      `${who} asks for a human decision in ${orgWords}.`,
      '',
      `What:       ${title}`,
      ...factLines(facts),
      `Asked by:   ${who}`,
      `Requested:  ${utc(a.requestedAt)}`,
      `Expires:    ${utc(a.expiresAt)} (undecided, it lapses and the act cannot complete)`,
      '',
      'The exact act, as Finance Desk recorded it (names the agent entered are in quotes):',
      `  ${a.summary}`,
      ...(words.length ? ['', "The agent's own words, quoted exactly (Finance Desk has not checked them):", ...words] : []),
      '',
      ...link,
      '',
      `You receive this because you (${d.email}, ${d.role}) hold decision rights for ${a.actionClass} in ${orgWords}.`,
      `Approval ${a.approvalId}, subject ${a.subjectId}, method ${a.method}. Nobody can approve by replying to this email.`,
    ].join('\n');
    await enqueueEmail(uow.tx, uow.orgId, uow.now, { to: d.email, subject, text });
  }
  return deciders.length;
}
