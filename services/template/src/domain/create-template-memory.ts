import {
  AppError,
  CONTRACT_VERSION,
  type CreateTemplateMemoryMessage,
  type CreateTemplateMemoryResponse,
  ErrorCode,
  LIMITS,
} from '@tm/contracts';
import type { WriteMemory } from '../clients/memory-writer.js';
import {
  claimMemoryRequest,
  releaseMemoryRequest,
  storeTemplateMemory,
} from '../data-access/template-memory-repository.js';
import { renderTemplateText } from './render-template-text.js';
import { requestFingerprint } from './request-fingerprint.js';
import { resolveMemoryTemplate } from './resolve-memory-template.js';
import { templateMemoryView } from './template-views.js';
import { assertTemplateData } from './validate-template-data.js';

function assertRetainable(text: string): void {
  const problem =
    text.trim() === ''
      ? 'renders to empty text'
      : text.length > LIMITS.textMaxChars
        ? `renders to ${text.length} characters; a memory holds at most ${LIMITS.textMaxChars}`
        : undefined;
  if (problem) {
    throw new AppError(ErrorCode.ValidationFailed, `The data ${problem}`, {
      fields: [{ path: 'data', message: problem }],
    });
  }
}

/**
 * Validate the data against the template, render its text and retain that through memory.v1.write
 * with the caller's scope, so consent, idempotency and billing apply as to any write. The template
 * memory row is stored only for a retained write, keyed by its memory id.
 *
 * Retries: the first attempt claims the idempotency key with the request's fingerprint and the event
 * time it gives the write; a retry reuses that time, so memory sees the same write and replays it.
 */
export async function createTemplateMemory(
  msg: CreateTemplateMemoryMessage,
  deps: { writeMemory: WriteMemory },
): Promise<CreateTemplateMemoryResponse> {
  const { scope, body } = msg;
  const template = await resolveMemoryTemplate(scope.tenant_id, body);
  assertTemplateData(template.fields, body.data);
  const text = renderTemplateText(template, body.data);
  assertRetainable(text);

  const fingerprint = requestFingerprint(body);
  const claim = await claimMemoryRequest({
    tenantId: scope.tenant_id,
    idempotencyKey: msg.idempotency_key,
    namespace: body.namespace,
    fingerprint,
    occurredAt: new Date(),
  });
  if (claim.fingerprint !== fingerprint) {
    throw new AppError(ErrorCode.IdempotencyConflict, 'This idempotency key was used with another request', {
      fields: [{ path: 'idempotency_key', message: 'was used with a different body' }],
    });
  }
  const { metadata } = template;
  const written = await deps.writeMemory({
    scope,
    request_id: msg.request_id,
    idempotency_key: msg.idempotency_key,
    body: {
      contract_version: CONTRACT_VERSION,
      operation: 'memory.write',
      namespace: body.namespace,
      event: {
        occurred_at: claim.occurredAt.toISOString(),
        content: { text },
        source: {
          type: 'template',
          id: metadata.marketplace_template_id
            ? `marketplace:${metadata.marketplace_template_id}@${metadata.template_version}`
            : `template:${metadata.template_id}@${metadata.template_version}`,
        },
      },
    },
  });
  const answer = {
    operation: 'template.memory.create' as const,
    request_id: msg.request_id,
    idempotency_key: msg.idempotency_key,
    idempotency_outcome: written.idempotency_outcome,
    namespace: body.namespace,
    usage: written.usage,
  };
  if (written.state !== 'retained' || written.memory_id === null) {
    await releaseMemoryRequest(scope.tenant_id, msg.idempotency_key);
    return { ...answer, state: 'not_retained', memory_id: null, text, template: metadata, created_at: null };
  }
  const stored = await storeTemplateMemory({
    memoryId: written.memory_id,
    tenantId: scope.tenant_id,
    namespace: body.namespace,
    source: metadata.source,
    templateId: metadata.template_id,
    marketplaceTemplateId: metadata.marketplace_template_id,
    templateName: metadata.template_name,
    templateVersion: metadata.template_version,
    data: body.data,
    text,
  });
  // A replay answers what the first attempt stored (the template may have moved on since).
  const view = templateMemoryView(stored);
  return {
    ...answer,
    state: 'retained',
    memory_id: view.memory_id,
    text: view.text,
    template: view.template,
    created_at: view.created_at,
  };
}
