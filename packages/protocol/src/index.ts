export * from './bindings.js';
export * from './canonical-json.js';
export * from './canonical-text.js';
export * from './chain.js';
export * from './checkpoint.js';
export * from './errors.js';
export * from './flat-schema.js';
export * from './frames.js';
export * from './hash.js';
export * from './limits.js';
export * from './scopes.js';
export * from './signature.js';
export * from './tax.js';
export * from './text-rules.js';
export * from './validation.js';
export * from './methods/index.js';
export * from './artifacts.js';
export * from './paging.js';
export {
  cents,
  days,
  id as idField,
  text,
  multilineText,
  singleLine,
  queryInt,
  queryIntRange,
  proofFields,
  withProof,
  hash64,
  isoDate,
  isCalendarDate,
  email,
} from './methods/fields.js';
export * from './methods/people-fields.js';
export * as events from './events.js';
export {
  EVENT_FAMILIES,
  EVENT_ORIGINS,
  checkEvent,
  eventCatalogueArtifact,
  eventKind,
  eventKindOf,
  eventKinds,
  eventKindsByKind,
  sourceName,
  type EventFamily,
  type EventKindSpec,
  type EventOrigin,
  type EventPayloadOf,
  type EventSource,
} from './events.js';
