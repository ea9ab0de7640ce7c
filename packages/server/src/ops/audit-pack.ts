import { canonicalJson, ledgerId, parseVerifierKey } from '@finance-desk/protocol';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventsAfter, headOf } from '../ledger/read.js';
import { fileOf, type OutboxRow } from './files.js';
import type { Database, Queryable } from '../storage/types.js';
import { TarGzWriter } from './tar.js';

/**
 * The audit pack: one .tar.gz an auditor checks offline with nothing but Node
 * and the files in it. Inside, under one folder:
 * - events.jsonl: every event from genesis to the head, each with its payload's stored bytes; or,
 *   for a period's pack (`history: 'since-checkpoint'`), from the last checkpoint signed before the
 *   period, whose signature vouches for everything before it (the pack then holds only the
 *   approvals, receipts, files and checkpoints of the events it carries);
 * - journals.jsonl: the period's journals with their lines (each line every field the event that
 *   posted it binds: protocol bindings.ts); approvals.jsonl: every approval with its decision;
 *   documents/ and documents.jsonl: stored receipts, the files kept with invoices, bills and
 *   journals, and the payment and lodgement files the outbox carried (the files' exact bytes),
 *   each with its SHA-256 and the ledger id that recorded or bound it;
 * - checkpoints/: the organisation's signed checkpoints, and verifier-key.txt (the operator's key;
 *   an auditor should prefer the copy they were given separately, `--vkey`);
 * - verify.mjs with lib/ (the protocol package's verifier, verify-pack.js, and the canonical JSON,
 *   hash, chain, checkpoint and binding code it imports, which import only Node's built-in
 *   modules) and manifest.json (every file's SHA-256).
 * `node verify.mjs [--key KEY] [--checkpoint FILE]` runs the same checks as the published
 * `npx @finance-desk/protocol verify-pack PACK`: exit 0 everything ties out, 1 something does not,
 * 3 nothing failed but some journals or files are unbound (recorded before the binding).
 */
export interface AuditPackOptions {
  readonly orgId: string;
  readonly orgSlug: string;
  readonly from: string;
  readonly to: string;
  readonly out: string;
  readonly vkey: string | null;
  readonly now: string;
  /**
   * 'full' (the default): every event from genesis. 'since-checkpoint': from the last checkpoint
   * signed with `vkey`'s key before `from`, so a year's pack of an old organisation carries that
   * year, not its whole past; from genesis when there is no such checkpoint, or when a journal of
   * the period was posted before it (a forward-dated entry), as the report says.
   */
  readonly history?: 'full' | 'since-checkpoint';
}

/** Where the pack's chain starts, when not at genesis. */
export interface PackStart {
  readonly seq: number;
  readonly rowHash: string;
  /** The checkpoint file in the pack that signs this head. */
  readonly checkpoint: string;
}

export interface AuditPackReport {
  readonly file: string;
  readonly sha256: string;
  readonly events: number;
  readonly journals: number;
  readonly approvals: number;
  readonly documents: number;
  readonly checkpoints: number;
  /** The signed checkpoint the chain starts at; null: from genesis. */
  readonly start: PackStart | null;
  /** Why a since-checkpoint pack starts at genesis instead (absent when it did not fall back). */
  readonly fullHistoryReason?: string;
}

interface StartCandidate {
  readonly seq: number;
  readonly rowHash: string;
  readonly note: string;
  readonly createdAt: string;
}

/** The last checkpoint signed with the verifier key's key before the period's first day (UTC). */
async function checkpointBefore(q: Queryable, orgId: string, vkey: string, from: string): Promise<StartCandidate | null> {
  const row = await q.get<{ seq: number; row_hash: string; note: string; created_at: string }>(
    'SELECT seq, row_hash, note, created_at FROM checkpoints WHERE org_id = ? AND key_name = ? AND created_at < ? ORDER BY seq DESC LIMIT 1',
    [orgId, parseVerifierKey(vkey).name, from],
  );
  return row ? { seq: Number(row.seq), rowHash: row.row_hash, note: row.note, createdAt: row.created_at } : null;
}

const checkpointFile = (seq: number, i: number) => `checkpoints/${String(seq).padStart(12, '0')}-${i}.txt`;

const PAGE = 1000;

