import { ASK_NOTICE } from '@finance-desk/protocol';
import { DEFAULT_AI_CONFIG, type AiConfig } from '../config.js';
import { groundedProvider } from './ai-grounded.js';
import { openAiProvider } from './ai-openai.js';
import type { ReadTool } from './ai-tools.js';
import type { AskContext, Provider, ProviderAnswer } from './ai-provider.js';

export type { AskContext, Provider, ProviderAnswer, Source, SourceKind } from './ai-provider.js';

/**
 * The AI gateway behind books.ask. A provider answers a question
 * from the books; the gateway times it, prices it in integer micro-dollars and hands the outcome
 * to the write path, which audits it (domain/ask/ask.ts: one `books.ask.answer` event and one
 * `ai_calls` row). Providers only read: the grounded answerer calls the domain read functions, a
 * model may call only the books read methods (ai-tools.ts) with the caller's own principal.
 */

/** What the gateway hands to the write path to record. */
export interface GatewayAnswer extends ProviderAnswer {
  readonly provider: string;
  readonly model: string;
  readonly costMicroUsd: number;
  readonly latencyMs: number;
  readonly notice: string;
}

export const CITATIONS_MAX = 50;
export const SOURCES_MAX = 50;

/**
 * Integer micro-dollars for `tokens` at `pricePerMTok` micro-dollars per million tokens, rounded
 * up (a call is never priced below its cost). BigInt: no float, no overflow.
 */
export function costMicroUsd(inputTokens: number, outputTokens: number, config: AiConfig): number {
  const micro =
    BigInt(inputTokens) * BigInt(config.priceInputMicroUsdPerMTok) + BigInt(outputTokens) * BigInt(config.priceOutputMicroUsdPerMTok);
  return Number((micro + 999_999n) / 1_000_000n);
}

/** API keys never reach an answer: ours (fdk_…) or the provider's, whatever the model writes. */
export function redactSecrets(text: string, config: AiConfig): string {
  let out = text.replace(/fdk_[A-Za-z0-9_-]+/g, '[redacted key]');
  if (config.apiKey && config.apiKey.length >= 4) out = out.split(config.apiKey).join('[redacted key]');
  return out;
}

export class AiGateway {
  readonly provider: Provider;

  constructor(
    readonly config: AiConfig,
    tools: readonly ReadTool[],
  ) {
    this.provider = config.provider === 'openai' ? openAiProvider(config, tools) : groundedProvider();
  }

  async ask(question: string, ctx: AskContext): Promise<GatewayAnswer> {
    const started = process.hrtime.bigint();
    const out = await this.provider.answer(question, ctx);
    const latencyMs = Number((process.hrtime.bigint() - started) / 1_000_000n);
    const citations = [...new Set(out.citations)].slice(0, CITATIONS_MAX);
    return {
      ...out,
      answer: redactSecrets(out.answer, this.config),
      citations,
      sources: out.sources.slice(0, SOURCES_MAX),
      provider: this.provider.name,
      model: this.provider.model,
      costMicroUsd: costMicroUsd(out.usage.inputTokens, out.usage.outputTokens, this.config),
      latencyMs,
      notice: ASK_NOTICE,
    };
  }
}

/** The gateway of each database's server (set by startServer); the grounded default otherwise. */
const gateways = new WeakMap<object, AiGateway>();

export function setAiGateway(db: object, gateway: AiGateway): void {
  gateways.set(db, gateway);
}

export function aiGatewayOf(db: object): AiGateway {
  let g = gateways.get(db);
  if (!g) {
    g = new AiGateway(DEFAULT_AI_CONFIG, []);
    gateways.set(db, g);
  }
  return g;
}
