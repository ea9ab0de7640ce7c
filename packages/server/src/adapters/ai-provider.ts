import type { ReadContext } from '../binding.js';

/**
 * What a provider of books.ask answers with, apart from the gateway (ai-gateway.ts) that picks
 * one, so that the providers and the gateway do not import each other.
 */
export type SourceKind = 'invoice' | 'bill' | 'journal' | 'bas' | 'approval' | 'hold' | 'event' | 'report';

export interface Source {
  readonly kind: SourceKind;
  readonly id: string;
  readonly ledgerId: string | null;
}

export interface AskContext extends ReadContext {
  /** The date the question is asked as at (asOf, default the organisation's today). */
  readonly asOf: string;
  /** The organisation's today. */
  readonly today: string;
}

export interface ProviderAnswer {
  readonly answer: string;
  /** Ledger ids of events behind the answer; the provider guarantees each one is real. */
  readonly citations: readonly string[];
  readonly sources: readonly Source[];
  readonly grounded: boolean;
  /** What the grounded answerer recognised; null otherwise. */
  readonly intent: string | null;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  /** Why the provider gave no answer (timeout, HTTP status…), for the audit; never a secret. */
  readonly error?: string;
  /** Tool calls a model asked for and the gateway refused (not a read it may use). */
  readonly refusedTools?: readonly string[];
}

export interface Provider {
  readonly name: string;
  readonly model: string;
  answer(question: string, ctx: AskContext): Promise<ProviderAnswer>;
}
