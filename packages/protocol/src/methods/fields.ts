import { z } from 'zod';
import { limits } from '../limits.js';

/**
 * Field builders shared by every method declaration, so that the same kind of field has the
 * same bounds and the same error wording everywhere (D5). Every string has an upper bound.
 */
export const text = (max: number = limits.nameCharsMax) =>
  z.string().min(1, { error: 'must not be empty' }).max(max);

export const cents = () =>
  z
    .number({ error: 'must be an integer number of cents' })
    .int({ error: 'must be an integer number of cents' })
    .gt(0, { error: 'must be an integer greater than 0' })
    .max(limits.centsMax);

export const days = () =>
  z
    .number({ error: 'must be an integer number of days' })
    .int({ error: 'must be an integer number of days' })
    .min(0, { error: 'must be an integer of at least 0' })
    .max(limits.dueDaysMax);

export const id = () =>
  z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(limits.idCharsMax)
    .regex(/^[A-Za-z0-9_-]+$/, { error: 'must be an id (letters, digits, _ and -)' });

/** Query-string integer (GET reads): digits only, so `1.5`, `-1` or `abc` are refused. */
export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,15}$/, { error: `must be an integer from ${min} to ${max}` })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { error: `must be an integer from ${min} to ${max}` });

export const proofFields = {
  approvalId: id().optional(),
  signatureToken: z.string().min(1).max(1024).optional(),
};
