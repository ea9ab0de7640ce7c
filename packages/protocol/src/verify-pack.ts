import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { journalLinesSha256, type FileBinding, type JournalBinding, type JournalLineForm } from './bindings.js';
import { ChainVerifier, ledgerId, type StoredEventRow } from './chain.js';
import { openCheckpoint } from './checkpoint.js';

/**
 * The audit pack's verifier: one implementation, run by the pack's own `verify.mjs` (this file
 * travels in the pack's lib/ with the protocol files it imports) and by the protocol package's
 * command (`npx @finance-desk/protocol verify-pack PACK`), so an auditor need not trust the copy
 * inside the pack. Only Node's built-in modules and the protocol's chain, checkpoint and binding
 * code: nothing of the server.
 *
 * It checks every file against manifest.json, recomputes the chain over the stored payload bytes
 * (from genesis, or, in a period's pack, from the signed checkpoint it starts at: that checkpoint
 * must open with the verifier key and sign the head the chain links to), opens every checkpoint (the pack's and the auditor's) with the verifier key, and ties every
 * journal, approval and document to the chain. A journal is tied by its lines: the event that
 * posted it binds their digest (bindings.ts), and the pack's lines must hash to it; a payment or
 * lodgement file by its bytes, against the SHA-256 its event binds. A journal or file whose event
 * was written before the binding is `unbound`: counted and listed, never counted as verified.
 */

export interface PackCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

export interface PackVerdict {
  /** No check failed. */
  readonly ok: boolean;
  /** `ok`, and nothing was unbound: everything in the pack is verified against the chain. */
  readonly complete: boolean;
  readonly checks: readonly PackCheck[];
  readonly summary: {
    /** Where the pack's chain starts: seq 0 from genesis, else a signed checkpoint's seq. */
    readonly startSeq: number;
    readonly events: number;
    readonly journals: { readonly total: number; readonly bound: number; readonly unbound: readonly string[] };
    readonly files: { readonly total: number; readonly bound: number; readonly unbound: readonly string[] };
  };
}

export interface PackOptions {
  /** The verifier key the auditor was given (else the pack's own verifier-key.txt is used, and said so). */
  readonly vkey?: string | undefined;
  /** Paths of checkpoints the auditor holds, checked against the pack's chain. */
  readonly checkpoints?: readonly string[];
}

/** How many unbound ids a check's detail names (the summary lists them all). */
const NAMED = 20;

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function* jsonLines<T>(path: string): AsyncGenerator<T> {
  if (!existsSync(path)) return;
  const rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of rl) if (line) yield JSON.parse(line) as T;
}

/** A journal as journals.jsonl holds it. */
interface PackJournal {
  readonly id: string;
  readonly date: string;
  readonly ledgerId: string;
  readonly lines: readonly (JournalLineForm & { readonly lineNo?: number })[];
}

/** A document as documents.jsonl holds it. */
interface PackDocument {
  readonly id: string;
  readonly kind: string;
  readonly path: string;
  readonly sha256: string;
  readonly fileName?: string;
  readonly ledgerId: string | null;
}

/** Where a binding was found: the event's seq and ledger id. */
interface Bound<B> {
  readonly binding: B;
  readonly seq: number;
  readonly ledgerId: string;
}

const list = (ids: readonly string[]) => `${ids.slice(0, NAMED).join(', ')}${ids.length > NAMED ? `, and ${ids.length - NAMED} more` : ''}`;

