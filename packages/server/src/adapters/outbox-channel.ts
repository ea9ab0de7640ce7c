/**
 * The notification channel an outbox row is announced on. Its own module so that the channels
 * that write rows (payments.ts, lodgement.ts) need not import the dispatcher that reads them.
 */
export const OUTBOX_CHANNEL = 'outbox';
