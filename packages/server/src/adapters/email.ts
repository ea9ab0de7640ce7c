import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';

/**
 * The email adapter: every message the service sends goes through it, after the transaction that
 * decided to send it has committed (outbox.ts; docs/architecture.md, Adapters and the outbox).
 */
export interface EmailMessage {
  readonly to: string | null;
  readonly subject: string;
  readonly text: string;
  /** Stable id: the outbox row id, so a redelivery is recognisable downstream. */
  readonly messageId: string;
  /** Files sent with the message (e.g. the invoice PDF); optional, so plain text stays as it was. */
  readonly attachments?: readonly EmailAttachment[];
  /**
   * The same message as HTML (the weekly digest), sent as multipart/alternative beside the text:
   * a reader shows the richer part it can. Never with attachments (no message needs both).
   */
  readonly html?: string;
}

/** A file attached to a message: its name as the recipient sees it, its MIME type and its bytes. */
export interface EmailAttachment {
  readonly filename: string;
  readonly contentType: string;
  readonly content: Uint8Array;
}

/** Bounds (docs/architecture.md, Everything is bounded): an invoice PDF is a few kilobytes. */
export const attachmentLimits = { perMessageMax: 4, bytesMax: 2 * 1024 * 1024 } as const;

/** A file name safe in a header: printable ASCII without quotes, backslashes or path separators. */
export function attachmentName(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9 ._()-]/g, '_')
    .slice(0, 100)
    .trim();
  return safe === '' ? 'attachment' : safe;
}

/** Base64 wrapped at 76 characters a line (RFC 2045 §6.8). */
export function base64Lines(bytes: Uint8Array): string {
  const b64 = Buffer.from(bytes).toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 76) lines.push(b64.slice(i, i + 76));
  return lines.join('\r\n');
}

export interface Mailer {
  readonly kind: 'file' | 'smtp';
  send(message: EmailMessage, from: string): Promise<{ delivered: boolean; detail: string }>;
  close(): Promise<void>;
}

function headerSafe(value: string): string {
  return value.replace(/[\r\n]+/g, ' ').trim();
}

/**
 * RFC 5322 text of a message (the file outbox writes exactly this). Without attachments, one
 * text/plain part as before; with them, multipart/mixed (RFC 2046 §5.1.3): the text, then each
 * file base64-encoded (RFC 2045), between a random boundary. Base64 and the text never hold
 * `--` followed by 24 hex digits of fresh randomness, and the text is checked anyway.
 */
export function renderEml(message: EmailMessage, from: string, date: Date): string {
  const headers = [
    `From: ${headerSafe(from)}`,
    `To: ${message.to ? headerSafe(message.to) : 'undisclosed-recipients:;'}`,
    `Subject: ${headerSafe(message.subject)}`,
    `Date: ${date.toUTCString()}`,
    `Message-ID: <${message.messageId}@finance-desk>`,
    'MIME-Version: 1.0',
  ];
  const body = message.text.replace(/\r?\n/g, '\r\n');
  const files = message.attachments ?? [];
  if (message.html !== undefined && files.length === 0) {
    // Both parts base64 (RFC 2045), so no line of either can be the boundary.
    const boundary = `=_fd_${randomBytes(12).toString('hex')}`;
    headers.push(`Content-Type: multipart/alternative; boundary="${boundary}"`);
    const part = (type: string, text: string) =>
      [`Content-Type: ${type}; charset=utf-8`, 'Content-Transfer-Encoding: base64', '', base64Lines(Buffer.from(text, 'utf8'))].join(
        '\r\n',
      );
    return `${headers.join('\r\n')}\r\n\r\nThis is a multipart message in MIME format.\r\n${[
      part('text/plain', message.text),
      part('text/html', message.html),
    ]
      .map((p) => `--${boundary}\r\n${p}\r\n`)
      .join('')}--${boundary}--\r\n`;
  }
  if (files.length === 0) {
    headers.push('Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit');
    return `${headers.join('\r\n')}\r\n\r\n${body}\r\n`;
  }
  let boundary = `=_fd_${randomBytes(12).toString('hex')}`;
  while (body.includes(boundary)) boundary = `=_fd_${randomBytes(12).toString('hex')}`;
  headers.push(`Content-Type: multipart/mixed; boundary="${boundary}"`);
  const parts = [
    ['Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', body].join('\r\n'),
    ...files.map((f) => {
      const name = attachmentName(f.filename);
      return [
        `Content-Type: ${headerSafe(f.contentType)}; name="${name}"`,
        'Content-Transfer-Encoding: base64',
        `Content-Disposition: attachment; filename="${name}"`,
        '',
        base64Lines(f.content),
      ].join('\r\n');
    }),
  ];
  return `${headers.join('\r\n')}\r\n\r\nThis is a multipart message in MIME format.\r\n${parts
    .map((p) => `--${boundary}\r\n${p}\r\n`)
    .join('')}--${boundary}--\r\n`;
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

  send(message: EmailMessage, from: string) {
    const name = `${message.messageId}.eml`;
    const tmp = join(this.dir, `.${name}.${createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 8)}`);
    writeFileSync(tmp, renderEml(message, from, new Date()), { mode: 0o600 });
    renameSync(tmp, join(this.dir, name));
    return Promise.resolve({ delivered: true, detail: name });
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
      ...(message.html !== undefined ? { html: message.html } : {}),
      messageId: `<${message.messageId}@finance-desk>`,
      attachments: (message.attachments ?? []).map((f) => ({
        filename: attachmentName(f.filename),
        contentType: f.contentType,
        content: Buffer.from(f.content),
      })),
    })) as { messageId?: string };
    return { delivered: true, detail: String(info.messageId ?? '') };
  }

  close() {
    this.transport.close();
    return Promise.resolve();
  }
}

export function mailerFor(config: { smtpUrl: string | null; emailOutboxDir: string }): Mailer {
  return config.smtpUrl ? new SmtpMailer(config.smtpUrl) : new FileMailer(config.emailOutboxDir);
}
