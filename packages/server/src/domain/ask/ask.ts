import { events, sha256Hex, type ask as askSpecs } from '@finance-desk/protocol';
import type { z } from 'zod';
import { aiGatewayOf, type GatewayAnswer } from '../../adapters/ai-gateway.js';
import type { ReadContext } from '../../binding.js';
import { orgToday } from '../../clock.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';

/**
 * books.ask. `prepareAnswer` runs outside the transaction (binding.ts
 * bindPrepared): the gateway answers from committed data, a model is called with no lock held.
 * `recordAnswer` then audits the call through the one write path: one `books.ask.answer` event
 * (question hash, provider, model, tokens, cost, latency, grounded, citations — never the
 * question, which may hold personal data) and one `ai_calls` row, which GET cost.rollup sums.
 */
type Params = z.infer<typeof askSpecs.ask.params>;

export interface Prepared {
  readonly asOf: string;
  readonly questionHash: string;
  readonly out: GatewayAnswer;
}

export async function prepareAnswer(p: Params, ctx: ReadContext): Promise<Prepared> {
  const today = await orgToday(ctx.db, ctx.principal.orgId);
  const asOf = p.asOf ?? today;
  const out = await aiGatewayOf(ctx.db).ask(p.question, { ...ctx, asOf, today });
  return { asOf, questionHash: sha256Hex(p.question), out };
}

export async function recordAnswer(_p: Params, uow: Uow, prepared: Prepared) {
  const { out, asOf, questionHash } = prepared;
  const id = newId('ask');
  const event = await uow.emit(events.askAnswer, {
    entityId: id,
    payload: {
      questionHash,
      asOf,
      provider: out.provider,
      model: out.model,
      intent: out.intent,
      inputTokens: out.usage.inputTokens,
      outputTokens: out.usage.outputTokens,
      costMicroUsd: out.costMicroUsd,
      latencyMs: out.latencyMs,
      grounded: out.grounded,
      citations: [...out.citations],
      ...(out.error !== undefined ? { error: out.error } : {}),
      ...(out.refusedTools && out.refusedTools.length > 0 ? { refusedTools: [...out.refusedTools] } : {}),
    },
  });
  await uow.tx.run(
    `INSERT INTO ai_calls (org_id, id, actor, at, day, question_hash, provider, model, input_tokens, output_tokens,
       cost_micro_usd, latency_ms, grounded, citations, error, ledger_id, seq)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      uow.orgId,
      id,
      uow.actor,
      uow.now,
      uow.today,
      questionHash,
      out.provider,
      out.model,
      out.usage.inputTokens,
      out.usage.outputTokens,
      out.costMicroUsd,
      out.latencyMs,
      out.grounded ? 1 : 0,
      JSON.stringify(out.citations),
      out.error ?? null,
      event.ledgerId,
      event.seq,
    ],
  );
  return {
    answer: out.answer,
    citations: [...out.citations],
    grounded: out.grounded,
    notice: out.notice,
    asOf,
    intent: out.intent,
    sources: [...out.sources],
    provider: out.provider,
    model: out.model,
    usage: { inputTokens: out.usage.inputTokens, outputTokens: out.usage.outputTokens, costMicroUsd: out.costMicroUsd },
    latencyMs: out.latencyMs,
    questionHash,
    ledgerId: event.ledgerId,
  };
}