/** Verify an unpacked audit pack in `dir`. Never throws for what the pack holds: a problem is a failed check. */
export async function verifyAuditPack(dir: string, options: PackOptions = {}): Promise<PackVerdict> {
  const checks: PackCheck[] = [];
  const check = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });
  const failed = (name: string) => checks.some((c) => c.name === name && !c.ok);

  // 1. Every file is the one the manifest names.
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    organisation: { id: string };
    period: { from: string; to: string };
    head: { seq: number; rowHash: string };
    /** A period's pack that starts at a signed checkpoint instead of genesis (absent: from genesis). */
    start?: { seq: number; rowHash: string; checkpoint: string };
    files: { path: string; sha256: string }[];
  };
  const start = manifest.start ?? { seq: 0, rowHash: '', checkpoint: '' };
  let filesOk = true;
  for (const f of manifest.files) {
    const path = join(dir, f.path);
    if (!existsSync(path) || (await sha256File(path)) !== f.sha256) {
      filesOk = false;
      check('files', false, `${f.path} is missing or differs from manifest.json`);
    }
  }
  if (filesOk) check('files', true, `${manifest.files.length} files match manifest.json`);

  // 2. The chain, recomputed over the stored bytes of every payload; the bindings its events carry.
  // From a signed checkpoint, the first event must link to its root; the signature is checked below.
  const verifier = new ChainVerifier({ seq: start.seq, rowHash: start.rowHash });
  const rowHashAt = new Map<number, string>(start.seq > 0 ? [[start.seq, start.rowHash]] : []);
  const events = new Map<string, { seq: number; bindsJournals: boolean }>();
  const journalBindings = new Map<string, Bound<JournalBinding>>();
  const fileBindings = new Map<string, Bound<FileBinding>>();
  // Payloads that record a SHA-256 (a receipt's or an attachment's event among them), kept for the documents check.
  const hashing = new Map<string, string>();
  for await (const row of jsonLines<StoredEventRow>(join(dir, 'events.jsonl'))) {
    if (!verifier.pushStored(row)) break;
    rowHashAt.set(row.seq, row.row_hash);
    const id = ledgerId(row.row_hash);
    // Only a payload that names a binding is parsed (the chain check above read its bytes).
    const mayBind = row.payload.includes('"journals":') || row.payload.includes('"files":');
    const payload = mayBind ? (JSON.parse(row.payload) as { journals?: JournalBinding[]; files?: FileBinding[] }) : null;
    events.set(id, { seq: row.seq, bindsJournals: Array.isArray(payload?.journals) });
    if (row.payload.includes('"sha256":')) hashing.set(id, row.payload);
    for (const b of payload?.journals ?? []) journalBindings.set(b.id, { binding: b, seq: row.seq, ledgerId: id });
    for (const b of payload?.files ?? []) fileBindings.set(b.outboxId, { binding: b, seq: row.seq, ledgerId: id });
  }
  const verdict = verifier.verdict();
  if (verdict.ok) {
    const head = manifest.head;
    const atHead = verdict.head.seq === head.seq && verdict.head.rowHash === head.rowHash;
    check(
      'chain',
      atHead,
      atHead
        ? `${verdict.rows} events verify from ${start.seq > 0 ? `the signed checkpoint at seq ${start.seq}` : 'genesis'} to seq ${head.seq}`
        : `the events end at seq ${verdict.head.seq}, the manifest says ${head.seq}`,
    );
  } else {
    check('chain', false, `broken at seq ${verdict.seq}: ${verdict.reason} (expected ${verdict.expected}, found ${verdict.actual})`);
  }

  // 3. Checkpoints: the pack's own and any the auditor holds, opened with the verifier key.
  const given = options.vkey;
  const packKey = existsSync(join(dir, 'verifier-key.txt')) ? readFileSync(join(dir, 'verifier-key.txt'), 'utf8').trim() : null;
  const vkey = given ?? packKey;
  if (!given && packKey)
    check('verifier key', true, 'using the key inside the pack; pass --key with the copy you were given to rely on it');
  if (given && packKey && given !== packKey) check('verifier key', false, 'the key inside the pack differs from the one you gave');
  const notes: { from: string; note: string }[] = [];
  const cpDir = join(dir, 'checkpoints');
  if (existsSync(cpDir))
    for (const f of readdirSync(cpDir).sort()) notes.push({ from: `checkpoints/${f}`, note: readFileSync(join(cpDir, f), 'utf8') });
  for (const held of options.checkpoints ?? []) notes.push({ from: held, note: readFileSync(held, 'utf8') });
  const origin = manifest.organisation.id;
  // A pack that starts at a checkpoint rests on it: the checkpoint it names must open with the key
  // and sign exactly the head the chain starts from, or nothing before the start is vouched for.
  let startSigned = false;
  for (const { from, note } of notes) {
    if (!vkey) {
      check('checkpoint', false, `${from}: no verifier key (pass --key)`);
      continue;
    }
    const opened = openCheckpoint(note, vkey);
    if (!opened.ok) {
      check('checkpoint', false, `${from}: ${opened.reason}`);
      continue;
    }
    const c = opened.checkpoint;
    if (!c.origin.endsWith(`/${origin}`)) check('checkpoint', false, `${from}: its log ${c.origin} is not this organisation's`);
    else if (c.size < start.seq)
      check(
        'checkpoint',
        true,
        `${from}: seq ${c.size} is before this pack's start at seq ${start.seq}, so this pack cannot check it; a pack with the full history can`,
      );
    else if (rowHashAt.get(c.size) !== c.rootHash)
      check('checkpoint', false, `${from}: the row at seq ${c.size} does not hash to the signed root: history was rewritten or cut`);
    else {
      if (from === start.checkpoint && c.size === start.seq) startSigned = true;
      check('checkpoint', true, `${from}: signed by ${opened.signedBy}, seq ${c.size}, extended by the chain`);
    }
  }
  if (notes.length === 0) check('checkpoint', true, 'no checkpoints in the pack (none given)');
  if (start.seq > 0) {
    check(
      'start',
      startSigned,
      startSigned
        ? `the chain starts at seq ${start.seq}, the head ${start.checkpoint} signs; the history before it is vouched for by that signature`
        : `the chain starts at seq ${start.seq}, but ${start.checkpoint || 'no checkpoint'} does not open with the verifier key and sign that head: nothing vouches for the history before it`,
    );
  }

  // 4. Journals balance, were recorded by events of the chain, and their lines are the ones those
  //    events bound; every journal the chain posted in the period is in the pack.
  let journals = 0;
  let journalsBound = 0;
  const unboundJournals: string[] = [];
  const seen = new Set<string>();
  for await (const j of jsonLines<PackJournal>(join(dir, 'journals.jsonl'))) {
    journals += 1;
    if (seen.has(j.id)) check('journals', false, `${j.id}: listed twice in journals.jsonl`);
    seen.add(j.id);
    const dr = j.lines.reduce((n, l) => n + l.debitCents, 0);
    const cr = j.lines.reduce((n, l) => n + l.creditCents, 0);
    if (!j.lines.every((l) => Number.isSafeInteger(l.debitCents) && Number.isSafeInteger(l.creditCents)))
      check('journals', false, `${j.id}: an amount is not whole cents`);
    if (dr !== cr) check('journals', false, `${j.id}: debits ${dr} ≠ credits ${cr}`);
    const event = events.get(j.ledgerId);
    if (!event) {
      check('journals', false, `${j.id}: ledger id ${j.ledgerId} is not an event of the chain`);
      continue;
    }
    const bound = journalBindings.get(j.id);
    if (!bound) {
      if (event.bindsJournals) check('journals', false, `${j.id}: not among the journals event seq ${event.seq} (${j.ledgerId}) posted`);
      else unboundJournals.push(j.id);
      continue;
    }
    const lines = journalLinesSha256(j.lines);
    if (bound.ledgerId !== j.ledgerId)
      check('journals', false, `${j.id}: names event ${j.ledgerId}, but event seq ${bound.seq} (${bound.ledgerId}) posted it`);
    else if (lines !== bound.binding.linesSha256)
      check(
        'journals',
        false,
        `${j.id}: its lines hash to ${lines}, not to the ${bound.binding.linesSha256} event seq ${bound.seq} bound: the journal was rewritten`,
      );
    else if (j.date !== bound.binding.date)
      check('journals', false, `${j.id}: dated ${j.date}, but event seq ${bound.seq} posted it on ${bound.binding.date}`);
    else journalsBound += 1;
  }
  for (const [id, b] of journalBindings) {
    const d = b.binding.date;
    if (d >= manifest.period.from && d <= manifest.period.to && !seen.has(id)) {
      check('journals', false, `${id}: posted by event seq ${b.seq} on ${d}, in the period, but missing from journals.jsonl`);
    }
  }
  if (!failed('journals')) {
    check('journals', true, `${journals} journals balance; ${journalsBound} match the lines their events bound`);
  }
  if (unboundJournals.length > 0) {
    check(
      'journals',
      true,
      `UNBOUND: ${unboundJournals.length} journals were posted by events written before journals were bound, so their lines are not verified: ${list(unboundJournals)}`,
    );
  }

  // 5. Approvals: each request, and each use of a decision, is an event of the chain.
  let approvals = 0;
  for await (const a of jsonLines<{ id: string; ledger_id: string; used_ledger_id: string | null }>(join(dir, 'approvals.jsonl'))) {
    approvals += 1;
    if (!events.has(a.ledger_id)) check('approvals', false, `${a.id}: its request ${a.ledger_id} is not an event of the chain`);
    if (a.used_ledger_id && !events.has(a.used_ledger_id))
      check('approvals', false, `${a.id}: the act it allowed (${a.used_ledger_id}) is not an event of the chain`);
  }
  if (!failed('approvals')) check('approvals', true, `${approvals} approvals tie to events`);

  // 6. Documents: each file hashes to its recorded SHA-256; a receipt's event, and the event that
  //    attached a file to an invoice, bill or journal, names that hash; a payment or lodgement
  //    file is the one its event bound; every bound file is in the pack.
  let documents = 0;
  let filesTotal = 0;
  let filesBound = 0;
  const unboundFiles: string[] = [];
  const packed = new Set<string>();
  for await (const d of jsonLines<PackDocument>(join(dir, 'documents.jsonl'))) {
    documents += 1;
    const path = join(dir, d.path);
    const actual = existsSync(path) ? await sha256File(path) : 'nothing (missing)';
    if (actual !== d.sha256) check('documents', false, `${d.path}: SHA-256 ${actual} ≠ recorded ${d.sha256}`);
    if (d.kind === 'receipt' || d.kind === 'attachment') {
      const payload = d.ledgerId ? hashing.get(d.ledgerId) : undefined;
      if (!payload || !payload.includes(`"${d.sha256}"`))
        check('documents', false, `${d.path}: its event ${d.ledgerId} does not record this SHA-256`);
      continue;
    }
    filesTotal += 1;
    packed.add(d.id);
    const bound = fileBindings.get(d.id);
    if (!bound) {
      unboundFiles.push(d.path);
      continue;
    }
    if (actual !== bound.binding.sha256)
      check(
        'documents',
        false,
        `${d.path}: SHA-256 ${actual}, not the ${bound.binding.sha256} event seq ${bound.seq} bound for ${bound.binding.fileName}: the file was swapped`,
      );
    else if (d.fileName !== undefined && d.fileName !== bound.binding.fileName)
      check('documents', false, `${d.path}: named ${d.fileName}, but event seq ${bound.seq} bound ${bound.binding.fileName}`);
    else filesBound += 1;
  }
  for (const [id, b] of fileBindings) {
    if (!packed.has(id))
      check('documents', false, `${b.binding.fileName} (outbox ${id}): bound by event seq ${b.seq} but missing from the pack`);
  }
  if (!failed('documents')) {
    check(
      'documents',
      true,
      `${documents} documents match their recorded hashes; ${filesBound} of ${filesTotal} payment and lodgement files match the SHA-256 their events bound`,
    );
  }
  if (unboundFiles.length > 0) {
    check(
      'documents',
      true,
      `UNBOUND: ${unboundFiles.length} payment or lodgement files have no event binding their SHA-256 (queued before files were bound, or a lodgement not yet delivered), so they are not verified: ${list(unboundFiles)}`,
    );
  }

  const ok = checks.every((c) => c.ok);
  return {
    ok,
    complete: ok && unboundJournals.length === 0 && unboundFiles.length === 0,
    checks,
    summary: {
      startSeq: start.seq,
      events: verdict.rows,
      journals: { total: journals, bound: journalsBound, unbound: unboundJournals },
      files: { total: filesTotal, bound: filesBound, unbound: unboundFiles },
    },
  };
}

