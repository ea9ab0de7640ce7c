import { ARTIFACTS_READ, renderArtifacts, type RenderedArtifact } from '@finance-desk/protocol';

/**
 * The API's machine-readable artifacts as this process serves them: rendered
 * once from the declarations on first use and kept, since the declarations cannot change while
 * the process runs. The same text is `GET /api/v1/artifacts/<file>`, `/docs/openapi.json` and the
 * committed copy in docs/artifacts/ (a test fails when that copy drifts).
 */
let rendered: ReadonlyMap<string, RenderedArtifact> | null = null;

export function servedArtifacts(): ReadonlyMap<string, RenderedArtifact> {
  rendered ??= new Map(renderArtifacts().map((a) => [a.file, a]));
  return rendered;
}

export function servedArtifact(file: string): RenderedArtifact {
  const a = servedArtifacts().get(file);
  if (!a) throw new Error(`artifact ${file} is declared but not rendered`);
  return a;
}

/** The checkpoint signer's public side per database's server (startServer sets it). */
const verifierKeys = new WeakMap<object, { readonly keyName: string; readonly verifierKey: string }>();

export function setCheckpointVerifier(db: object, key: { readonly keyName: string; readonly verifierKey: string }): void {
  verifierKeys.set(db, key);
}

/**
 * `GET /api/v1/artifacts`: each artifact's name, path and SHA-256, so a client refetches only on
 * change; and, when checkpoints are signed, the verifier key and this organisation's log origin,
 * so an auditor can check any checkpoint (give them the key through another channel too).
 */
export function artifactsIndexBody(db: object, orgId: string): string {
  const signer = verifierKeys.get(db);
  const checkpoints = signer ? { keyName: signer.keyName, verifierKey: signer.verifierKey, origin: `${signer.keyName}/${orgId}` } : null;
  const artifacts = [...servedArtifacts().values()].map((a) => ({
    name: a.file,
    path: `/api/v1/${ARTIFACTS_READ}/${a.file}`,
    sha256: a.sha256,
    bytes: Buffer.byteLength(a.text, 'utf8'),
  }));
  return `${JSON.stringify({ artifacts, checkpoints })}\n`;
}
