#!/usr/bin/env node
// Generates docs/methods.md from the method declarations (packages/protocol) and a scripted
// session against a real server on a temporary SQLite database, so every example request and
// result in the document is one the service actually answered. Run: `npm run docs`.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { methods, publicRoutes, reads } from '@finance-desk/protocol';
import { createOrg, startServer } from '@finance-desk/server';
import { decideApproval } from '../packages/server/dist/governance/approvals.js';

const dir = mkdtempSync(join(tmpdir(), 'fd-docs-'));
const config = {
  databaseUrl: `sqlite:${join(dir, 'fd.db')}`,
  port: 0,
  host: '127.0.0.1',
  ratePerSecond: 1000,
  rateBurst: 1000,
  redisUrl: null,
  sqliteSynchronous: 'NORMAL',
  logLevel: 'silent',
  benchRoute: false,
  smtpUrl: null,
  emailOutboxDir: join(dir, 'outbox'),
  paymentsOutboxDir: join(dir, 'payments'),
  lodgementOutboxDir: join(dir, 'lodgements'),
  emailFrom: 'Finance Desk <accounts@finance-desk.invalid>',
  cookieSecure: false,
};
const server = await startServer(config, { logger: false });
const org = await createOrg(server.db, { name: 'Harbour Cafe', slug: 'harbour-cafe', decisionRights: true });
const examples = new Map();

