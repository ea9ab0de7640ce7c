#!/usr/bin/env node
// Finance Desk audit pack verifier (issue 13 item 6). Standalone: Node.js 20+ and the files of this
// pack only (lib/ is the protocol package's own chain and checkpoint code). Run it from the pack's
// folder:  node verify.mjs --vkey "<verifier key>" [--checkpoint old-checkpoint.txt] [--json]
// Exit 0 when everything ties out, 1 when anything does not, 2 on a usage error.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ChainVerifier, ledgerId } from './lib/chain.js';
import { openCheckpoint } from './lib/checkpoint.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const json = args.includes('--json');
const checks = [];
const check = (name, ok, detail) => checks.push({ name, ok, detail });

async function sha256File(path) {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk);
  return hash.digest('hex');
}

async function* lines(path) {
  const rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of rl) if (line) yield JSON.parse(line);
}

// 1. Every file is the one the manifest names.
const manifest = JSON.parse(readFileSync(join(here, 'manifest.json'), 'utf8'));
let filesOk = true;
for (const f of manifest.files) {
  const path = join(here, f.path);
  if (!existsSync(path) || (await sha256File(path)) !== f.sha256) {
    filesOk = false;
    check('files', false, `${f.path} is missing or differs from manifest.json`);
  }
}
if (filesOk) check('files', true, `${manifest.files.length} files match manifest.json`);

// 2. The chain, recomputed over the stored bytes of every payload.
const verifier = new ChainVerifier();
const rowHashAt = new Map();
const ledgerIds = new Map();
for await (const row of lines(join(here, 'events.jsonl'))) {
  if (!verifier.pushStored(row)) break;
  rowHashAt.set(row.seq, row.row_hash);
  ledgerIds.set(ledgerId(row.row_hash), row);
}
const verdict = verifier.verdict();
if (verdict.ok) {
  const head = manifest.head;
  const atHead = verdict.head.seq === head.seq && verdict.head.rowHash === head.rowHash;
  check('chain', atHead, atHead ? `${verdict.rows} events verify from genesis to seq ${head.seq}` : `the events end at seq ${verdict.head.seq}, the manifest says ${head.seq}`);
} else {
  check('chain', false, `broken at seq ${verdict.seq}: ${verdict.reason} (expected ${verdict.expected}, found ${verdict.actual})`);
}

// 3. Checkpoints: the pack's own and any the auditor holds, opened with the verifier key.
const given = flag('--vkey');
const packKey = existsSync(join(here, 'verifier-key.txt')) ? readFileSync(join(here, 'verifier-key.txt'), 'utf8').trim() : null;
const vkey = given ?? packKey;
if (!given && packKey) check('verifier key', true, 'using the key inside the pack; pass --vkey with the copy you were given to rely on it');
if (given && packKey && given !== packKey) check('verifier key', false, 'the key inside the pack differs from the one you gave');
const notes = [];
const cpDir = join(here, 'checkpoints');
if (existsSync(cpDir)) for (const f of readdirSync(cpDir).sort()) notes.push({ from: `checkpoints/${f}`, note: readFileSync(join(cpDir, f), 'utf8') });
const held = flag('--checkpoint');
if (held) notes.push({ from: held, note: readFileSync(held, 'utf8') });
const origin = manifest.organisation.id;
for (const { from, note } of notes) {
  if (!vkey) {
    check('checkpoint', false, `${from}: no verifier key (pass --vkey)`);
    continue;
  }
  const opened = openCheckpoint(note, vkey);
  if (!opened.ok) {
    check('checkpoint', false, `${from}: ${opened.reason}`);
    continue;
  }
  const c = opened.checkpoint;
  if (!c.origin.endsWith(`/${origin}`)) check('checkpoint', false, `${from}: its log ${c.origin} is not this organisation's`);
  else if (rowHashAt.get(c.size) !== c.rootHash) check('checkpoint', false, `${from}: the row at seq ${c.size} does not hash to the signed root: history was rewritten or cut`);
  else check('checkpoint', true, `${from}: signed by ${opened.signedBy}, seq ${c.size}, extended by the chain`);
}
if (notes.length === 0) check('checkpoint', true, 'no checkpoints in the pack (none given)');

// 4. Journals balance and were recorded by events of the chain.
let journals = 0;
for await (const j of lines(join(here, 'journals.jsonl'))) {
  journals += 1;
  const dr = j.lines.reduce((n, l) => n + l.debitCents, 0);
  const cr = j.lines.reduce((n, l) => n + l.creditCents, 0);
  if (!j.lines.every((l) => Number.isSafeInteger(l.debitCents) && Number.isSafeInteger(l.creditCents))) check('journals', false, `${j.id}: an amount is not whole cents`);
  if (dr !== cr) check('journals', false, `${j.id}: debits ${dr} ≠ credits ${cr}`);
  if (!ledgerIds.has(j.ledgerId)) check('journals', false, `${j.id}: ledger id ${j.ledgerId} is not an event of the chain`);
}
if (!checks.some((c) => c.name === 'journals')) check('journals', true, `${journals} journals balance and each was recorded by an event`);

// 5. Approvals: each request, and each use of a decision, is an event of the chain.
let approvals = 0;
for await (const a of lines(join(here, 'approvals.jsonl'))) {
  approvals += 1;
  if (!ledgerIds.has(a.ledger_id)) check('approvals', false, `${a.id}: its request ${a.ledger_id} is not an event of the chain`);
  if (a.used_ledger_id && !ledgerIds.has(a.used_ledger_id)) check('approvals', false, `${a.id}: the act it allowed (${a.used_ledger_id}) is not an event of the chain`);
}
if (!checks.some((c) => c.name === 'approvals')) check('approvals', true, `${approvals} approvals tie to events`);

// 6. Documents: each file hashes to its recorded SHA-256; a receipt's event names that hash.
let documents = 0;
for await (const d of lines(join(here, 'documents.jsonl'))) {
  documents += 1;
  const actual = await sha256File(join(here, d.path));
  if (actual !== d.sha256) check('documents', false, `${d.path}: SHA-256 ${actual} ≠ recorded ${d.sha256}`);
  if (d.ledgerId) {
    const e = ledgerIds.get(d.ledgerId);
    if (!e || !e.payload.includes(`"${d.sha256}"`)) check('documents', false, `${d.path}: its event ${d.ledgerId} does not record this SHA-256`);
  }
}
if (!checks.some((c) => c.name === 'documents')) check('documents', true, `${documents} documents match their recorded hashes`);

const ok = checks.every((c) => c.ok);
if (json) process.stdout.write(`${JSON.stringify({ ok, checks })}\n`);
else {
  for (const c of checks) process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}\n`);
  process.stdout.write(ok ? 'everything ties out\n' : 'NOT OK\n');
}
process.exitCode = ok ? 0 : 1;
