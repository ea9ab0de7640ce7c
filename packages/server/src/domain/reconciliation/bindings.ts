import type { MethodBinding } from '../../binding.js';

/** Methods of this area, bound once (see registry.ts). */
export const reconciliationBindings: readonly MethodBinding[] = [];
