import { assets } from '@finance-desk/protocol';
import { bind, bindQuery, type MethodBinding } from '../../binding.js';
import { assetDispose } from './dispose.js';
import { listAssets } from './register-read.js';
import { assetRegister } from './register-pending.js';
import { assetDepreciationRun } from './runs.js';

/** Methods of this area (fixed assets), bound once (see registry.ts). */
export const assetsBindings: readonly MethodBinding[] = [
  bind(assets.assetDepreciationRun, assetDepreciationRun),
  bind(assets.assetDispose, assetDispose),
  bindQuery(assets.assets, listAssets),
  bind(assets.assetRegister, assetRegister),
];
