#!/usr/bin/env node
// Generates docs/methods.md from the method declarations (packages/protocol) and a scripted
// session against a real server on a temporary SQLite database, so every example request and
// result in the document is one the service actually answered. Run: `npm run docs`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { methods, reads } from '@finance-desk/protocol';
import { createOrg, startServer } from '@finance-desk/server';
import { decideApproval } from '../packages/server/dist/governance/approvals.js';

const dir = mkdtempSync(join(tmpdir(), 'fd-docs-'));
const config = {
  databaseUrl: `sqlite:${join(dir, 'fd.db')}`, port: 0, host: '127.0.0.1', ratePerSecond: 1000, rateBurst: 1000,
  redisUrl: null, sqliteSynchronous: 'NORMAL', logLevel: 'silent', benchRoute: false, smtpUrl: null,
  emailOutboxDir: join(dir, 'outbox'), emailFrom: 'Finance Desk <accounts@finance-desk.invalid>', cookieSecure: false,
};
const server = await startServer(config, { logger: false });
const org = await createOrg(server.db, { name: 'Harbour Cafe', slug: 'harbour-cafe', decisionRights: true });
const examples = new Map();

async function post(method, params, note) {
  const res = await fetch(`${server.url}/api/v1/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.keys.agent}`, 'content-type': 'application/json' },
    body: JSON.stringify({ params }),
  });
  const body = await res.json();
  const list = examples.get(method) ?? [];
  list.push({ kind: 'POST', note, params, status: res.status, body });
  examples.set(method, list);
  return body;
}

async function get(name, query, note) {
  const qs = new URLSearchParams(query).toString();
  const res = await fetch(`${server.url}/api/v1/${name}${qs ? `?${qs}` : ''}`, {
    headers: { authorization: `Bearer ${org.keys.agent}` },
  });
  const body = await res.json();
  const list = examples.get(name) ?? [];
  list.push({ kind: 'GET', note, query: qs, status: res.status, body });
  examples.set(name, list);
  return body;
}

// The scripted session: one of everything, in an order a desk would do it.
const inv = await post('books.invoiceDraft', { payeeName: 'Bob Smith', payeeEmail: 'bob@example.com', description: 'October catering', totalCents: 110000, dueDays: 14 }, 'Draft an invoice');
await post('books.invoiceSend', { id: inv.result.id }, 'Send it');
await post('books.invoiceChaseStep', { id: inv.result.id, step: 1 }, 'Step 1 runs at once');
const hold = await post('books.invoiceChaseStep', { id: inv.result.id, step: 2 }, 'Step 2 without proof: the hold frame');
const a = hold.result.approval;
const req = await post('approval.request', { actionClass: a.actionClass, payloadHash: a.payloadHash, subject: { kind: 'books.signature', subjectId: a.subject.subjectId } }, 'File the held act for a human decision');
await get('approval.wait', { approvalId: req.result.approvalId, timeoutMs: '0' }, 'Still pending');
await decideApproval(server.db, { orgId: org.orgId, approvalId: req.result.approvalId, user: { id: org.owner.userId, role: 'owner' }, approve: true });
await get('approval.wait', { approvalId: req.result.approvalId, timeoutMs: '30000' }, 'After a human approved');
await post('books.invoiceChaseStep', { id: inv.result.id, step: 2, approvalId: req.result.approvalId }, 'Retry with the proof');
const bill = await post('books.billCapture', { payeeName: 'Paper Co', description: 'Till rolls', totalCents: 12650, dueDays: 30 }, 'A first bill from a new payee is held (PB-B1)');
await post('books.billApprove', { id: bill.result.id }, 'Held under PB-B1: a human must approve');
await post('books.billHold', { id: bill.result.id, reason: 'Quantity disputed' }, 'Park a bill');
await post('books.billReturn', { id: bill.result.id, reason: 'Billed to the wrong entity' }, 'Return a bill');
await post('books.billCapture', { payeeName: 'Paper Co', description: 'Bad', totalCents: -5, dueDays: 30, currency: 'AUD' }, 'Bad input names every field');
const task = await post('board.createTask', { title: 'Reconcile October', priority: 'high' }, 'Put a task on the board');
await post('board.claim', { id: task.result.id }, 'Claim it');
await post('board.claim', { id: task.result.id }, 'A second claim loses');
await get('board.ready', {}, 'Unclaimed tasks');
await get('board.context', { id: task.result.id }, 'One task and its history');
await get('decision.list', { limit: '5' }, 'Decisions, newest first');
await get('policy', {}, 'Governance policy');
await get('snapshot', {}, 'Chain head');
await get('events', { cursor: '0', limit: '2' }, 'The first page of the ledger');
await get('org/whoami', { slug: 'harbour-cafe' }, 'Who am I');
await get('org/self', {}, 'My organisation');
await server.close();
rmSync(dir, { recursive: true, force: true });

const fence = (v) => '```json\n' + JSON.stringify(v, null, 2) + '\n```';
const out = [
  '# Methods',
  '',
  'Generated by `npm run docs` from the method declarations in `packages/protocol/src/methods/` and a',
  'scripted session against a real server: every example below is an answer the service gave. Do not',
  'edit by hand. Conventions: money is integer cents; ids carry a type prefix (`inv_`, `bill_`,',
  '`apr_`, `task_`); every write result carries `ledgerId` (the first 8 hex characters of its',
  'event\'s `row_hash`); a replay against a row already in its target state returns `noop: true`',
  'with the `ledgerId` of the transition (D3). POST bodies may be `{"params":{…}}` or the bare params.',
  '',
  '| method | scope | kind | action class |',
  '|---|---|---|---|',
  ...methods.map((m) => `| [\`${m.name}\`](#${m.name.replace(/\./g, '').toLowerCase()}) | ${m.scope} | ${m.kind} | ${m.actionClass ?? ''} |`),
  '',
  '| read (GET) | scope |',
  '|---|---|',
  ...reads.map((r) => `| [\`${r.name}\`](#${r.name.replace(/[./]/g, '').toLowerCase()}) | ${r.scope} |`),
  '',
];
for (const m of methods) {
  out.push(`## ${m.name}`, '', m.summary, '', `Scope \`${m.scope}\`, kind \`${m.kind}\`${m.actionClass ? `, action class \`${m.actionClass}\`` : ''}.`, '');
  out.push('Params (JSON Schema):', '', fence(z.toJSONSchema(m.params, { io: 'input', unrepresentable: 'any' })), '');
  for (const ex of examples.get(m.name) ?? []) {
    out.push(`**${ex.note}** — \`POST /api/v1/${m.name}\``, '', fence({ params: ex.params }), '', `HTTP ${ex.status}`, '', fence(ex.body), '');
  }
}
for (const r of reads) {
  out.push(`## ${r.name}`, '', r.summary, '', `\`GET /api/v1/${r.name}\`, scope \`${r.scope}\`.`, '');
  out.push('Query (JSON Schema, values arrive as strings):', '', fence(z.toJSONSchema(r.query, { io: 'input', unrepresentable: 'any' })), '');
  for (const ex of examples.get(r.name) ?? []) {
    out.push(`**${ex.note}** — \`GET /api/v1/${r.name}${ex.query ? `?${ex.query}` : ''}\``, '', `HTTP ${ex.status}`, '', fence(ex.body), '');
  }
}
writeFileSync(new URL('../docs/methods.md', import.meta.url), out.join('\n'));
console.log(`docs/methods.md: ${methods.length} methods, ${reads.length} reads`);