/** The protocol files the verifier imports (compiled JS; they import only each other and node:crypto). */
const PROTOCOL_LIB = [
  'canonical-json.js',
  'canonical-text.js',
  'hash.js',
  'chain.js',
  'checkpoint.js',
  'bindings.js',
  'verify-pack.js',
] as const;

function protocolDist(): string {
  // Resolved through the package, so it is the protocol build this server runs with.
  return join(fileURLToPath(new URL('.', import.meta.resolve('@finance-desk/protocol'))));
}

const VERIFIER = fileURLToPath(new URL('../../audit/verify.mjs', import.meta.url));

class Jsonl {
  lines = 0;
  private readonly stream;
  constructor(readonly path: string) {
    this.stream = createWriteStream(path);
  }
  async write(value: unknown): Promise<void> {
    this.lines += 1;
    if (!this.stream.write(`${JSON.stringify(value)}\n`)) await once(this.stream, 'drain');
  }
  /** A line whose fields are written as given (the payload's stored bytes go in unparsed). */
  async writeRaw(text: string): Promise<void> {
    this.lines += 1;
    if (!this.stream.write(`${text}\n`)) await once(this.stream, 'drain');
  }
  async close(): Promise<void> {
    this.stream.end();
    await once(this.stream, 'finish');
  }
}

/**
 * Rows of stored files (receipts, attachments) a page: each may be ~1 MB as base64, so a page of
 * them is held to ~20 MB rather than PAGE files.
 */
const FILE_PAGE = 20;

async function* paged<T extends Record<string, unknown>>(
  q: Queryable,
  sql: string,
  args: readonly (string | number)[],
  key: (row: T) => string | number,
  page = PAGE,
) {
  let after: string | number | null = null;
  for (;;) {
    const rows: T[] = await q.all<T>(
      sql.replace('/*AFTER*/', after === null ? '' : `AND ${typeof after === 'number' ? 'seq > ?' : 'id > ?'}`),
      [...args, ...(after === null ? [] : [after])],
    );
    for (const r of rows) yield r;
    if (rows.length < page) return;
    after = key(rows[rows.length - 1] as T);
  }
}

