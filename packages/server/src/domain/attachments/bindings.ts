import { attachments } from '@finance-desk/protocol';
import { bind, bindQuery, type MethodBinding } from '../../binding.js';
import { attachmentAdd, readAttachment } from './attachments.js';

/** Files kept with invoices, bills and journals (attachments.ts), bound once (see registry.ts). */
export const attachmentBindings: readonly MethodBinding[] = [
  bind(attachments.attachmentAdd, attachmentAdd),
  bindQuery(attachments.attachmentRead, readAttachment),
];
