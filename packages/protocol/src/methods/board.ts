import { z } from 'zod';
import { limits } from '../limits.js';
import { id, method, text } from './index-fields.js';

export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;

/** A board item as every answer shows it (board.createTask, board.claim, board.ready, board.context). */
export const task = z.object({
  id: z.string(),
  title: z.string(),
  priority: z.enum(PRIORITIES),
  col: z.enum(['ready', 'claimed']),
  claimedBy: z.string().nullable(),
  createdAt: z.string(),
  ledgerId: z.string(),
});

export const createTask = method({
  name: 'board.createTask',
  scope: 'board.write',
  kind: 'new-act',
  summary: 'Put a task on the organisation board, in the `ready` column.',
  brief: "Add a task to the board's ready column.",
  params: z.strictObject({
    title: text(limits.nameCharsMax).describe('One line'),
    priority: z.enum(PRIORITIES).default('normal').describe('Default normal'),
  }),
  result: task,
});

export const claim = method({
  name: 'board.claim',
  scope: 'board.write',
  kind: 'write',
  summary: 'Claim a ready task. Of concurrent claims exactly one wins; the rest get CONFLICT.',
  brief: 'Claim a ready task; if several agents claim, one wins, the rest CONFLICT.',
  params: z.strictObject({ id: id().describe('Task id') }),
  result: task,
});

export const boardMethods = [createTask, claim] as const;
