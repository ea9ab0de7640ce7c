import { z } from 'zod';
import { read } from './index-fields.js';

/**
 * Machine-readable descriptions of the API, served as GET reads on `org.read` like every other
 * read. Each file here is generated from the declarations by
 * `artifacts.ts`; adding an artifact is one entry in ARTIFACT_FILES (and the compiler then asks
 * artifacts.ts for its builder). This module declares names only, so the `reads` list can hold
 * the reads without importing the generator that itself reads that list.
 */
/** A JSON Schema document: an object (its keywords are JSON Schema's, not declared here). */
const jsonSchema = z.record(z.string(), z.unknown());

export const ARTIFACT_FILES = [
  {
    file: 'methods.json',
    result: z.object({
      version: z.string(),
      methods: z.array(
        z.object({
          name: z.string(),
          scope: z.string(),
          kind: z.string(),
          actionClass: z.string().optional(),
          summary: z.string(),
          params: jsonSchema,
          result: jsonSchema,
        }),
      ),
      reads: z.array(
        z.object({ name: z.string(), scope: z.string(), summary: z.string(), query: jsonSchema, result: jsonSchema.optional() }),
      ),
      publicRoutes: z.array(z.record(z.string(), z.unknown())),
    }),
    summary:
      'Every POST method (name, scope, kind, action class, summary, params and result as JSON Schema) and every GET read ' +
      '(name, scope, summary, query as JSON Schema), generated from the protocol declarations; the same file as docs/artifacts/methods.json.',
    brief:
      'Every method and read of this API with its scope, kind, full contract text, and params and result as JSON Schema. Large: fetch it only when a tool description is not enough.',
  },
  {
    file: 'openapi.json',
    result: z.looseObject({
      openapi: z.literal('3.1.0'),
      info: z.looseObject({ title: z.string(), version: z.string() }),
      paths: z.record(z.string(), z.unknown()),
      components: z.record(z.string(), z.unknown()),
    }),
    summary:
      'The API as an OpenAPI 3.1 document, generated from the protocol declarations: every method, read and keyless route, ' +
      'the error frame and its codes, the hold frame, rate-limit and idempotency headers; the same file as docs/artifacts/openapi.json.',
    brief: 'The whole API as an OpenAPI 3.1 document (methods, reads, errors, hold frame, headers). Large: for building an HTTP client.',
  },
  {
    file: 'events.json',
    result: z.object({
      /** The catalogue's format version (events.ts EVENT_CATALOGUE_VERSION). */
      version: z.number().int(),
      events: z.array(
        z.object({ family: z.string(), kind: z.string(), summary: z.string(), emittedBy: z.array(z.string()), payload: jsonSchema }),
      ),
    }),
    summary:
      'The event catalogue: every kind of ledger event (family, kind, summary), which methods (or operator, console, system) emit it, and its payload as JSON Schema; ' +
      'the same file as docs/artifacts/events.json.',
    brief: 'The event catalogue: every kind of ledger event, the methods that emit it, and its payload as JSON Schema, for reading events.',
  },
] as const;

export type ArtifactFile = (typeof ARTIFACT_FILES)[number]['file'];

/** The path prefix of the artifact reads: `artifacts/<file>`. */
export const ARTIFACTS_READ = 'artifacts';

export const artifactsIndex = read({
  name: ARTIFACTS_READ,
  scope: 'org.read',
  summary:
    'The machine-readable artifacts of this API: for each, its name, path (GET it with the same key) and the SHA-256 of its bytes, ' +
    'so a client fetches a description again only when it changed; and `checkpoints`: when the server signs checkpoints of each chain, ' +
    "the key name, the C2SP verifier key and this organisation's log origin (null otherwise).",
  brief:
    "This API's machine-readable descriptions (methods.json, openapi.json, events.json) with their paths and SHA-256, to refetch one only when it changed; and, when the server signs ledger checkpoints, the key to verify them.",
  query: z.strictObject({}),
  result: z.object({
    artifacts: z.array(
      z.object({ name: z.string(), path: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/), bytes: z.number().int() }),
    ),
    /** Signed checkpoints: the C2SP verifier key and this organisation's log origin; null when the server signs none. */
    checkpoints: z.object({ keyName: z.string(), verifierKey: z.string(), origin: z.string() }).nullable(),
  }),
});

/** One GET read per artifact, `artifacts/<file>`, with the file it serves. */
export const artifactReads = ARTIFACT_FILES.map((a) => ({
  file: a.file,
  // The name's type stays the union of literal names, so typed clients know every read by name.
  spec: read({
    name: `${ARTIFACTS_READ}/${a.file}`,
    scope: 'org.read',
    summary: a.summary,
    brief: a.brief,
    query: z.strictObject({}),
    result: a.result,
  }),
}));
