import { z } from 'zod';
import { text } from './index-fields.js';

/**
 * A file sent in a request body (a receipt, a document's attachment): its bytes as base64, its
 * name and its media type. One shape and one set of bounds for every upload, so a file accepted
 * as a receipt is accepted as an attachment and refused with the same words.
 */

/** Decoded size of one file: its base64 (4/3 larger) must fit the 1 MiB body with room to spare. */
export const UPLOAD_BYTES_MAX = 700 * 1024;

/** The longest base64 text that can decode to UPLOAD_BYTES_MAX bytes. */
const BASE64_CHARS_MAX = Math.ceil(UPLOAD_BYTES_MAX / 3) * 4;

/** Exactly one of the standard base64 alphabet with padding; decoded size checked by the server. */
export const uploadBase64 = () =>
  z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(BASE64_CHARS_MAX, {
      error: `must decode to at most ${UPLOAD_BYTES_MAX} bytes`,
    })
    // Only a value of an allowed length is judged as base64: one message per value (1–3
    // characters are not empty, they are not base64).
    .refine((s) => s.length === 0 || s.length > BASE64_CHARS_MAX || (s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s)), {
      error: 'must be base64 (A–Z a–z 0–9 + /, padded with =)',
    });

/** A file's name: one line, no path separators or control characters. */
export const uploadFileName = () =>
  text(255)
    // eslint-disable-next-line no-control-regex -- control characters are what it refuses
    .refine((s) => !/[/\\\u0000-\u001f]/.test(s), {
      error: 'must be a file name without / \\ or control characters',
    });

/** A media type as type/subtype, lower case. */
export const uploadMimeType = () =>
  z
    .string()
    .max(100)
    .regex(/^[a-z]+\/[a-z0-9.+-]+$/, {
      error: 'must be a MIME type such as image/jpeg or application/pdf',
    });
