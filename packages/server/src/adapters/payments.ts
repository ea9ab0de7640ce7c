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
 * same interface.
 */
export const PAYMENT_FILE_CHANNEL = 'payment_file';

export interface PaymentFile {
  readonly runId: string;
  readonly orgId: string;
  readonly fileName: string;
  /** The file's bytes as ASCII text (ABA is plain ASCII, CR LF). */
  readonly content: string;
}

export interface PaymentSink {
  readonly kind: string;
  deliver(file: PaymentFile): Promise<{ delivered: boolean; detail: string }>;
}

/** Files in a directory, written atomically (temp + rename), owner-readable only: they carry account numbers. */
export class FilePaymentSink implements PaymentSink {
  readonly kind = 'file';
  private readonly drop: FileDrop;
  constructor(readonly dir: string) {
    // ABA is plain ASCII: latin1 writes each character as the one byte a bank expects.
    this.drop = new FileDrop(dir, /^[A-Za-z0-9_-]+\.aba$/, 'latin1');
  }

  deliver(file: PaymentFile) {
    this.drop.write(file.fileName, file.content);
    return Promise.resolve({ delivered: true, detail: file.fileName });
  }
}

/**
 * Queue a payment file in the caller's unit, before its event: the event binds the file's SHA-256
 * (Uow.bindFile; the bytes as the sink writes them, latin1), so the file an auditor is shown is
 * the one the act decided. It is delivered after commit.
 */
export async function enqueuePaymentFile(uow: Uow, file: Omit<PaymentFile, 'orgId'>): Promise<string> {
  const id = newId('pay');
  const body: PaymentFile = { ...file, orgId: uow.orgId };
  uow.bindFile({
    outboxId: id,
    fileName: file.fileName,
    sha256: createHash('sha256').update(Buffer.from(file.content, 'latin1')).digest('hex'),
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
