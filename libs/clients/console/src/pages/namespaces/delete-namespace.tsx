import type { DeleteReceipt } from '@text-memory/sdk';
import { useEffect, useRef, useState } from 'react';
import { DataErrorNotice } from '../../components/data-error-notice.js';
import { FieldList } from '../../components/field-list.js';
import { TypedConfirmation } from '../../components/typed-confirmation.js';
import { useDataKey } from '../../session/data-key-context.js';

/** How long the page follows a deletion: the server finishes it regardless. */
const MAX_WAIT_MS = 30 * 60_000;

/**
 * Deletes a namespace through the data key (DELETE /api/v1/memory) once its name is typed. The server
 * hides the records at once and deletes them as a job; the page follows the job (the SDK polls its
 * status route), showing records deleted of the total, until the receipt is final. Cancel, leaving the
 * page or choosing another key stops the following only: the server finishes the deletion.
 */
export function DeleteNamespace({
  namespace,
  onDone,
  onClose,
}: {
  namespace: string;
  onDone: () => void;
  onClose: () => void;
}) {
  const { client } = useDataKey();
  const [progress, setProgress] = useState<string>();
  const [receipt, setReceipt] = useState<DeleteReceipt>();
  const [error, setError] = useState<unknown>();
  // The running deletion's controller: aborted on Cancel, on unmount and when the key changes.
  const running = useRef<AbortController | undefined>(undefined);
  const stop = () => {
    running.current?.abort();
    running.current = undefined;
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: another key (or none) ends a deletion started with this one
  useEffect(() => () => running.current?.abort(), [client]);

  const remove = async () => {
    if (!client) return;
    stop();
    const controller = new AbortController();
    running.current = controller;
    const { signal } = controller;
    setError(undefined);
    try {
      const answer = await client.memory.delete(namespace, {
        signal,
        maxWaitMs: MAX_WAIT_MS,
        onProgress: ({ deletion: { progress: p } }) =>
          setProgress(
            `Deleting: ${p.records_deleted.toLocaleString()} of ${p.records_total.toLocaleString()} records ` +
              `(${p.batches.toLocaleString()} batches)`,
          ),
      });
      setProgress(undefined);
      if (answer.deletion.status === 'completed') {
        setReceipt(answer);
        onDone();
      } else {
        setProgress('The server is still deleting this namespace; its records are already hidden.');
      }
    } catch (e) {
      if (signal.aborted) {
        setProgress('Stopped following. The server finishes the deletion; its records are already hidden.');
        return;
      }
      setProgress(undefined);
      setError(e);
    } finally {
      if (running.current === controller) running.current = undefined;
    }
  };

  const cancel = () => {
    stop();
    onClose();
  };

  return (
    <section className="card" aria-labelledby="delete-namespace-title">
      <h2 id="delete-namespace-title">
        Delete namespace <code>{namespace}</code>
      </h2>
      {!receipt && (
        <>
          <p>
            Every record of the namespace goes, with its supersession relations, idempotency entries, template
            memories and import jobs. Usage already recorded stays. This cannot be undone.
          </p>
          {client ? (
            <TypedConfirmation
              phrase={namespace}
              action="Delete namespace"
              onConfirm={remove}
              onCancel={cancel}
            />
          ) : (
            <p className="notice">Choose or create an API key above: deletion is a data-plane call.</p>
          )}
        </>
      )}
      <div aria-live="polite">
        {progress && <p className="notice">{progress}</p>}
        <DataErrorNotice error={error} />
        {receipt && (
          <section aria-label="Deletion receipt">
            <p className="notice">
              {receipt.state === 'not_retained'
                ? `Deleted ${receipt.deleted.toLocaleString()} records from ${receipt.namespace}.`
                : `${receipt.namespace} held nothing to delete.`}
            </p>
            <FieldList
              items={[
                ['State', receipt.state],
                ['Records deleted', receipt.deleted.toLocaleString()],
                ['Supersession relations removed', receipt.removed.supersession_relations.toLocaleString()],
                ['Idempotency entries removed', receipt.removed.idempotency_entries.toLocaleString()],
                ['Request id', <code key="r">{receipt.request_id}</code>],
              ]}
            />
            <button type="button" className="button-secondary" onClick={onClose}>
              Close
            </button>
          </section>
        )}
      </div>
    </section>
  );
}
