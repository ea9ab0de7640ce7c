import { contacts } from '@finance-desk/protocol';
import { bind, type MethodBinding } from '../../binding.js';
import { contactCreate, contactUpdate } from './contacts.js';

/** Methods of this area, bound once (see registry.ts); GET contacts.list is bound in reads.ts. */
export const contactsBindings: readonly MethodBinding[] = [
  bind(contacts.contactCreate, contactCreate),
  bind(contacts.contactUpdate, contactUpdate),
];
