import type { MethodSpec } from './types.js';

/** Declarations of this area (see index.ts); each method once, with strict params. */
export const reconciliationMethods: readonly MethodSpec[] = [];
