import type { WebhookEventType } from '@text-memory/sdk';

/** What each event type a webhook endpoint can ask for means, in the order the API lists them. */
export const WEBHOOK_EVENT_LABELS: Record<WebhookEventType, string> = {
  'memory.retained': 'a memory was written and retained',
  'memory.deleted': 'one memory was forgotten',
  'namespace.deleted': 'a namespace was deleted',
  'import.completed': 'an import finished',
  'import.failed': 'an import failed',
  'anomaly.raised': 'a telemetry signal crossed its threshold',
  'charge.voided': 'a charge was voided',
};

/**
 * Every event type, from the SDK's generated type: a type the API adds fails the Record above until it
 * is described here, so the form never silently lacks one.
 */
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENT_LABELS) as WebhookEventType[];
