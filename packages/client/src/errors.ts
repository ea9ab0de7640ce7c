import {
  isErrorCode,
  readSpecs,
  statusOf,
  type ApprovalRef,
  type ChainBreakReason,
  type ErrorCode,
  type ErrorFrame,
} from '@finance-desk/protocol';

/**
 * An error frame from Finance Desk, as an exception. `code` is the closed set of docs/protocol.md §6; a code
 * this client does not know is INTERNAL, as docs/protocol.md §6 requires of every client.
 */
export class FinanceDeskError extends Error {
  override readonly name: string = 'FinanceDeskError';
  readonly code: ErrorCode;
  readonly status: number;
  /** The first offending parameter, when the server named one. */
  readonly field?: string;
  /** On a GOVERNANCE_NOT_READY that a human decision can lift: the approval to request. */
  readonly approval?: ApprovalRef;
  readonly requestId: string | null;
  /** On RATE_LIMITED: how long the server asked us to wait. */
  readonly retryAfterMs?: number;

  constructor(error: ErrorFrame['error'], status: number, requestId: string | null, retryAfterMs?: number) {
    super(error.message);
    this.code = isErrorCode(error.code) ? error.code : 'INTERNAL';
    this.status = status || statusOf(this.code);
    if (error.field !== undefined) this.field = error.field;
    if (error.approval !== undefined) this.approval = error.approval;
    this.requestId = requestId;
    if (retryAfterMs !== undefined) this.retryAfterMs = retryAfterMs;
  }
}

/** `callWithApproval`: the human rejected the act, or the approval expired before a decision. */
export class ApprovalDeniedError extends FinanceDeskError {
  override readonly name: string = 'ApprovalDeniedError';
  readonly approvalId: string;
  readonly approvalStatus: 'denied' | 'expired';
  /** The human's reason, when they gave one. */
  readonly reason?: string;

  constructor(approvalId: string, approvalStatus: 'denied' | 'expired', reason: string | undefined, requestId: string | null) {
    super(
      {
        code: 'GOVERNANCE_NOT_READY',
        message: `approval ${approvalId} was ${approvalStatus}${reason ? `: ${reason}` : ''}`,
      },
      statusOf('GOVERNANCE_NOT_READY'),
      requestId,
    );
    this.approvalId = approvalId;
    this.approvalStatus = approvalStatus;
    if (reason !== undefined) this.reason = reason;
  }
}

/** `callWithApproval`: no human decided within `maxWaitMs`; the approval is still pending and may be retried later. */
export class ApprovalTimeoutError extends FinanceDeskError {
  override readonly name: string = 'ApprovalTimeoutError';
  readonly approvalId: string;
  readonly approvalStatus = 'pending' as const;

  constructor(approvalId: string, waitedMs: number, requestId: string | null) {
    super(
      {
        code: 'GOVERNANCE_NOT_READY',
        message: `approval ${approvalId} is still pending after ${waitedMs} ms; wait again with ${readSpecs.approvalWait.name} or retry later`,
      },
      statusOf('GOVERNANCE_NOT_READY'),
      requestId,
    );
    this.approvalId = approvalId;
  }
}

/** `events()`: a row that does not link to its predecessor (docs/protocol.md §4), named by seq. */
export class ChainBrokenError extends Error {
  override readonly name: string = 'ChainBrokenError';
  readonly seq: number;
  readonly reason: ChainBreakReason;
  readonly expected: string;
  readonly actual: string;

  constructor(verdict: { seq: number; reason: ChainBreakReason; expected: string; actual: string }) {
    super(`ledger chain broken at seq ${verdict.seq}: ${verdict.reason} (expected ${verdict.expected}, got ${verdict.actual})`);
    this.seq = verdict.seq;
    this.reason = verdict.reason;
    this.expected = verdict.expected;
    this.actual = verdict.actual;
  }
}