/** As the scenario organisation's agent, or with `key` as another organisation's (a scenario that needs a fresh one). */
async function post(method, params, note, key = org.keys.agent) {
  const res = await fetch(`${server.url}/api/v1/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
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

// Routes without a key (org/pair): the scenario's caller has no credential to send.
async function pair(params, note) {
  const res = await fetch(`${server.url}/api/v1/org/pair`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(params),
  });
  const body = await res.json();
  const list = examples.get('org/pair') ?? [];
  list.push({ kind: 'POST', note, params, status: res.status, body: redactKey(body) });
  examples.set('org/pair', list);
  return body;
}
/** The example shows the key's shape, not a live secret. */
function redactKey(body) {
  if (!body?.result?.key) return body;
  return { ...body, result: { ...body.result, key: `${body.result.key.slice(0, 31)}<secret, shown once>` } };
}

// The scripted session: the core scenario, then each area's (scripts/doc-scenarios/*.mjs, in
// name order). A scenario gets { post, get, org, db, decide } and calls methods as an agent would.
const decide = (approvalId, approve = true) =>
  decideApproval(server.db, { orgId: org.orgId, approvalId, user: { id: org.owner.userId, role: 'owner' }, approve });
const scenarioDir = new URL('./doc-scenarios/', import.meta.url);
for (const file of readdirSync(scenarioDir)
  .filter((f) => f.endsWith('.mjs'))
  .sort()) {
  const { run } = await import(new URL(file, scenarioDir).href);
  await run({ post, get, pair, org, db: server.db, decide });
}
await server.close();
rmSync(dir, { recursive: true, force: true });

const fence = (v) => '```json\n' + JSON.stringify(v, null, 2) + '\n```';
/** The 43 books methods of the core contract (with approval.request, board.createTask and board.claim): the rest extend it. */
const SEED = new Set([
  ...[
    'feedLines',
    'matchAccept',
    'matchHoldResolve',
    'receiptsRegister',
    'lineRecode',
    'journalPost',
    'invoiceDraft',
    'invoiceSend',
    'invoiceChaseStep',
    'invoiceRecordPayment',
    'invoiceCreditNote',
    'invoiceVoid',
    'invoicePromise',
    'statementRun',
    'billCapture',
    'billApprove',
    'billHold',
    'billReturn',
    'billScheduleRun',
    'expenseClaim',
    'expenseApprove',
    'payrollDraft',
    'payrollSign',
    'payrollRecall',
    'onboardingStart',
    'onboardingAdvance',
    'leaveRequest',
    'leaveApprove',
    'stpResubmit',
    'taxPrepare',
    'taxHold',
    'taxReturn',
    'taxSignLodge',
    'assetDepreciationRun',
    'assetDispose',
    'accounts',
    'journals',
    'invoices',
    'bills',
    'taxObligations',
    'reports',
    'assets',
    'ask',
  ].map((m) => `books.${m}`),
  'approval.request',
  'board.createTask',
  'board.claim',
]);
const extensions = methods.filter((m) => !SEED.has(m.name)).map((m) => `\`${m.name}\``);
const extendedParams = methods
  .filter((m) => SEED.has(m.name) && m.extendedParams?.length)
  .map((m) => `\`${m.name}\` (${m.extendedParams.map((p) => `\`${p}\``).join(', ')})`);
const out = [
  '# Methods',
  '',
  'Generated by `npm run docs` from the method declarations in `packages/protocol/src/methods/` and a',
  'scripted session against a real server: every example below is an answer the service gave. Do not',
  'edit by hand. Conventions: money is integer cents; ids carry a type prefix (`inv_`, `bill_`,',
  '`apr_`, `task_`); every write result carries `ledgerId` (the first 8 hex characters of its',
  "event's `row_hash`); a replay against a row already in its target state returns `noop: true`",
  'with the `ledgerId` of the transition. POST bodies may be `{"params":{…}}` or the bare params.',
  '',
  `Methods beyond the core contract (extensions; the core methods keep their names and meaning): ${extensions.join(', ')}.`,
  '',
  ...(extendedParams.length
    ? [
        `Optional params beyond the core contract on its own methods (extensions; leaving them out keeps the core behaviour): ${extendedParams.join('; ')}.`,
        '',
      ]
    : []),
  '| method | scope | kind | action class |',
  '|---|---|---|---|',
  ...methods.map(
    (m) => `| [\`${m.name}\`](#${m.name.replace(/\./g, '').toLowerCase()}) | ${m.scope} | ${m.kind} | ${m.actionClass ?? ''} |`,
  ),
  '',
  '| read (GET) | scope |',
  '|---|---|',
  ...reads.map((r) => `| [\`${r.name}\`](#${r.name.replace(/[./]/g, '').toLowerCase()}) | ${r.scope} |`),
  '',
  '| route without a key (POST) | credential |',
  '|---|---|',
  ...publicRoutes.map((r) => `| [\`${r.name}\`](#${r.name.replace(/[./]/g, '').toLowerCase()}) | a one-time pairing code in the body |`),
  '',
];
for (const m of methods) {
  out.push(
    `## ${m.name}`,
    '',
    m.summary,
    '',
    `Scope \`${m.scope}\`, kind \`${m.kind}\`${m.actionClass ? `, action class \`${m.actionClass}\`` : ''}.`,
    '',
  );
  if (!SEED.has(m.name)) out.push('Extension beyond the core contract: a method it does not name.', '');
  else if (m.extendedParams?.length)
    out.push(`Extension beyond the core contract: optional params ${m.extendedParams.map((p) => `\`${p}\``).join(', ')}.`, '');
  out.push('Params (JSON Schema):', '', fence(z.toJSONSchema(m.params, { io: 'input', unrepresentable: 'any' })), '');
  for (const ex of examples.get(m.name) ?? []) {
    out.push(
      `**${ex.note}** — \`POST /api/v1/${m.name}\``,
      '',
      fence({ params: ex.params }),
      '',
      `HTTP ${ex.status}`,
      '',
      fence(ex.body),
      '',
    );
  }
}
for (const r of reads) {
  out.push(`## ${r.name}`, '', r.summary, '', `\`GET /api/v1/${r.name}\`, scope \`${r.scope}\`.`, '');
  out.push(
    'Query (JSON Schema, values arrive as strings):',
    '',
    fence(z.toJSONSchema(r.query, { io: 'input', unrepresentable: 'any' })),
    '',
  );
  for (const ex of examples.get(r.name) ?? []) {
    out.push(
      `**${ex.note}** — \`GET /api/v1/${r.name}${ex.query ? `?${ex.query}` : ''}\``,
      '',
      `HTTP ${ex.status}`,
      '',
      fence(ex.body),
      '',
    );
  }
}
for (const r of publicRoutes) {
  out.push(`## ${r.name}`, '', r.summary, '', `\`POST /api/v1/${r.name}\`, no Authorization header.`, '');
  out.push(
    'Body (JSON Schema; wrapped in `params` or bare):',
    '',
    fence(z.toJSONSchema(r.params, { io: 'input', unrepresentable: 'any' })),
    '',
  );
  for (const ex of examples.get(r.name) ?? []) {
    out.push(`**${ex.note}** — \`POST /api/v1/${r.name}\``, '', fence(ex.params), '', `HTTP ${ex.status}`, '', fence(ex.body), '');
  }
}
writeFileSync(new URL('../docs/methods.md', import.meta.url), out.join('\n'));
console.log(`docs/methods.md: ${methods.length} methods, ${reads.length} reads`);
