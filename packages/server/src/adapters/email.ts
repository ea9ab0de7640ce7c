import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';

/**
 * The email adapter (architecture guide): every message the service sends goes through it, after
 * the transaction that decided to send it has committed (see outbox.ts).
 */
export interface EmailMessage {
  readonly to: string | null;
  readonly subject: string;
  readonly text: string;
  /** Stable id: the outbox row id, so a redelivery is recognisable downstream. */
  readonly messageId: string;
}

export interface Mailer {
  readonly kind: 'file' | 'smtp';
  send(message: EmailMessage, from: string): Promise<{ delivered: boolean; detail: string }>;
  close(): Promise<void>;
}

function headerSafe(value: string): string {
  return value.replace(/[\r\n]+/g, ' ').trim();
}

/** RFC 5322 text of a message (the file outbox writes exactly this). */
export function renderEml(message: EmailMessage, from: string, date: Date): string {
  const lines = [
    `From: ${headerSafe(from)}`,
    `To: ${message.to ? headerSafe(message.to) : 'undisclosed-recipients:;'}`,
    `Subject: ${headerSafe(message.subject)}`,
    `Date: ${date.toUTCString()}`,
    `Message-ID: <${message.messageId}@finance-desk>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
  ];
  const body = message.text.replace(/\r?\n/g, '\r\n');
  return `${lines.join('\r\n')}\r\n\r\n${body}\r\n`;
}

/**
 * Default mailer: one `.eml` file per message in a directory, written atomically (temp + rename),
 * named by message id so a redelivery overwrites rather than duplicates.
 */
export class FileMailer implements Mailer {
  readonly kind = 'file' as const;
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  async send(message: EmailMessage, from: string) {
    const name = `${message.messageId}.eml`;
    const tmp = join(this.dir, `.${name}.${createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 8)}`);
    writeFileSync(tmp, renderEml(message, from, new Date()), { mode: 0o600 });
    renameSync(tmp, join(this.dir, name));
    return { delivered: true, detail: name };
  }

  async close() {}
}

/** SMTP through nodemailer (`SMTP_URL`, e.g. smtp://user:pass@host:587). */
export class SmtpMailer implements Mailer {
  readonly kind = 'smtp' as const;
  private readonly transport: nodemailer.Transporter;
  constructor(url: string) {
    this.transport = nodemailer.createTransport(url);
  }

  async send(message: EmailMessage, from: string) {
    if (!message.to) return { delivered: false, detail: 'no recipient address; kept for manual follow-up' };
    const info = (await this.transport.sendMail({
      from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      messageId: `<${message.messageId}@finance-desk>`,
    })) as { messageId?: string };
    return { delivered: true, detail: String(info.messageId ?? '') };
  }

  async close() {
    this.transport.close();
  }
}

export function mailerFor(config: { smtpUrl: string | null; emailOutboxDir: string }): Mailer {
  return config.smtpUrl ? new SmtpMailer(config.smtpUrl) : new FileMailer(config.emailOutboxDir);
}
