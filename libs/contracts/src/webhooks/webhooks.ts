import { z } from 'zod';
import { queryInteger } from '../http/query-integer.js';

/**
 * Webhooks: endpoints an owner or admin registers under /api/v1/control/webhook-endpoints,
 * the deliveries the webhooks service makes to them (Standard Webhooks), and the bus messages the
 * gateway sends it. Decisions: docs/decisions/webhooks.md, "Webhooks".
 */

export const WEBHOOK_EVENT_TYPES = [
  'memory.retained',
  'memory.deleted',
  'namespace.deleted',
  'import.completed',
  'import.failed',
  'anomaly.raised',
  'charge.voided',
] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

export const WEBHOOK_LIMITS = { urlMaxChars: 2_048, descriptionMaxChars: 500 } as const;
export const WEBHOOK_DELIVERY_PAGE = { default: 50, max: 100 } as const;

const Timestamp = z.iso.datetime({ offset: true });

/**
 * What a URL's authority holds as written: after `scheme:` and any slashes (`http:host` and
 * `http:///host` parse too), to the first `/`, `\`, `?` or `#`, where the WHATWG parser ends it for http(s).
 */
const rawAuthority = (value: string) => /^[a-z][a-z0-9+.-]*:[/\\]*([^/\\?#]*)/i.exec(value)?.[1] ?? '';

/**
 * http or https, no userinfo, nothing the URL parser would silently drop or rewrite (whitespace,
 * control characters, a backslash read as `/`): the service stores the parsed `href` and calls exactly
 * that, so what was sent must read the same. Whether its addresses may be reached is decided when it
 * connects.
 */
export const WebhookUrl = z
  .string()
  .max(WEBHOOK_LIMITS.urlMaxChars, `url must be at most ${WEBHOOK_LIMITS.urlMaxChars} characters`)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  .refine((value) => !/[\s\x00-\x1f\x7f]/u.test(value), 'must not contain spaces or control characters')
  .refine((value) => !value.includes('\\'), 'must not contain a backslash')
  .refine((value) => {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  }, 'must be an http or https URL')
  .refine((value) => {
    if (!URL.canParse(value)) return true;
    const url = new URL(value);
    // An empty userinfo (`http://:@host`) parses to no user and no password: the `@` is refused as written.
    return url.username === '' && url.password === '' && !rawAuthority(value).includes('@');
  }, 'must not carry a user name or password')
  .meta({ description: 'Where deliveries are POSTed (http or https); private addresses are refused' });

const Events = z
  .array(WebhookEventType)
  .min(1, 'give at least one event type')
  .refine((e) => new Set(e).size === e.length, 'events must not repeat');

const Description = z
  .string()
  .max(
    WEBHOOK_LIMITS.descriptionMaxChars,
    `description must be at most ${WEBHOOK_LIMITS.descriptionMaxChars} characters`,
  );

export const WebhookEndpointCreateRequest = z
  .strictObject({
    url: WebhookUrl,
    events: Events,
    description: Description.default(''),
    include_text: z.boolean().default(false).meta({
      description: 'Memory text in payloads (memory.retained): off unless asked for',
    }),
  })
  .meta({ id: 'WebhookEndpointCreateRequest' });
export type WebhookEndpointCreateRequest = z.infer<typeof WebhookEndpointCreateRequest>;

export const WebhookEndpointUpdateRequest = z
  .strictObject({
    url: WebhookUrl.optional(),
    events: Events.optional(),
    description: Description.optional(),
    include_text: z.boolean().optional(),
    enabled: z.boolean().optional().meta({ description: 'true also clears disabled_reason' }),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one field')
  .meta({ id: 'WebhookEndpointUpdateRequest' });
export type WebhookEndpointUpdateRequest = z.infer<typeof WebhookEndpointUpdateRequest>;

export const WebhookEndpointView = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string(),
    events: z.array(WebhookEventType),
    include_text: z.boolean(),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().meta({ description: 'Why the service disabled it, if it did' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpointView = z.infer<typeof WebhookEndpointView>;

const SigningSecret = z.string().meta({
  description: 'whsec_…: the signing secret, shown only in this response',
});

export const WebhookEndpointCreated = WebhookEndpointView.extend({ secret: SigningSecret }).meta({
  id: 'WebhookEndpointCreated',
});
export type WebhookEndpointCreated = z.infer<typeof WebhookEndpointCreated>;

export const WebhookSecretRotated = z
  .object({
    id: z.string(),
    secret: SigningSecret,
    previous_secret_expires_at: Timestamp.meta({
      description: 'Until then deliveries are signed with the previous secret too',
    }),
  })
  .meta({ id: 'WebhookSecretRotated' });
export type WebhookSecretRotated = z.infer<typeof WebhookSecretRotated>;

export const WebhookEndpointList = z
  .object({ data: z.array(WebhookEndpointView) })
  .meta({ id: 'WebhookEndpointList' });
export type WebhookEndpointList = z.infer<typeof WebhookEndpointList>;

export const WebhookAttemptView = z
  .object({
    attempted_at: Timestamp,
    status_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The receiver's HTTP status; null: no answer" }),
    latency_ms: z.number().int(),
    error: z
      .string()
      .nullable()
      .meta({ description: 'Why there was no 2xx answer (timeout, address_not_allowed, …)' }),
  })
  .meta({ id: 'WebhookAttempt' });

export const WebhookDeliveryView = z
  .object({
    id: z.string(),
    message_id: z
      .string()
      .meta({ description: 'The webhook-id header: one per event, kept across attempts' }),
    event_type: WebhookEventType,
    status: z.enum(['pending', 'succeeded', 'failed']),
    next_attempt_at: Timestamp.nullable(),
    created_at: Timestamp,
    attempts: z.array(WebhookAttemptView),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDeliveryView = z.infer<typeof WebhookDeliveryView>;

export const WebhookDeliveryQuery = z.strictObject({
  limit: queryInteger('limit', { min: 1, ...WEBHOOK_DELIVERY_PAGE }),
  cursor: z.string().max(200).optional().meta({ description: 'next_cursor of the previous page' }),
});
export type WebhookDeliveryQuery = z.infer<typeof WebhookDeliveryQuery>;

export const WebhookDeliveryList = z
  .object({ data: z.array(WebhookDeliveryView), next_cursor: z.string().nullable() })
  .meta({ id: 'WebhookDeliveryList' });
export type WebhookDeliveryList = z.infer<typeof WebhookDeliveryList>;

// ---- bus messages (gateway → webhooks.v1.*) ------------------------------------------------------

const TenantId = z.string().min(1);

export const WebhookEndpointCreateMessage = z.object({
  tenant_id: TenantId,
  body: WebhookEndpointCreateRequest,
});
export type WebhookEndpointCreateMessage = z.infer<typeof WebhookEndpointCreateMessage>;
export const WebhookEndpointListMessage = z.object({ tenant_id: TenantId });
export const WebhookEndpointRefMessage = z.object({ tenant_id: TenantId, endpoint_id: z.string().min(1) });
export type WebhookEndpointRefMessage = z.infer<typeof WebhookEndpointRefMessage>;
export const WebhookEndpointUpdateMessage = WebhookEndpointRefMessage.extend({
  body: WebhookEndpointUpdateRequest,
});
export type WebhookEndpointUpdateMessage = z.infer<typeof WebhookEndpointUpdateMessage>;
export const WebhookEndpointDeleted = z
  .object({ id: z.string(), deleted: z.literal(true) })
  .meta({ id: 'WebhookEndpointDeleted' });
export const WebhookDeliveryListMessage = WebhookEndpointRefMessage.extend({ query: WebhookDeliveryQuery });
export type WebhookDeliveryListMessage = z.infer<typeof WebhookDeliveryListMessage>;
export const WebhookRedeliverMessage = WebhookEndpointRefMessage.extend({ delivery_id: z.string().min(1) });
export type WebhookRedeliverMessage = z.infer<typeof WebhookRedeliverMessage>;

/** The body every delivery POSTs (Standard Webhooks): the event's type, when it happened, its data. */
export interface WebhookPayload {
  type: WebhookEventType;
  timestamp: string;
  data: Record<string, unknown>;
}
