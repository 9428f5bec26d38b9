import { randomUUID } from 'node:crypto';
import {
  AppError,
  type ChatCompletion,
  type ChatCompletionRequest,
  type ChatMemoryExtension,
  type ChatModel,
  CONTRACT_VERSION,
  chatModelById,
  chatNamespaceOf,
  countTokens,
  ErrorCode,
  LIMITS,
  messageText,
  RUNTIME,
  type Scope,
  type WriteResponse,
} from '@tm/contracts';
import type { MemoryClient } from '../../clients/memory-client.js';
import { chatTurnKey, composeChatReply } from './compose-chat-reply.js';

export const SYSTEM_FINGERPRINT = `tm-${RUNTIME.model_version}`;

export interface ChatOutcome {
  completion: ChatCompletion;
  /** For the request record: the write's state and the units this call was billed. */
  record: { namespace: string; state: string; units: number; billingState: 'billable' | 'no_data' };
}

/** A model id the list does not have is 404 at `model`, as OpenAI answers `model_not_found`. */
export function modelOrThrow(id: string): ChatModel {
  const model = chatModelById(id);
  if (!model) {
    throw new AppError(ErrorCode.NotFound, `The model '${id}' does not exist; see GET /v1/models`, {
      fields: [{ path: 'model', message: 'is not a documented model' }],
    });
  }
  return model;
}

/** The latest user message and its position: the recall cue and the turn this call retains. */
function latestUserTurn(body: ChatCompletionRequest): { index: number; text: string } {
  const index = body.messages.findLastIndex((m) => m.role === 'user');
  const message = body.messages[index];
  if (!message) throw new AppError(ErrorCode.ValidationFailed, 'messages must include a user message');
  const text = messageText(message);
  if (text.length > LIMITS.textMaxChars) {
    throw new AppError(ErrorCode.ValidationFailed, 'The latest user message is too long to retain', {
      fields: [
        { path: `messages.${index}.content`, message: `must be at most ${LIMITS.textMaxChars} characters` },
      ],
    });
  }
  return { index, text };
}

/**
 * One chat turn: recall from the conversation memory with the latest user message as the cue,
 * reply from what was recalled, then retain that message (consent and idempotency as for any
 * write). The reply itself is not retained. Recall comes first so a turn never cites itself.
 */
export async function completeChat(
  input: { scope: Scope; requestId: string; body: ChatCompletionRequest },
  deps: { memory: MemoryClient; now?: () => Date },
): Promise<ChatOutcome> {
  const { scope, requestId, body } = input;
  const model = modelOrThrow(body.model);
  const turn = latestUserTurn(body);
  const namespace = chatNamespaceOf(body.memory_id);
  const turnKey = chatTurnKey(body.memory_id, turn.index, turn.text);
  const now = (deps.now ?? (() => new Date()))();

  const recall = await deps.memory.recall({
    scope,
    request_id: requestId,
    body: {
      contract_version: CONTRACT_VERSION,
      namespace,
      cue: { text: turn.text.slice(0, LIMITS.cueMaxChars) },
      // One more than used: a retried call finds its own turn, which it leaves out.
      top_k: model.recall_top_k + 1,
    },
  });
  const recalled = recall.related.filter((r) => r.event_id !== turnKey).slice(0, model.recall_top_k);
  const content = composeChatReply(recalled);

  const retained = await retainTurn(deps.memory, {
    scope,
    request_id: requestId,
    idempotency_key: turnKey,
    body: {
      contract_version: CONTRACT_VERSION,
      operation: 'memory.write',
      namespace,
      event: {
        event_id: turnKey,
        occurred_at: now.toISOString(),
        content: { text: turn.text },
        source: { type: 'chat_turn', id: `chat:${body.memory_id}:${turn.index}` },
      },
    },
  });

  const writeUnits =
    retained.idempotency_outcome === 'Accepted' && retained.billing_state === 'billable' ? retained.units : 0;
  const recallUnits = recall.usage.billing_state === 'billable' ? recall.usage.operation_units : 0;
  const units = recallUnits + writeUnits;
  const extension: ChatMemoryExtension = {
    contract_version: CONTRACT_VERSION,
    request_id: requestId,
    memory_id: body.memory_id,
    namespace,
    provenance: {
      execution_mode: RUNTIME.execution_mode,
      provider: RUNTIME.provider,
      model_version: RUNTIME.model_version,
      model_execution: RUNTIME.model_execution,
      capability_status: RUNTIME.capability_status,
      model_variant: RUNTIME.model_variant,
    },
    recalled_memory_ids: recalled.map((r) => r.memory_id),
    recall: { state: recalled.length > 0 ? 'retained' : 'no_data', top_k: model.recall_top_k },
    retained_turn: {
      state: retained.state,
      memory_id: retained.memory_id,
      idempotency_key: turnKey,
      idempotency_outcome: retained.idempotency_outcome,
    },
    billing: {
      billing_state: units > 0 ? 'billable' : 'no_data',
      operation_units: units,
      pricing_version: recall.usage.pricing_version,
      sandbox: true,
    },
  };
  const promptTokens = body.messages.reduce((sum, m) => sum + 1 + countTokens(messageText(m)), 0);
  const completionTokens = countTokens(content);

  return {
    completion: {
      id: `chatcmpl-${randomUUID().replaceAll('-', '')}`,
      object: 'chat.completion',
      created: Math.floor(now.getTime() / 1000),
      model: model.id,
      system_fingerprint: SYSTEM_FINGERPRINT,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
      text_memory: extension,
    },
    record: {
      namespace,
      state: retained.state,
      units,
      billingState: units > 0 ? 'billable' : 'no_data',
    },
  };
}

interface RetainedTurn {
  state: WriteResponse['state'];
  memory_id: string | null;
  idempotency_outcome: WriteResponse['idempotency_outcome'];
  billing_state: WriteResponse['usage']['billing_state'];
  units: number;
}

/**
 * The turn's key hashes the conversation, position and text, and everything else in the write is
 * derived from them except the event time. So a conflict on that key can only be a retry of this
 * turn made at another moment: the turn is already retained, and it is a replay.
 */
async function retainTurn(
  memory: MemoryClient,
  message: Parameters<MemoryClient['write']>[0],
): Promise<RetainedTurn> {
  try {
    const written = await memory.write(message);
    return {
      state: written.state,
      memory_id: written.memory_id,
      idempotency_outcome: written.idempotency_outcome,
      billing_state: written.usage.billing_state,
      units: written.usage.operation_units,
    };
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== ErrorCode.IdempotencyConflict) throw err;
    return {
      state: 'retained',
      memory_id: null,
      idempotency_outcome: 'Replayed',
      billing_state: 'no_data',
      units: 0,
    };
  }
}
