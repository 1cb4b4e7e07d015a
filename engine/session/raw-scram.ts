/**
 * SCRAM-SHA-256 (RFC 7677, without channel binding) for the raw startup client: the fixtures
 * store passwords as SCRAM verifiers, so a raw client that cannot answer SASL could not reach
 * a session on any of them. Passwords are used as given (no SASLprep): pooltest's fixtures
 * generate ASCII passwords, and a non-ASCII one fails as AUTH_FAILED-like refusal, not silently.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';

const hmac = (key: Buffer, text: string): Buffer => createHmac('sha256', key).update(text).digest();

export interface ScramState {
  nonce: string;
  clientFirstBare: string;
  serverSignature?: string;
}

/** The SASLInitialResponse body: mechanism name, then the client-first message with its length. */
export function scramInitial(): { state: ScramState; body: Buffer } {
  const nonce = randomBytes(18).toString('base64');
  const clientFirstBare = `n=*,r=${nonce}`;
  const first = Buffer.from(`n,,${clientFirstBare}`);
  const len = Buffer.alloc(4);
  len.writeInt32BE(first.length);
  return { state: { nonce, clientFirstBare }, body: Buffer.concat([Buffer.from('SCRAM-SHA-256\0'), len, first]) };
}

/** The client-final message answering server-first, or why it cannot be answered. */
export function scramFinal(state: ScramState, password: string, serverFirst: string): Buffer | string {
  const attrs = new Map(serverFirst.split(',').map((kv) => [kv.slice(0, 1), kv.slice(2)] as const));
  const nonce = attrs.get('r') ?? '';
  const salt = attrs.get('s');
  const iterations = Number(attrs.get('i'));
  if (!nonce.startsWith(state.nonce) || nonce.length === state.nonce.length || !salt)
    return 'server-first message without a valid nonce or salt';
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > 1_000_000)
    return `server-first iteration count ${attrs.get('i') ?? '(none)'} out of bounds`;
  const salted = pbkdf2Sync(password, Buffer.from(salt, 'base64'), iterations, 32, 'sha256');
  const withoutProof = `c=biws,r=${nonce}`;
  const authMessage = `${state.clientFirstBare},${serverFirst},${withoutProof}`;
  const clientKey = hmac(salted, 'Client Key');
  const signature = hmac(createHash('sha256').update(clientKey).digest(), authMessage);
  const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!));
  state.serverSignature = hmac(hmac(salted, 'Server Key'), authMessage).toString('base64');
  return Buffer.from(`${withoutProof},p=${proof.toString('base64')}`);
}

/** Whether server-final proves the server knew the verifier. */
export function scramVerified(state: ScramState, serverFinal: string): boolean {
  return state.serverSignature !== undefined && serverFinal === `v=${state.serverSignature}`;
}