/** Exit codes: 0 everything ties out, 1 something does not, 2 a usage error, 3 no failure but something is unbound. */
export const PACK_EXIT = { ok: 0, failed: 1, usage: 2, unbound: 3 } as const;

export function exitCodeOf(v: PackVerdict): number {
  if (!v.ok) return PACK_EXIT.failed;
  return v.complete ? PACK_EXIT.ok : PACK_EXIT.unbound;
}

/** The report as text: one line per check, then the verdict. */
export function formatPackVerdict(v: PackVerdict): string {
  const lines = v.checks.map((c) => `${!c.ok ? 'FAIL' : c.detail.startsWith('UNBOUND') ? 'warn' : 'ok  '} ${c.name}: ${c.detail}`);
  const s = v.summary;
  lines.push(
    `journals: ${s.journals.bound} bound and verified, ${s.journals.unbound.length} unbound, of ${s.journals.total}; ` +
      `payment and lodgement files: ${s.files.bound} bound and verified, ${s.files.unbound.length} unbound, of ${s.files.total}`,
  );
  lines.push(!v.ok ? 'NOT OK' : v.complete ? 'everything ties out' : 'nothing failed, but what is unbound above is not verified');
  return `${lines.join('\n')}\n`;
}

/** Parsed command-line flags shared by verify.mjs and the protocol's command. */
export function packFlags(
  args: readonly string[],
): { vkey: string | undefined; checkpoints: string[]; json: boolean; rest: string[] } | { error: string } {
  let vkey: string | undefined;
  const checkpoints: string[] = [];
  const rest: string[] = [];
  let json = false;
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i] as string;
    if (a === '--json') json = true;
    else if (a === '--key' || a === '--vkey' || a === '--checkpoint') {
      const value = args[i + 1];
      if (value === undefined) return { error: `${a} needs a value` };
      i += 1;
      if (a === '--checkpoint') checkpoints.push(value);
      else vkey = value;
    } else if (a.startsWith('--')) return { error: `unknown flag ${a}` };
    else rest.push(a);
  }
  return { vkey, checkpoints, json, rest };
}

/** Verify `dir` with the flags given, write the report to `out`, and answer the exit code. */
export async function runPackVerifier(dir: string, args: readonly string[], out: { write(s: string): unknown }): Promise<number> {
  const flags = packFlags(args);
  if ('error' in flags) {
    out.write(`${flags.error}\n`);
    return PACK_EXIT.usage;
  }
  const v = await verifyAuditPack(dir, { vkey: flags.vkey, checkpoints: flags.checkpoints });
  out.write(flags.json ? `${JSON.stringify(v)}\n` : formatPackVerdict(v));
  return exitCodeOf(v);
}
