/**
 * Bearer tokens, account tokens and other high-entropy secrets: generated from node:crypto, stored as SHA-256
 * hashes (a 256-bit random secret needs no slow KDF; a stolen table reveals no usable token).
 */
import { createHash, randomBytes } from 'node:crypto';

/** A new random secret: 32 bytes, base64url (43 characters). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** SHA-256 of a secret, hex: what the database stores. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
