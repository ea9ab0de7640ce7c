/** The closed set of error codes and their HTTP statuses (docs/protocol.md, section 6). */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN_SCOPE: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  IDEMPOTENT_REPLAY: 200,
  GOVERNANCE_NOT_READY: 423,
  RATE_LIMITED: 429,
  WEAK_SECRET: 401,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as readonly ErrorCode[];

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_STATUS, code);
}

/** Status of a code; an unknown code collapses to INTERNAL. */
export function statusOf(code: string): number {
  return isErrorCode(code) ? ERROR_STATUS[code] : ERROR_STATUS.INTERNAL;
}

/** Message of a missing-scope refusal, exactly as the contract fixes it. */
export function missingScopeMessage(scope: string, name: string): string {
  return `missing scope ${scope} for ${name}`;
}
