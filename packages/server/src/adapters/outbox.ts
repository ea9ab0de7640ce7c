import { events } from '@finance-desk/protocol';
import { newId } from '../ids.js';
import type { Database, Queryable, Tx } from '../storage/types.js';
import { inUnitOfWork } from '../write-path.js';
import { invariant } from '../errors.js';
import { OUTBOX_CHANNEL } from './outbox-channel.js';
import { attachmentLimits, type EmailMessage, type Mailer } from './email.js';
import type { PaymentFile, PaymentSink } from './payments.js';
import type { Lodgements } from './lodgement.js';

/**
 * The transactional outbox (docs/architecture.md, One write path): an effect outside the database
 * is written as a row in the same transaction as the act that caused it, and delivered only after
 * that transaction commits. A crash between commit and delivery loses nothing: the sweep
 * delivers it later. Several processes may sweep; a claim with a lease stops double sends.
 */
const LEASE_MS = 60_000;
const SWEEP_MS = 5_000;
export const ATTEMPTS_MAX = 8;

/** A row no sweep will try again: its attempts are spent, or its adapter refused it for good. */
const UNDELIVERABLE = `((delivered_at IS NULL AND attempts >= ${ATTEMPTS_MAX}) OR (delivered_at IS NOT NULL AND last_error IS NOT NULL))`;

