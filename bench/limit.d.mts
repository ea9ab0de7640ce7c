/** Types for limit.mjs (the bench-limit test imports it from TypeScript). */
export const SCHEMA: string;

export function canonical(value: unknown): string;

export interface LimitServer {
  url: string;
  port: number;
  acknowledged(): number;
  stop(): Promise<void>;
}

export function start(options: { file: string; port?: number; host?: string }): Promise<LimitServer>;

export function checkChain(file: string, acknowledged: number, slack?: number): string[];