export async function writeAuditPack(db: Database, o: AuditPackOptions): Promise<AuditPackReport> {
  if (existsSync(o.out)) throw new Error(`--out: ${o.out} exists; choose a new file`);
  const work = mkdtempSync(join(tmpdir(), 'fd-audit-'));
  const root = `audit-pack-${o.orgSlug}-${o.from}-${o.to}`;
  try {
    return await db.read(async (q) => {
      const head = (await headOf(q, o.orgId)) ?? { seq: 0, rowHash: '' };
      const files: { path: string; sha256: string; bytes: number }[] = [];
      const tar = new TarGzWriter(o.out);
      const put = async (name: string, content: Buffer | string, mode?: number) => {
        const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
        files.push({ path: name, sha256: createHash('sha256').update(buf).digest('hex'), bytes: buf.length });
        await tar.add(`${root}/${name}`, buf, mode);
      };
      const putFile = async (name: string, path: string) => {
        files.push({ path: name, sha256: await sha256File(path), bytes: statSync(path).size });
        await tar.addFile(`${root}/${name}`, path);
      };

      // Events, from genesis (or the start checkpoint) to head, in one snapshot; the stored payload
      // bytes as a string. The event that bound each payment or lodgement file (its outbox row) is
      // noted for documents.jsonl; from a checkpoint, every event's ledger id is kept, to keep only
      // what those events recorded.
      const writeEvents = async (after: number) => {
        const fileEvents = new Map<string, string>();
        const carried = new Set<string>();
        const events = new Jsonl(join(work, `events-${after}.jsonl`));
        for (let cursor = after; ;) {
          const page = await eventsAfter(q, o.orgId, cursor, PAGE);
          for (const e of page) {
            await events.write({ ...e, seq: Number(e.seq) });
            if (after > 0) carried.add(ledgerId(e.row_hash));
            if (e.payload.includes('"files":')) {
              for (const f of (JSON.parse(e.payload) as { files?: { outboxId: string }[] }).files ?? [])
                fileEvents.set(f.outboxId, ledgerId(e.row_hash));
            }
          }
          const last = page.at(-1);
          if (page.length < PAGE || last === undefined) break;
          cursor = Number(last.seq);
        }
        await events.close();
        return { events, fileEvents, carried };
      };

      let candidate = o.history === 'since-checkpoint' && o.vkey ? await checkpointBefore(q, o.orgId, o.vkey, o.from) : null;
      let fullHistoryReason: string | undefined =
        o.history !== 'since-checkpoint'
          ? undefined
          : !o.vkey
            ? 'no checkpoint key is configured, so no checkpoint can vouch for the history before the period'
            : candidate === null
              ? `no checkpoint was signed before ${o.from}`
              : undefined;
      let written = await writeEvents(candidate?.seq ?? 0);
      if (candidate) {
        // Every journal of the period must be posted by an event the pack carries.
        for await (const j of paged<{ id: string; ledger_id: string }>(
          q,
          `SELECT id, ledger_id FROM journals WHERE org_id = ? AND date >= ? AND date <= ? /*AFTER*/ ORDER BY id LIMIT ${PAGE}`,
          [o.orgId, o.from, o.to],
          (r) => r.id,
        )) {
          if (!written.carried.has(j.ledger_id)) {
            fullHistoryReason = `journal ${j.id}, dated in the period, was posted before the checkpoint at seq ${candidate.seq}`;
            candidate = null;
            written = await writeEvents(0);
            break;
          }
        }
      }
      const { events, fileEvents, carried } = written;
      const startSeq = candidate?.seq ?? 0;
      /** Whether the pack carries what this event recorded (everything, from genesis). */
      const inPack = (ledger: string | null) => startSeq === 0 || (ledger !== null && carried.has(ledger));

      const journals = new Jsonl(join(work, 'journals.jsonl'));
      for await (const j of paged<{ id: string; date: string; memo: string; source_kind: string; source_id: string; ledger_id: string }>(
        q,
        `SELECT id, date, memo, source_kind, source_id, ledger_id FROM journals WHERE org_id = ? AND date >= ? AND date <= ? /*AFTER*/ ORDER BY id LIMIT ${PAGE}`,
        [o.orgId, o.from, o.to],
        (r) => r.id,
      )) {
        const lines = await q.all<{
          line_no: number;
          account_code: string;
          debit_cents: number;
          credit_cents: number;
          tax_code: string | null;
          tax_base_cents: number;
          gst_cents: number;
          doc_id: string | null;
          description: string;
          tracking1: string | null;
          tracking2: string | null;
        }>(
          'SELECT line_no, account_code, debit_cents, credit_cents, tax_code, tax_base_cents, gst_cents, doc_id, description, tracking1, tracking2 FROM journal_lines WHERE org_id = ? AND journal_id = ? ORDER BY line_no',
          [o.orgId, j.id],
        );
        await journals.write({
          id: j.id,
          date: j.date,
          memo: j.memo,
          source: { kind: j.source_kind, id: j.source_id },
          ledgerId: j.ledger_id,
          lines: lines.map((l) => ({
            lineNo: Number(l.line_no),
            accountCode: l.account_code,
            debitCents: Number(l.debit_cents),
            creditCents: Number(l.credit_cents),
            taxCode: l.tax_code,
            taxBaseCents: Number(l.tax_base_cents),
            gstCents: Number(l.gst_cents),
            docId: l.doc_id,
            description: l.description,
            // Tracking option ids only when set, as the lines' digest covers them (bindings.ts).
            ...(l.tracking1 !== null ? { tracking1: l.tracking1 } : {}),
            ...(l.tracking2 !== null ? { tracking2: l.tracking2 } : {}),
          })),
        });
      }
      await journals.close();

      const approvals = new Jsonl(join(work, 'approvals.jsonl'));
      for await (const a of paged<Record<string, unknown> & { id: string }>(
        q,
        `SELECT id, action_class, subject_id, payload_hash, method, summary, status, requested_by, requested_at, expires_at, decided_by, decided_at, reason, used_at, used_ledger_id, ledger_id
           FROM approvals WHERE org_id = ? /*AFTER*/ ORDER BY id LIMIT ${PAGE}`,
        [o.orgId],
        (r) => r.id,
      )) {
        if (inPack(a.ledger_id as string | null)) await approvals.write(a);
      }
      await approvals.close();

      // Documents: stored receipts, and the payment and lodgement files the outbox carried.
      const docs: {
        id: string;
        kind: string;
        path: string;
        fileName?: string;
        document?: { kind: string; id: string };
        sha256: string;
        bytes: number;
        ledgerId: string | null;
      }[] = [];
      for await (const r of paged<{
        id: string;
        sha256: string;
        filename: string;
        mime_type: string;
        content_base64: string;
        ledger_id: string;
      }>(
        q,
        `SELECT id, sha256, filename, mime_type, content_base64, ledger_id FROM receipts WHERE org_id = ? /*AFTER*/ ORDER BY id LIMIT ${FILE_PAGE}`,
        [o.orgId],
        (r) => r.id,
        FILE_PAGE,
      )) {
        if (!inPack(r.ledger_id)) continue;
        const bytes = Buffer.from(r.content_base64, 'base64');
        const path = `documents/receipt-${r.id}`;
        await put(path, bytes);
        docs.push({ id: r.id, kind: 'receipt', path, sha256: r.sha256, bytes: bytes.length, ledgerId: r.ledger_id });
      }
      // Files kept with invoices, bills and journals: the bytes once per SHA-256 however many
      // documents keep them, a line per document's file with the event that attached it (its
      // payload records the SHA-256, as a receipt's does).
      const attached = new Set<string>();
      for await (const a of paged<{
        id: string;
        doc_kind: string;
        doc_id: string;
        sha256: string;
        filename: string;
        content_base64: string;
        ledger_id: string;
      }>(
        q,
        `SELECT a.id, a.doc_kind, a.doc_id, a.sha256, a.filename, c.content_base64, a.ledger_id
           FROM document_attachments a JOIN attachment_contents c ON c.org_id = a.org_id AND c.sha256 = a.sha256
          WHERE a.org_id = ? /*AFTER*/ ORDER BY a.id LIMIT ${FILE_PAGE}`,
        [o.orgId],
        (r) => r.id,
        FILE_PAGE,
      )) {
        if (!inPack(a.ledger_id)) continue;
        const bytes = Buffer.from(a.content_base64, 'base64');
        const path = `documents/attachment-${a.sha256}`;
        if (!attached.has(a.sha256)) await put(path, bytes);
        attached.add(a.sha256);
        docs.push({
          id: a.id,
          kind: 'attachment',
          path,
          fileName: a.filename,
          document: { kind: a.doc_kind, id: a.doc_id },
          sha256: a.sha256,
          bytes: bytes.length,
          ledgerId: a.ledger_id,
        });
      }
      // Each file as delivered (ops/files.ts: an ABA file's ASCII, a lodgement's UTF-8), which is
      // what its event's SHA-256 is of; ledgerId is that event's, null when none binds it.
      // An STP pay event goes in exactly as lodged, every payee's TFN in full, although no key is
      // ever served one (books.file masks them): the verifier checks each file byte for byte
      // against the SHA-256 its event bound, and a masked copy could be altered (a YTD figure, a
      // payee) without that check seeing it. So the pack keeps the exact bytes, the file unpacks
      // owner-readable only (0600, like the lodgement sink's), and README.txt says the pack holds
      // TFNs (docs/decisions.md "TFNs in files").
      for await (const m of paged<OutboxRow & Record<string, unknown>>(
        q,
        `SELECT id, channel, body, created_at, delivered_at, last_error FROM outbox WHERE org_id = ? AND channel <> 'email' /*AFTER*/ ORDER BY id LIMIT ${PAGE}`,
        [o.orgId],
        (r) => r.id,
      )) {
        const f = fileOf(m);
        if (!f) continue;
        // From a checkpoint: the files its events bound, and unbound ones queued since it was signed.
        if (startSeq > 0 && !fileEvents.has(m.id) && !(candidate !== null && m.created_at >= candidate.createdAt)) continue;
        const path = `documents/${f.file.kind}-${m.id}-${f.file.filename}`;
        await put(path, f.bytes, f.file.kind === 'stp_pay_event' ? 0o600 : undefined);
        docs.push({
          id: m.id,
          kind: f.file.kind,
          path,
          fileName: f.file.filename,
          sha256: f.file.sha256,
          bytes: f.bytes.length,
          ledgerId: fileEvents.get(m.id) ?? null,
        });
      }

      // The checkpoints from the start on (from genesis: all of them); the start's own among them.
      const checkpoints = await q.all<{ seq: number; note: string }>(
        'SELECT seq, note FROM checkpoints WHERE org_id = ? AND seq >= ? ORDER BY seq, key_name',
        [o.orgId, startSeq],
      );
      let start: PackStart | null = null;
      for (const [i, c] of checkpoints.entries()) {
        const name = checkpointFile(Number(c.seq), i);
        await put(name, c.note);
        if (candidate && start === null && Number(c.seq) === candidate.seq && c.note === candidate.note)
          start = { seq: candidate.seq, rowHash: candidate.rowHash, checkpoint: name };
      }
      if (candidate && !start) throw new Error(`the start checkpoint at seq ${candidate.seq} vanished while the pack was written`);

      await putFile('events.jsonl', events.path);
      await putFile('journals.jsonl', journals.path);
      await putFile('approvals.jsonl', approvals.path);
      await put('documents.jsonl', docs.map((d) => `${JSON.stringify(d)}\n`).join(''));
      if (o.vkey) await put('verifier-key.txt', `${o.vkey}\n`);
      const lib = protocolDist();
      for (const f of PROTOCOL_LIB) await putFile(`lib/${f}`, join(lib, f));
      await putFile('verify.mjs', VERIFIER);
      await put('package.json', `${JSON.stringify({ name: 'finance-desk-audit-pack', private: true, type: 'module' }, null, 2)}\n`);
      await put(
        'README.txt',
        [
          `Finance Desk audit pack: organisation ${o.orgSlug} (${o.orgId}), journals ${o.from} to ${o.to}, written ${o.now}.`,
          start
            ? `The chain is included from the checkpoint signed at seq ${start.seq} (${start.checkpoint}), which vouches for everything before it, to its head at seq ${head.seq} (ledger id ${ledgerId(head.rowHash)}).`
            : `The chain is included from genesis to its head at seq ${head.seq} (ledger id ${ledgerId(head.rowHash)}).`,
          '',
          'Check it offline with Node.js 20 or later, from this folder:',
          '  node verify.mjs --key "<the verifier key you were given>" [--checkpoint old-checkpoint.txt]',
          "or, without trusting this folder's verifier, with the published one:",
          '  npx @finance-desk/protocol verify-pack <this .tar.gz or folder> --key "<key>" [--checkpoint old-checkpoint.txt]',
          'It checks every file against manifest.json, recomputes the hash chain over the stored bytes,',
          'opens every checkpoint with the verifier key and checks the chain still reaches each signed root,',
          'checks every journal balances and its lines hash to the digest the event that posted it bound,',
          'every decided approval against the chain, every receipt and file kept with a document against',
          'the SHA-256 its event recorded, and every payment and lodgement file against the',
          'SHA-256 its event bound. Exit code 0: everything ties out; 1: something does not; 3: nothing',
          'failed, but journals or files recorded before the binding are listed as unbound (not verified).',
          '',
          'Handle this pack as payroll records: documents/stp_pay_event-*.json are the Single Touch Payroll',
          "pay events exactly as the ATO received them, with every employee's tax file number (TFN) in full.",
          'They are here so the verifier can check each one byte for byte against the SHA-256 the chain',
          'bound; a masked copy could not be checked. Nothing else in the pack holds a TFN.',
          '',
        ].join('\n'),
      );
      const manifest = {
        // Format 2 starts at a checkpoint: a verifier that knows only format 1 fails its chain check.
        format: start ? 'finance-desk-audit-pack/2' : 'finance-desk-audit-pack/1',
        organisation: { id: o.orgId, slug: o.orgSlug },
        period: { from: o.from, to: o.to },
        writtenAt: o.now,
        head: { seq: Number(head.seq), rowHash: head.rowHash },
        ...(start ? { start } : {}),
        files: files.sort((a, b) => (a.path < b.path ? -1 : 1)),
      };
      await tar.add(`${root}/manifest.json`, `${canonicalJson(manifest)}\n`);
      await tar.close();
      const sha256 = await sha256File(o.out);
      return {
        file: o.out,
        sha256,
        events: events.lines,
        journals: journals.lines,
        approvals: approvals.lines,
        documents: docs.length,
        checkpoints: checkpoints.length,
        start,
        ...(fullHistoryReason !== undefined ? { fullHistoryReason } : {}),
      };
    });
  } catch (error) {
    rmSync(o.out, { force: true });
    throw error;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
