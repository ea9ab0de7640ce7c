export * from './fields.js';
export { method, read } from './types.js';
