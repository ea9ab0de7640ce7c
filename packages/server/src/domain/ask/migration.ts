import type { Migration } from '../../storage/migration-types.js';

/**
 * Migration 27 (books.ask and GET cost.rollup): the audit of the AI gateway. One row per books.ask
 * call, written in the same transaction as its `books.ask.answer` event (ledger_id, seq): who
 * asked (actor), when (at, and day: the organisation's local date, what cost.rollup groups by),
 * the SHA-256 of the question (never its text), provider, model, tokens, cost in integer
 * micro-dollars, latency, whether the answer was grounded, its citations (JSON array of ledger
 * ids) and, when the provider failed, why. Indexed by (org_id, day) for cost.rollup.
 */
export const migration: Migration = {
  id: 27,
  name: 'ai gateway: ai_calls audit for books.ask and cost.rollup',
  statements: [
    `CREATE TABLE ai_calls (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      actor TEXT NOT NULL,
      at TEXT NOT NULL,
      day TEXT NOT NULL,
      question_hash TEXT NOT NULL,
      provider TEXT NOT NULL,
      model TEXT NOT NULL,
      input_tokens BIGINT NOT NULL,
      output_tokens BIGINT NOT NULL,
      cost_micro_usd BIGINT NOT NULL,
      latency_ms BIGINT NOT NULL,
      grounded BIGINT NOT NULL,
      citations TEXT NOT NULL,
      error TEXT,
      ledger_id TEXT NOT NULL,
      seq BIGINT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    'CREATE INDEX ai_calls_day ON ai_calls (org_id, day, actor, model)',
  ],
};
