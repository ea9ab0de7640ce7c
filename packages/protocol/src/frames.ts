import type { ErrorCode } from './errors.js';
import type { ActionClass } from './signature.js';

/** POST success. `code` appears only on an idempotent replay. */
export interface OkFrame<R = unknown> {
  readonly ok: true;
  readonly result: R;
  readonly code?: 'IDEMPOTENT_REPLAY';
}

/** What a human must approve, as the hold frame and `approval.request` name it (one of the action classes). */
export interface ApprovalRef {
  readonly actionClass: ActionClass;
  readonly payloadHash: string;
  readonly subject: { readonly kind: 'books.signature'; readonly subjectId: string; readonly summary: string };
}

/**
 * Structured parts an error frame may carry beside its prose, so that no client
 * parses a message: `field`, the first offending parameter (a path such as `lines[0].amountCents`);
 * `approval`, on a GOVERNANCE_NOT_READY refusal that a human decision can lift (a bill held by the bill-approval rule), the
 * approval to file with `approval.request`.
 */
export interface ErrorDetails {
  readonly field?: string;
  readonly approval?: ApprovalRef;
}

export interface ErrorFrame {
  readonly ok: false;
  readonly error: { readonly code: ErrorCode; readonly message: string } & ErrorDetails;
}

export type Frame<R = unknown> = OkFrame<R> | ErrorFrame;

/** The hold frame's result: what a signature act answers without proof. */
export interface HoldResult {
  readonly status: 'approval_required';
  readonly approval: ApprovalRef & { readonly expiresInMs: number };
  readonly subjectId: string;
  readonly message: string;
}

/** Chain head: `GET snapshot`. */
export interface Snapshot {
  readonly orgId: string;
  readonly head: { readonly seq: number; readonly rowHash: string };
}

export function okFrame<R>(result: R): OkFrame<R> {
  return { ok: true, result };
}

export function errorFrame(code: ErrorCode, message: string, details: ErrorDetails = {}): ErrorFrame {
  const field = details.field;
  return {
    ok: false,
    error: {
      code,
      message,
      ...(field !== undefined ? { field } : {}),
      ...(details.approval !== undefined ? { approval: details.approval } : {}),
    },
  };
}

/**
 * The parameter a BAD_REQUEST message names first. Every validation message has the form
 * `field: problem; field: problem` (validation.ts formatIssues, and the domain's own checks follow
 * it), so the field is the path before the first `: `, when it is a path.
 */
const FIELD_PATH = /^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*): /;
/** Prefixes that name the request, not one of its parameters. */
const NOT_PARAMETERS = new Set(['params', 'body', 'request', 'headers', 'path', 'query']);
export function firstField(message: string): string | undefined {
  const m = FIELD_PATH.exec(message);
  return m && m[1] !== undefined && !NOT_PARAMETERS.has(m[1]) ? m[1] : undefined;
}

export function isHold(result: unknown): result is HoldResult {
  return typeof result === 'object' && result !== null && (result as { status?: unknown }).status === 'approval_required';
}
