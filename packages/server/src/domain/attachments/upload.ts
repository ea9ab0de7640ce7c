import { attachments } from '@finance-desk/protocol';
import { badRequest } from '../../errors.js';

/**
 * A file's base64 from a request, decoded and checked as every upload is (receipts, attachments):
 * canonical, not empty, at most the upload bound (the same for both). `field` names it in a refusal.
 */
export function decodeUpload(base64: string, field: string): Buffer {
  const max = attachments.attachmentLimits.bytesMax;
  const bytes = Buffer.from(base64, 'base64');
  // Buffer ignores stray bits in the last character; a canonical round trip refuses them.
  if (bytes.toString('base64') !== base64) throw badRequest(`${field}: must be canonical base64 (its padding bits must be 0)`);
  if (bytes.length === 0) throw badRequest(`${field}: must not be empty`);
  if (bytes.length > max) throw badRequest(`${field}: decodes to ${bytes.length} bytes; at most ${max}`);
  return bytes;
}
