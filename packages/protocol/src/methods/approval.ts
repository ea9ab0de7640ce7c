import { z } from 'zod';
import { limits } from '../limits.js';
import { ACTION_CLASSES } from '../signature.js';
import { hash64, id, method, text } from './index-fields.js';

export const request = method({
  name: 'approval.request',
  reachesOut: true,
  scope: 'books.write',
  kind: 'write',
  summary:
    'File a request for a human decision on a held act. Must match an open hold (same action class, subject and payload hash); the human sees the server’s summary, never this one.',
  brief: 'Ask a human to approve a hold: copy its approval fields. Then approval.wait.',
  params: z.strictObject({
    actionClass: z.enum(ACTION_CLASSES).describe('From the hold'),
    payloadHash: hash64().describe('From the hold'),
    subject: z
      .strictObject({
        kind: z.literal('books.signature').describe('books.signature'),
        subjectId: id().describe('From the hold'),
        summary: text(limits.textCharsMax).optional().describe('Ignored'),
      })
      .describe('From the hold'),
  }),
  result: z.object({
    approvalId: z.string(),
    status: z.literal('pending'),
    expiresAt: z.string(),
    summary: z.string(),
    ledgerId: z.string(),
  }),
});

export const approvalMethods = [request] as const;
