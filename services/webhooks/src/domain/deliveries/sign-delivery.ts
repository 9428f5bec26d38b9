import { Webhook } from 'standardwebhooks';

/**
 * The three Standard Webhooks headers, signed by the specification's own library. During a rotation's
 * overlap the previous secret signs too: the header then holds both signatures, space-separated, and
 * a receiver holding either secret accepts the delivery.
 */
export function signDelivery(
  messageId: string,
  body: string,
  secrets: string[],
  at: Date = new Date(),
): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(messageId, at, body)).join(' '),
  };
}
