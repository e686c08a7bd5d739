/**
 * Webhook signatures per the Standard Webhooks scheme (standardwebhooks.com), computed with the
 * `standardwebhooks` library (docs/adr/0012-webhooks-ssrf-discovery.md): the partner's secret is
 * `whsec_` + base64 of 24 random bytes; each request carries `webhook-id` (the delivery's message
 * id, the same on every retry), `webhook-timestamp` (Unix seconds of this attempt) and
 * `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`).
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret, `whsec_…` (printed once by `tipjar partners create`). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * The three Standard Webhooks headers for one attempt.
 * @param timestamp Unix seconds of the attempt.
 * @param body the exact request body (form-encoded string).
 */
export function signatureHeaders(
  secret: string,
  messageId: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  const signature = new Webhook(secret).sign(messageId, new Date(timestamp * 1000), body);
  return { 'webhook-id': messageId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}