/** What waits in an organisation's outbox (GET ops): still to be tried, and given up on. */
/** What is still to deliver and what was given up on: one organisation's, or every one's (/metrics). */
export async function outboxCounts(q: Queryable, orgId: string | null): Promise<{ queued: number; undeliverable: number }> {
  const scope = orgId === null ? '' : 'org_id = ? AND ';
  const count = async (where: string) =>
    Number(
      (await q.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM outbox WHERE ${scope}${where}`, orgId === null ? [] : [orgId]))?.n ??
        0,
    );
  return {
    queued: await count(`delivered_at IS NULL AND attempts < ${ATTEMPTS_MAX}`),
    undeliverable: await count(UNDELIVERABLE),
  };
}

/**
 * Put an organisation's undeliverable rows back in the queue (CLI `outbox retry`), once the
 * operator has fixed what stopped them (a full disk, an SMTP password): the next sweep of any
 * running server delivers them. Returns how many were re-queued. An operator act like any other:
 * through the write path, with one `org` / `outbox.retry` event naming how many
 * of each channel went back (never a message's content); nothing to re-queue is a no-op, no event.
 */
export async function requeueUndeliverable(db: Database, orgId: string): Promise<number> {
  const done = await inUnitOfWork(db, orgId, '', async (uow) => {
    const byChannel = await uow.tx.all<{ channel: string; n: number | string }>(
      `SELECT channel, COUNT(*) AS n FROM outbox WHERE org_id = ? AND ${UNDELIVERABLE} GROUP BY channel ORDER BY channel`,
      [orgId],
    );
    if (byChannel.length === 0) return { noop: true, requeued: 0 };
    const r = await uow.tx.run(
      `UPDATE outbox SET attempts = 0, claimed_until = NULL, delivered_at = NULL, last_error = NULL
       WHERE org_id = ? AND ${UNDELIVERABLE}`,
      [orgId],
    );
    const channels = Object.fromEntries(byChannel.map((c) => [c.channel, Number(c.n)]));
    await uow.emit(events.outboxRetry, { entityId: orgId, payload: { requeued: r.changes, channels } });
    return { requeued: r.changes };
  });
  return done.requeued;
}

/** An attachment as the outbox row keeps it (JSON): its bytes in base64. */
interface StoredAttachment {
  filename: string;
  contentType: string;
  base64: string;
}

/**
 * The email row's body: the whole message, attachments included (base64), so a retry after a
 * crash or an SMTP failure rebuilds exactly what was decided in the transaction.
 * Bounded by attachmentLimits; the bytes live only here, never in an event (events record that
 * a message was sent, never its content).
 */
function emailBody(message: Omit<EmailMessage, 'messageId'>, id: string): string {
  const files = message.attachments ?? [];
  invariant(files.length <= attachmentLimits.perMessageMax, `an email carries at most ${attachmentLimits.perMessageMax} attachments`);
  const attachments: StoredAttachment[] = files.map((f) => {
    invariant(f.content.byteLength <= attachmentLimits.bytesMax, `attachment ${f.filename} is at most ${attachmentLimits.bytesMax} bytes`);
    return { filename: f.filename, contentType: f.contentType, base64: Buffer.from(f.content).toString('base64') };
  });
  const { attachments: _files, ...plain } = message;
  return JSON.stringify({ ...plain, messageId: id, ...(attachments.length > 0 ? { attachments } : {}) });
}

/** The message an email row holds (rows written before attachments have none). */
export function emailFromBody(body: string): EmailMessage {
  const stored = JSON.parse(body) as Omit<EmailMessage, 'attachments'> & { attachments?: StoredAttachment[] };
  const { attachments, ...plain } = stored;
  if (!attachments || attachments.length === 0) return plain;
  return {
    ...plain,
    attachments: attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: new Uint8Array(Buffer.from(a.base64, 'base64')),
    })),
  };
}

export async function enqueueEmail(tx: Tx, orgId: string, now: string, message: Omit<EmailMessage, 'messageId'>) {
  const id = newId('msg');
  await tx.run('INSERT INTO outbox (id, org_id, channel, body, created_at) VALUES (?, ?, ?, ?, ?)', [
    id,
    orgId,
    'email',
    emailBody(message, id),
    now,
  ]);
  await tx.notify(OUTBOX_CHANNEL, id);
  return id;
}

export class OutboxDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly mailer: Mailer,
    private readonly from: string,
    private readonly onError: (err: unknown) => void = () => undefined,
    /** Channel `payment_file` (payment runs' ABA files); without it their delivery fails and is retried. */
    private readonly payments: PaymentSink | null = null,
    /** Channel `lodgement` (BAS, STP): delivered and confirmed by the lodgement adapter. */
    private readonly lodgements: Lodgements | null = null,
  ) {}

  async start(): Promise<void> {
    // kick() never rejects (its chain ends in onError), so nothing waits on it here.
    this.unsubscribe = await this.db.listen(OUTBOX_CHANNEL, () => void this.kick());
    this.timer = setInterval(() => void this.kick(), SWEEP_MS);
    this.timer.unref();
    void this.kick();
  }

  /** Deliver what is due; calls are serialised so one process never sends a row twice. */
  kick(): Promise<void> {
    if (this.stopped) return this.running;
    this.running = this.running.then(() => this.sweep()).catch((err: unknown) => this.onError(err));
    return this.running;
  }

  private async sweep(): Promise<void> {
    const now = new Date().toISOString();
    const due = await this.db.reader.all<{ id: string; channel: string; body: string; attempts: number }>(
      `SELECT id, channel, body, attempts FROM outbox WHERE delivered_at IS NULL AND attempts < ?
       AND (claimed_until IS NULL OR claimed_until < ?) ORDER BY created_at LIMIT 50`,
      [ATTEMPTS_MAX, now],
    );
    for (const row of due) {
      const lease = new Date(Date.now() + LEASE_MS).toISOString();
      const claimed = await this.db.write((tx) =>
        tx.run(
          `UPDATE outbox SET claimed_until = ?, attempts = attempts + 1
           WHERE id = ? AND delivered_at IS NULL AND (claimed_until IS NULL OR claimed_until < ?)`,
          [lease, row.id, now],
        ),
      );
      if (claimed.changes !== 1) continue;
      await this.deliver(row.id, row.channel, row.body);
    }
  }

  /** Route by channel: `payment_file` to the payments adapter, anything else is email. */
  private async send(channel: string, body: string): Promise<{ delivered: boolean; detail: string }> {
    if (channel !== 'payment_file') return this.mailer.send(emailFromBody(body), this.from);
    if (!this.payments) throw new Error('no payments adapter is configured; the payment file waits in the outbox');
    return this.payments.deliver(JSON.parse(body) as PaymentFile);
  }

  private async deliver(id: string, channel: string, body: string): Promise<void> {
    try {
      if (channel === 'lodgement') {
        // Delivery and its confirmation (the subject's new state and event) commit together.
        if (!this.lodgements) throw new Error('no lodgement adapter is configured; the document waits in the outbox');
        await this.lodgements.deliver(id, body);
        return;
      }
      const r = await this.send(channel, body);
      await this.db.write((tx) =>
        tx.run('UPDATE outbox SET delivered_at = ?, last_error = ? WHERE id = ?', [
          new Date().toISOString(),
          r.delivered ? null : r.detail,
          id,
        ]),
      );
    } catch (err) {
      // Leave it claimed until the lease ends, then retry (up to ATTEMPTS_MAX).
      const detail = err instanceof Error ? err.message.slice(0, 300) : 'delivery failed';
      await this.db.write((tx) => tx.run('UPDATE outbox SET last_error = ? WHERE id = ?', [detail, id]));
      this.onError(err);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
    await this.running;
  }
}
