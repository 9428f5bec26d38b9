import {
  AppError,
  CONTRACT_VERSION,
  type CreateTemplateMemoryMessage,
  type CreateTemplateMemoryResponse,
  ErrorCode,
  LIMITS,
} from '@tm/contracts';
import type { WriteMemory } from '../../clients/memory-writer.js';
import { underFence } from '../../data-access/namespace-fence.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import {
  claimMemoryRequest,
  releaseMemoryRequest,
  storeTemplateMemory,
} from '../../data-access/template-memory-repository.js';
import { renderTemplateText } from '../templates/render-template-text.js';
import { resolveMemoryTemplate } from '../templates/resolve-memory-template.js';
import { templateMemoryView } from '../templates/template-views.js';
import { assertTemplateData } from '../templates/validate-template-data.js';
import { requestFingerprint } from './request-fingerprint.js';

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
 * with the caller's scope, so consent, idempotency and billing apply as to any write.
 *
 * Order matters: everything that can refuse the request (validation, rendering, storing the data with
 * the claim) happens before the write; after it only the template memory row is inserted, from values
 * the database has already accepted once. If that insert still fails (an outage), the answer is an
 * error but a retry with the same key sends the very same write (the claim's time and text), which
 * memory replays, and then finishes the insert: the retry answers the original outcome.
 *
 * Both rows go in under the namespace's fence (namespace-fence.ts): into a namespace being deleted the
 * request is refused (409), before the write or, if the deletion started meanwhile, after it (whose
 * record the memory service's deletion then removes); a row stored before the fence went up is seen
 * and removed by the deletion.
 */
/** A row's insert under the fence's lock: one statement (the Prisma default is 5 s). */
const STORE_TIMEOUT_MS = 5_000;

export async function createTemplateMemory(
  msg: CreateTemplateMemoryMessage,
  deps: { writeMemory: WriteMemory; storeMemory?: typeof storeTemplateMemory },
  db = getPrisma(),
): Promise<CreateTemplateMemoryResponse> {
  const { scope, body } = msg;
  const template = await resolveMemoryTemplate(scope.tenant_id, body, db);
  assertTemplateData(template.fields, body.data);
  const text = renderTemplateText(template, body.data);
  assertRetainable(text);

  const fingerprint = requestFingerprint(body);
  const { metadata } = template;
  const fence = { tenantId: scope.tenant_id, namespace: body.namespace };
  const claim = await underFence(
    db,
    fence,
    (tx) =>
      claimMemoryRequest(tx, {
        idempotencyKey: msg.idempotency_key,
        fingerprint,
        occurredAt: new Date(),
        pending: {
          tenantId: scope.tenant_id,
          namespace: body.namespace,
          source: metadata.source,
          templateId: metadata.template_id,
          marketplaceTemplateId: metadata.marketplace_template_id,
          templateName: metadata.template_name,
          templateVersion: metadata.template_version,
          templateRevision: metadata.template_revision,
          data: body.data,
          text,
        },
      }),
    { timeoutMs: STORE_TIMEOUT_MS },
  );
  if (claim.fingerprint !== fingerprint) {
    throw new AppError(ErrorCode.IdempotencyConflict, 'This idempotency key was used with another request', {
      fields: [{ path: 'idempotency_key', message: 'was used with a different body' }],
    });
  }
  // A retry sends what the first attempt claimed, even if the template has moved on since.
  const { pending } = claim;
  const written = await deps.writeMemory({
    scope,
    request_id: msg.request_id,
    idempotency_key: msg.idempotency_key,
    body: {
      contract_version: CONTRACT_VERSION,
      operation: 'memory.write',
      namespace: pending.namespace,
      event: {
        occurred_at: claim.occurredAt.toISOString(),
        content: { text: pending.text },
        source: {
          type: 'template',
          id: pending.marketplaceTemplateId
            ? `marketplace:${pending.marketplaceTemplateId}@${pending.templateVersion}`
            : // A label may repeat across revisions; the revision names the definition.
              `template:${pending.templateId}@${pending.templateRevision ?? pending.templateVersion}`,
        },
      },
    },
  });
  const answer = {
    operation: 'template.memory.create' as const,
    request_id: msg.request_id,
    idempotency_key: msg.idempotency_key,
    idempotency_outcome: written.idempotency_outcome,
    namespace: pending.namespace,
    usage: written.usage,
  };
  if (written.state !== 'retained' || written.memory_id === null) {
    // Nothing retained now (consent missing): free the key. A replay of a memory forgotten since keeps
    // its claim, so every retry sends the same write and is answered the same way.
    if (written.idempotency_outcome === 'Accepted') {
      await releaseMemoryRequest(db, scope.tenant_id, msg.idempotency_key);
    }
    return { ...answer, state: 'not_retained', memory_id: null, text, template: metadata, created_at: null };
  }
  const store = deps.storeMemory ?? storeTemplateMemory;
  const row = { memoryId: written.memory_id, ...pending };
  const stored = await underFence(
    db,
    { tenantId: scope.tenant_id, namespace: pending.namespace },
    (tx) => store(tx, row),
    { timeoutMs: STORE_TIMEOUT_MS },
  );
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
