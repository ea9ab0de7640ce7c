import type { ErrorCode, ErrorDetails } from '@finance-desk/protocol';

/**
 * An expected refusal with its contract code and a public message: domain code throws it, the
 * HTTP layer turns it into an error frame (docs/architecture.md, Domain code knows nothing of
 * HTTP). Anything else thrown is a broken invariant and becomes a logged INTERNAL.
 */
export class DomainError extends Error {
  constructor(
    readonly code: Exclude<ErrorCode, 'IDEMPOTENT_REPLAY' | 'INTERNAL'>,
    message: string,
    /** Structured parts of the frame: the field, the approval to file. */
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (what: string, id: string) => new DomainError('NOT_FOUND', `${what} ${id} not found`);

export const conflict = (message: string) => new DomainError('CONFLICT', message);

export const badRequest = (message: string) => new DomainError('BAD_REQUEST', message);

/** A broken invariant: never shown to a client, always logged. */
export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`invariant violated: ${message}`);
}
