import type { ForgetReceipt, RecallResponse } from '@text-memory/sdk';
import { type FormEvent, Fragment, useId, useState } from 'react';
import { ConfirmButton } from '../../components/confirm-button.js';
import { DataTable, numberColumn } from '../../components/data-table.js';
import { DateTime } from '../../components/date-time.js';
import { ErrorNotice } from '../../components/error-notice.js';
import { FieldList } from '../../components/field-list.js';
import { MemoryStateBadge } from '../../components/memory-state-badge.js';
import { useAction } from '../../hooks/use-action.js';
import { useDataKey } from '../../session/data-key-context.js';
import { ExplanationTable } from './explanation-table.js';
import { PlaygroundPanel } from './playground-panel.js';
import { ProvenanceAndUsage } from './provenance-and-usage.js';

/** POST /api/v1/memory/recall with the chosen key. */
export function RecallPanel() {
  const { client } = useDataKey();
  const id = useId();
  const [namespace, setNamespace] = useState('playground');
  const [cue, setCue] = useState('');
  const [topK, setTopK] = useState(10);
  const [explain, setExplain] = useState(false);
  const [answer, setAnswer] = useState<RecallResponse>();
  const { busy, error, run } = useAction();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!client) return;
    setAnswer(undefined);
    await run(async () =>
      setAnswer(
        await client.memory.recall({
          namespace: namespace.trim(),
          query: cue,
          top_k: topK,
          ...(explain ? { explain: true } : {}),
        }),
      ),
    );
  };

  return (
    <PlaygroundPanel
      id={id}
      title="Recall"
      namespace={namespace}
      onNamespaceChange={setNamespace}
      submitText="Recall"
      busyText="Recalling…"
      ready={cue.trim() !== ''}
      busy={busy}
      error={error}
      onSubmit={submit}
      answer={answer && <RecallAnswer answer={answer} onForgotten={setAnswer} />}
      fields={
        <>
          <label htmlFor={`${id}-cue`}>Cue</label>
          <input id={`${id}-cue`} required value={cue} onChange={(e) => setCue(e.target.value)} />
          <label htmlFor={`${id}-k`}>Top k (1–100)</label>
          <input
            id={`${id}-k`}
            type="number"
            min={1}
            max={100}
            value={topK}
            onChange={(e) => setTopK(Number(e.target.value))}
          />
          <label>
            <input type="checkbox" checked={explain} onChange={(e) => setExplain(e.target.checked)} /> Explain
            (each result's terms, their weights and whether it holds each)
          </label>
        </>
      }
    />
  );
}

/**
 * The answer, each related record with a Forget button (DELETE /v1/memories/{id}, a second
 * "yes" first): a forgotten record leaves the table, and what it had superseded is named as current
 * again (a new recall shows it). The key needs memory:delete; without it the refusal shows in place.
 */
function RecallAnswer({
  answer,
  onForgotten,
}: {
  answer: RecallResponse;
  onForgotten: (answer: RecallResponse) => void;
}) {
  const { client } = useDataKey();
  const [receipt, setReceipt] = useState<ForgetReceipt>();
  const { error, run } = useAction();
  const forget = async (memoryId: string) => {
    await run(async () => {
      if (!client) return;
      const forgotten = await client.memories.forget(memoryId);
      setReceipt(forgotten);
      onForgotten({ ...answer, related: answer.related.filter((r) => r.memory_id !== memoryId) });
    });
  };
  return (
    <section aria-label="Recall answer">
      <h3>
        Answer <MemoryStateBadge state={answer.state} />
      </h3>
      <FieldList
        items={[
          ['Outcome', answer.retrieval_outcome],
          [
            'Top score',
            answer.proximity.top_score === null ? '–' : answer.proximity.top_score.toLocaleString(),
          ],
          ['Cue terms', answer.proximity.cue_terms.toLocaleString()],
          ['Ranking', `${answer.ranking.basis} (${answer.ranking.order.join(', ')})`],
          // deterministic-lexical-v1 while the namespace is re-indexed after an upgrade.
          ['Ranking index', answer.ranking.model_version],
          ['As of', <DateTime key="a" value={answer.ranking.as_of} empty="now" />],
          ['Request id', <code key="r">{answer.request_id}</code>],
        ]}
      />
      {answer.related.length > 0 ? (
        <DataTable
          caption={<>Related records ({answer.related.length.toLocaleString()})</>}
          columns={[numberColumn('Score'), 'Text', 'Occurred', 'Event id', 'Actions']}
          showCaption
        >
          {answer.related.map((record) => (
            <Fragment key={record.memory_id}>
              <tr>
                <td className="number">
                  {record.score.toLocaleString(undefined, { maximumFractionDigits: 4 })}
                  <span className="hint"> ({record.matched_terms} terms)</span>
                </td>
                <th scope="row">{record.text}</th>
                <td>
                  <DateTime value={record.occurred_at} />
                </td>
                <td>
                  <code>{record.event_id}</code>
                </td>
                <td>
                  <ConfirmButton
                    label="Forget"
                    name={`Forget ${record.event_id}`}
                    question="Forget this memory for good?"
                    onConfirm={() => forget(record.memory_id)}
                  />
                </td>
              </tr>
              {record.explanation && (
                <tr>
                  <td colSpan={5}>
                    <ExplanationTable eventId={record.event_id} explanation={record.explanation} />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </DataTable>
      ) : (
        <p>No record matched the cue.</p>
      )}
      <ErrorNotice error={error} />
      {receipt && (
        <p role="status">
          Forgotten: memory <code>{receipt.memory_id}</code>
          {receipt.reinstated.length > 0 && (
            <>
              {' '}
              ({receipt.reinstated.length.toLocaleString()} it had superseded current again; recall again to
              see)
            </>
          )}
          .
        </p>
      )}
      {answer.context && (
        <>
          <h4>Context</h4>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a long context scrolls inside: reachable by keyboard */}
          <pre className="answer-text" tabIndex={0}>
            {answer.context}
          </pre>
        </>
      )}
      <ProvenanceAndUsage provenance={answer.provenance} usage={answer.usage} />
    </section>
  );
}
