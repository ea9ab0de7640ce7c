import { createHash } from 'node:crypto';
import { newId } from '../ids.js';
import type { Uow } from '../write-path.js';
import { FileDrop } from './file-drop.js';
import { OUTBOX_CHANNEL } from './outbox-channel.js';

/**
 * The payments adapter (docs/architecture.md, Adapters and the outbox): a payment run's ABA file
 * is written to the outbox in the run's own transaction (channel `payment_file`) and handed to the
 * bank channel only after commit. The default sink writes `<runId>.aba` into a directory
 * (PAYMENTS_OUTBOX_DIR) for upload to the bank's portal; a host-to-host sink would implement the
 * same interface. A super payment's contribution files (`<id>-<fund ABN>.csv`, one per fund) take
 * the same path, for upload to the clearing house or fund.
 */
export const PAYMENT_FILE_CHANNEL = 'payment_file';

export interface PaymentFile {
  readonly runId: string;
  readonly orgId: string;
  readonly fileName: string;
  /** The file's text: an ABA file is plain ASCII (CR LF), a super contribution file (`.csv`) UTF-8. */
  readonly content: string;
}

/**
 * The bytes a payment file is written as, by its name: ABA is ASCII written byte for byte (latin1,
 * one byte per character, as a bank expects); a super contribution CSV is UTF-8, because it carries
 * employees' and funds' names as held (a clearing house reads UTF-8).
 */
export function paymentFileEncoding(fileName: string): BufferEncoding {
  return fileName.endsWith('.csv') ? 'utf8' : 'latin1';
}

export interface PaymentSink {
  readonly kind: string;
  deliver(file: PaymentFile): Promise<{ delivered: boolean; detail: string }>;
}

/** Files in a directory, written atomically (temp + rename), owner-readable only: they carry account numbers. */
export class FilePaymentSink implements PaymentSink {
  readonly kind = 'file';
  private readonly drop: FileDrop;
  private readonly csv: FileDrop;
  constructor(readonly dir: string) {
    // ABA is plain ASCII: latin1 writes each character as the one byte a bank expects.
    this.drop = new FileDrop(dir, /^[A-Za-z0-9_-]+\.aba$/, 'latin1');
    this.csv = new FileDrop(dir, /^[A-Za-z0-9_-]+\.csv$/, 'utf8');
  }

  deliver(file: PaymentFile) {
    (paymentFileEncoding(file.fileName) === 'utf8' ? this.csv : this.drop).write(file.fileName, file.content);
    return Promise.resolve({ delivered: true, detail: file.fileName });
  }
}

/**
 * Queue a payment file in the caller's unit, before its event: the event binds the file's SHA-256
 * (Uow.bindFile; the bytes as the sink writes them: paymentFileEncoding), so the file an auditor is shown is
 * the one the act decided. It is delivered after commit.
 */
export async function enqueuePaymentFile(uow: Uow, file: Omit<PaymentFile, 'orgId'>): Promise<string> {
  const id = newId('pay');
  // In this order: books.files tells a file's kind by the fileName before its content (ops/files.ts).
  const body: PaymentFile = { runId: file.runId, fileName: file.fileName, content: file.content, orgId: uow.orgId };
  uow.bindFile({
    outboxId: id,
    fileName: file.fileName,
    sha256: createHash('sha256')
      .update(Buffer.from(file.content, paymentFileEncoding(file.fileName)))
      .digest('hex'),
  });
  await uow.tx.run('INSERT INTO outbox (id, org_id, channel, body, created_at) VALUES (?, ?, ?, ?, ?)', [
    id,
    uow.orgId,
    PAYMENT_FILE_CHANNEL,
    JSON.stringify(body),
    uow.now,
  ]);
  await uow.tx.notify(OUTBOX_CHANNEL, id);
  return id;
}
