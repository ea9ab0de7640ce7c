import type { ErrorCode } from './errors.js';

/** POST success (D1). `code` appears only on an idempotent replay (D2). */
export interface OkFrame<R = unknown> {
  readonly ok: true;
  readonly result: R;
  readonly code?: 'IDEMPOTENT_REPLAY';
}

export interface ErrorFrame {
  readonly ok: false;
  readonly error: { readonly code: ErrorCode; readonly message: string };
}

export type Frame<R = unknown> = OkFrame<R> | ErrorFrame;

/** The hold frame's result (seed §2.2). */
export interface HoldResult {
  readonly status: 'approval_required';
  readonly approval: {
    readonly actionClass: string;
    readonly payloadHash: string;
    readonly subject: {
      readonly kind: 'books.signature';
      readonly subjectId: string;
      readonly summary: string;
    };
    readonly expiresInMs: number;
  };
  readonly subjectId: string;
  readonly message: string;
}

/** Chain head (seed §2.5). */
export interface Snapshot {
  readonly orgId: string;
  readonly head: { readonly seq: number; readonly rowHash: string };
}

export function okFrame<R>(result: R): OkFrame<R> {
  return { ok: true, result };
}

export function errorFrame(code: ErrorCode, message: string): ErrorFrame {
  return { ok: false, error: { code, message } };
}

export function isHold(result: unknown): result is HoldResult {
  return (
    typeof result === 'object' &&
    result !== null &&
    (result as { status?: unknown }).status === 'approval_required'
  );
}
