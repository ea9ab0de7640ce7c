import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/**
 * Signed checkpoints of an organisation's chain, in the formats transparency
 * logs use, so existing tooling and auditors can read them:
 * - the body is a C2SP tlog-checkpoint: `<origin>\n<size>\n<base64 root hash>\n`, where size is the
 *   head seq and the "root hash" is the head's row_hash. Finance Desk's log is a hash chain, not a
 *   Merkle tree: every row hash commits to every row before it, so the chain from genesis to `size`
 *   is the inclusion proof and the rows after it are the consistency proof (`chainExtends`).
 * - the signature is a C2SP signed note: the body, a blank line, then `— <key name> <base64(key
 *   hash ‖ Ed25519 signature)>`, the key hash being the first 4 bytes of
 *   SHA-256(key name ‖ "\n" ‖ 0x01 ‖ public key). A verifier key is `<name>+<hex key hash>+<base64(0x01 ‖ public key)>`.
 * This module uses only node:crypto, so an auditor's standalone verifier can carry it.
 */
export interface Checkpoint {
  readonly origin: string;
  readonly size: number;
  /** The head row_hash, 64 lowercase hex characters. */
  readonly rootHash: string;
}

const ED25519 = 0x01;
const EM_DASH = '\u2014';
const ORIGIN = /^[\x21-\x7e]{1,255}$/;
const HEX64 = /^[0-9a-f]{64}$/;

export function checkpointBody(c: Checkpoint): string {
  if (!ORIGIN.test(c.origin)) throw new Error('checkpoint origin: 1 to 255 printable characters, no spaces');
  if (!Number.isSafeInteger(c.size) || c.size < 0) throw new Error('checkpoint size: a non-negative integer');
  if (!HEX64.test(c.rootHash)) throw new Error('checkpoint root hash: 64 hex characters');
  return `${c.origin}\n${c.size}\n${Buffer.from(c.rootHash, 'hex').toString('base64')}\n`;
}

export function parseCheckpointBody(body: string): Checkpoint {
  const lines = body.split('\n');
  if (lines.length < 4 || lines[lines.length - 1] !== '') throw new Error('checkpoint: expected origin, size and root hash lines');
  const [origin = '', size = '', root = ''] = lines;
  if (!ORIGIN.test(origin)) throw new Error('checkpoint: malformed origin line');
  if (!/^(0|[1-9][0-9]{0,15})$/.test(size) || !Number.isSafeInteger(Number(size))) throw new Error('checkpoint: malformed size line');
  const hash = Buffer.from(root, 'base64');
  if (hash.length !== 32 || hash.toString('base64') !== root) throw new Error('checkpoint: malformed root hash line');
  return { origin, size: Number(size), rootHash: hash.toString('hex') };
}

function rawPublicKey(key: KeyObject): Buffer {
  const der = key.export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32);
}

function keyHash(name: string, publicKey: Buffer): Buffer {
  return createHash('sha256')
    .update(Buffer.concat([Buffer.from(`${name}\n`, 'utf8'), Buffer.from([ED25519]), publicKey]))
    .digest()
    .subarray(0, 4);
}

/** An Ed25519 private key from its 32-byte seed (base64), the form CHECKPOINT_SIGNING_KEY holds. */
export function signingKeyFromSeed(seedBase64: string): KeyObject {
  const seed = Buffer.from(seedBase64, 'base64');
  if (seed.length !== 32 || seed.toString('base64') !== seedBase64) throw new Error('must be the base64 of a 32-byte Ed25519 seed');
  // PKCS#8 wrapping of an Ed25519 seed: a fixed 16-byte prefix, then the seed.
  const prefix = Buffer.from('302e020100300506032b657004220420', 'hex');
  return createPrivateKey({ key: Buffer.concat([prefix, seed]), format: 'der', type: 'pkcs8' });
}

export function verifierKey(name: string, key: KeyObject): string {
  const pub = rawPublicKey(key.type === 'private' ? createPublicKey(key) : key);
  return `${name}+${keyHash(name, pub).toString('hex')}+${Buffer.concat([Buffer.from([ED25519]), pub]).toString('base64')}`;
}

export interface ParsedVerifierKey {
  readonly name: string;
  readonly keyId: string;
  readonly publicKey: KeyObject;
}

export function parseVerifierKey(vkey: string): ParsedVerifierKey {
  // The key's base64 may itself contain '+': split at the first two only (as Go's note package does).
  const m = /^([^+]+)\+([^+]+)\+(.+)$/.exec(vkey.trim());
  if (!m) throw new Error('verifier key: expected <name>+<key hash>+<key>');
  const [, name = '', id = '', material = ''] = m;
  const bytes = Buffer.from(material, 'base64');
  if (!ORIGIN.test(name) || !/^[0-9a-f]{8}$/.test(id) || bytes.length !== 33 || bytes[0] !== ED25519) {
    throw new Error('verifier key: malformed (only Ed25519 keys are used)');
  }
  const pub = bytes.subarray(1);
  if (keyHash(name, pub).toString('hex') !== id) throw new Error('verifier key: key hash does not match the key');
  const publicKey = createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), pub]),
    format: 'der',
    type: 'spki',
  });
  return { name, keyId: id, publicKey };
}

/** Sign `body` (a checkpoint body) as a C2SP signed note with the named key. */
export function signNote(body: string, name: string, privateKey: KeyObject): string {
  if (!body.endsWith('\n')) throw new Error('a note body ends with a newline');
  const pub = rawPublicKey(createPublicKey(privateKey));
  const signature = sign(null, Buffer.from(body, 'utf8'), privateKey);
  return `${body}\n${EM_DASH} ${name} ${Buffer.concat([keyHash(name, pub), signature]).toString('base64')}\n`;
}

export type NoteVerdict =
  | { readonly ok: true; readonly body: string; readonly checkpoint: Checkpoint; readonly signedBy: string }
  | { readonly ok: false; readonly reason: string };

/**
 * Open a signed note with a verifier key: a signature line of that key must verify over the text.
 * Lines signed by other keys are ignored (a note may carry several signatures).
 */
export function openNote(
  note: string,
  vkey: string,
): { readonly ok: true; readonly body: string; readonly signedBy: string } | { readonly ok: false; readonly reason: string } {
  let key: ParsedVerifierKey;
  try {
    key = parseVerifierKey(vkey);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) return { ok: false, reason: 'not a signed note (no blank line before the signatures)' };
  const body = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  for (const line of lines) {
    const m = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/.exec(line);
    if (!m) return { ok: false, reason: 'malformed signature line' };
    if (m[1] !== key.name) continue;
    const sig = Buffer.from(m[2] as string, 'base64');
    if (sig.length !== 68 || sig.subarray(0, 4).toString('hex') !== key.keyId) continue;
    if (!verify(null, Buffer.from(body, 'utf8'), key.publicKey, sig.subarray(4))) return { ok: false, reason: 'signature does not verify' };
    return { ok: true, body, signedBy: key.name };
  }
  return { ok: false, reason: `no signature by ${key.name} (key hash ${key.keyId})` };
}

/** Open a signed checkpoint: the note must verify with `vkey` and its text be a checkpoint body. */
export function openCheckpoint(note: string, vkey: string): NoteVerdict {
  const opened = openNote(note, vkey);
  if (!opened.ok) return opened;
  try {
    return { ok: true, body: opened.body, checkpoint: parseCheckpointBody(opened.body), signedBy: opened.signedBy };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}
