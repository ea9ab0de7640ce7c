import { sha256Hex } from '@finance-desk/protocol';
import { invariant } from '../errors.js';
import { newId } from '../ids.js';
import type { Database, Tx } from '../storage/types.js';
import { inUnitOfWork, type Uow, type WriteResult } from '../write-path.js';
import { FileDrop } from './file-drop.js';
import { OUTBOX_CHANNEL } from './outbox-channel.js';

/**
 * The lodgement adapter (docs/architecture.md, Adapters and the outbox): a document for the ATO
 * (a BAS, or a Single Touch Payroll pay event, through the same channel) is written to the
 * outbox in the act's own transaction (channel `lodgement`), its exact JSON text in the row, and
 * delivered after commit with the outbox's retries, lease and GET ops counts. The default sink
 * writes `<subjectId>.json` into LODGEMENT_OUTBOX_DIR for a lodgement agent (practitioner
 * software, SBR gateway) to pick up; a direct SBR sink would implement the same interface.
 *
 * Delivery is confirmed in its own transaction with its own event: the outbox row is marked
 * delivered and the document's kind's confirmer (e.g. the BAS → `lodged` with its receipt)
 * appends one event, actor "" (the system). The lodging act and the confirmation are two side
 * effects in time, so two events; a repeated delivery of a confirmed document is a no-op.
 */
export const LODGEMENT_CHANNEL = 'lodgement';
export const LODGEMENT_FORMAT = 'finance-desk.lodgement';
export const LODGEMENT_FORMAT_VERSION = 1;

/** `bas` now; payroll adds `stp_pay_event`. */
export type LodgementKind = 'bas' | 'stp_pay_event';

/** The outbox row's body. */
export interface LodgementFile {
  readonly orgId: string;
  readonly kind: LodgementKind;
  /** The BAS (or pay run) this document lodges; the file is `<subjectId>.json`. */
  readonly subjectId: string;
  readonly fileName: string;
  /** The document's exact JSON text: the bytes written and hashed for the receipt. */
  readonly content: string;
}

export interface LodgementReceipt {
  readonly fileName: string;
  /** Lowercase hex SHA-256 of the document's bytes (UTF-8). */
  readonly sha256: string;
  readonly lodgedAt: string;
}

export interface LodgementSink {
  readonly kind: string;
  deliver(file: LodgementFile): Promise<{ delivered: boolean; detail: string }>;
}

/** Files in a directory, written atomically (temp + rename), owner-readable only: they carry tax figures and TFNs. */
export class FileLodgementSink implements LodgementSink {
  readonly kind = 'file';
  private readonly drop: FileDrop;
  constructor(readonly dir: string) {
    this.drop = new FileDrop(dir, /^[A-Za-z0-9_-]+\.json$/, 'utf8');
  }

  deliver(file: LodgementFile) {
    this.drop.write(file.fileName, file.content);
    return Promise.resolve({ delivered: true, detail: file.fileName });
  }
}

/**
 * The document: an envelope every kind shares (docs/books.md "The lodgement document"), the
 * kind's own data under the kind's name. Pretty-printed so a person can read the file.
 */
export function lodgementDocument(
  kind: LodgementKind,
  subjectId: string,
  orgId: string,
  createdAt: string,
  body: Readonly<Record<string, unknown>>,
): string {
  const envelope = { format: LODGEMENT_FORMAT, version: LODGEMENT_FORMAT_VERSION, kind, id: subjectId, orgId, createdAt, [kind]: body };
  return `${JSON.stringify(envelope, null, 2)}\n`;
}

/** Queue a lodgement in the caller's transaction; it is delivered after commit. */
export async function enqueueLodgement(
  tx: Tx,
  orgId: string,
  now: string,
  doc: { kind: LodgementKind; subjectId: string; content: string },
): Promise<{ outboxId: string; fileName: string; sha256: string }> {
  const outboxId = newId('lodg');
  const fileName = `${doc.subjectId}.json`;
  const body: LodgementFile = { orgId, kind: doc.kind, subjectId: doc.subjectId, fileName, content: doc.content };
  await tx.run('INSERT INTO outbox (id, org_id, channel, body, created_at) VALUES (?, ?, ?, ?, ?)', [
    outboxId,
    orgId,
    LODGEMENT_CHANNEL,
    JSON.stringify(body),
    now,
  ]);
  await tx.notify(OUTBOX_CHANNEL, outboxId);
  return { outboxId, fileName, sha256: sha256Hex(doc.content) };
}

/** A kind's confirmation: record the receipt on its subject and append its one event (or a no-op). */
export type LodgementConfirmer = (uow: Uow, file: LodgementFile, receipt: LodgementReceipt) => Promise<WriteResult>;

/** The channel as the outbox dispatcher uses it: deliver through the sink, then confirm. */
export class Lodgements {
  constructor(
    private readonly db: Database,
    readonly sink: LodgementSink,
    private readonly confirmers: Readonly<Partial<Record<LodgementKind, LodgementConfirmer>>>,
  ) {}

  /** Throws to be retried (the outbox keeps the row); a sink that refuses for good is recorded as such. */
  async deliver(outboxId: string, body: string): Promise<void> {
    const file = JSON.parse(body) as LodgementFile;
    const confirm = this.confirmers[file.kind];
    if (!confirm) throw new Error(`no confirmer for lodgement kind ${file.kind}; the document waits in the outbox`);
    const r = await this.sink.deliver(file);
    if (!r.delivered) {
      await this.db.write((tx) =>
        tx.run('UPDATE outbox SET delivered_at = ?, last_error = ? WHERE id = ?', [new Date().toISOString(), r.detail, outboxId]),
      );
      return;
    }
    await inUnitOfWork(this.db, file.orgId, '', async (uow) => {
      const marked = await uow.tx.run('UPDATE outbox SET delivered_at = ?, last_error = NULL WHERE id = ? AND org_id = ?', [
        uow.now,
        outboxId,
        file.orgId,
      ]);
      invariant(marked.changes === 1, `outbox row ${outboxId} exists`);
      const receipt = { fileName: file.fileName, sha256: sha256Hex(file.content), lodgedAt: uow.now };
      // The confirmation's event binds the document delivered (its outbox row and SHA-256): the
      // lodging act's event cannot, since the document names that event's ledger id.
      const binding = { outboxId, fileName: receipt.fileName, sha256: receipt.sha256 };
      const bound: Uow = {
        ...uow,
        emit: (event, body) => {
          uow.bindFile(binding);
          return uow.emit(event, body);
        },
      };
      return confirm(bound, file, receipt);
    });
  }
}
