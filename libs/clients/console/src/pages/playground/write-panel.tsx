import { newEventId, type WriteResult } from '@text-memory/sdk';
import { type FormEvent, useId, useState } from 'react';
import { FieldList } from '../../components/field-list.js';
import { MemoryStateBadge } from '../../components/memory-state-badge.js';
import { useAction } from '../../hooks/use-action.js';
import { useDataKey } from '../../session/data-key-context.js';
import { PlaygroundPanel } from './playground-panel.js';
import { ProvenanceAndUsage } from './provenance-and-usage.js';

/** `datetime-local` wants local wall time without a zone; the API wants an instant with one. */
const localInputValue = (date: Date) =>
  new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);

/** POST /api/v1/memory/write with the chosen key. */
export function WritePanel() {
  const { client } = useDataKey();
  const id = useId();
  const [namespace, setNamespace] = useState('playground');
  const [text, setText] = useState('');
  // A fresh id per write: the same id under another idempotency key would be 409 duplicate_event.
  const [eventId, setEventId] = useState(newEventId);
  const [occurredAt, setOccurredAt] = useState(() => localInputValue(new Date()));
  const [answer, setAnswer] = useState<WriteResult>();
  const { busy, error, run } = useAction();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!client) return;
    setAnswer(undefined);
    await run(async () => {
      const trimmedId = eventId.trim();
      setAnswer(
        await client.memory.write({
          namespace: namespace.trim(),
          text,
          ...(trimmedId ? { idempotency_key: trimmedId, event_id: trimmedId } : {}),
          occurred_at: occurredAt ? new Date(occurredAt) : new Date(),
        }),
      );
      setEventId(newEventId());
    });
  };

  return (
    <PlaygroundPanel
      id={id}
      title="Write"
      namespace={namespace}
      onNamespaceChange={setNamespace}
      submitText="Write"
      busyText="Writing…"
      ready={text.trim() !== ''}
      busy={busy}
      error={error}
      onSubmit={submit}
      answer={answer && <WriteAnswer answer={answer} />}
      fields={
        <>
          <label htmlFor={`${id}-text`}>Text</label>
          <textarea id={`${id}-text`} required value={text} onChange={(e) => setText(e.target.value)} />
          <label htmlFor={`${id}-event`}>Event id (also the idempotency key)</label>
          <div className="row">
            <input id={`${id}-event`} value={eventId} onChange={(e) => setEventId(e.target.value)} />
            <button type="button" className="button-secondary" onClick={() => setEventId(newEventId())}>
              New event id
            </button>
          </div>
          <label htmlFor={`${id}-time`}>Occurred at (your time zone)</label>
          <input
            id={`${id}-time`}
            type="datetime-local"
            step={1}
            value={occurredAt}
            onChange={(e) => setOccurredAt(e.target.value)}
          />
        </>
      }
    />
  );
}

/**
 * The API's reason for an unavailable surprise lists what a model would need (activation, threshold,
 * embedding size, confidence), which means nothing to a newcomer; this service matches words and runs
 * no model, so say that instead. Any other status is shown as the API gives it.
 */
function surpriseText(surprise: WriteResult['surprise']): string {
  if (surprise.status === 'unavailable') {
    return 'Not computed: this service matches words and runs no model, so it has nothing to measure how unexpected a memory is';
  }
  return `${surprise.status}: ${surprise.reason}`;
}

function WriteAnswer({ answer }: { answer: WriteResult }) {
  return (
    <section aria-label="Write answer">
      <h3>
        Answer <MemoryStateBadge state={answer.state} />
      </h3>
      <FieldList
        items={[
          ['Decision', answer.decision.value],
          answer.decision.reason !== undefined && ['Reason', answer.decision.reason],
          ['Idempotency', answer.idempotency_outcome],
          ['Namespace', answer.namespace],
          ['Event id', <code key="e">{answer.event_id}</code>],
          ['Memory id', answer.memory_id ? <code key="m">{answer.memory_id}</code> : 'none'],
          ['Request id', <code key="r">{answer.request_id}</code>],
          answer.original_request_id !== answer.request_id && [
            'Original request',
            <code key="o">{answer.original_request_id}</code>,
          ],
          ['Surprise', surpriseText(answer.surprise)],
          ['Representation', answer.representation.status],
          answer.supersession.length > 0 && [
            'Supersession',
            answer.supersession.map((s) => `${s.target_event_id} ${s.status}`).join(', '),
          ],
        ]}
      />
      <ProvenanceAndUsage provenance={answer.provenance} usage={answer.usage} />
    </section>
  );
}
