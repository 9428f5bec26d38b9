import { type DeleteReceipt, TextMemoryError } from '@text-memory/sdk';
import { useState } from 'react';
import { DataErrorNotice } from '../../components/data-error-notice.js';
import { FieldList } from '../../components/field-list.js';
import { TypedConfirmation } from '../../components/typed-confirmation.js';
import { useDataKey } from '../../session/data-key-context.js';

/** A call that deletes in 2.5 s steps answers 409 idempotency_in_flight (retryable) until the last. */
const MAX_STEPS = 600;
const STEP_PAUSE_MS = 1_000;

/**
 * Deletes a namespace through the data key (DELETE /api/v1/memory) once its name is typed. A large
 * namespace goes in committed steps, each call answering "N records gone so far": the console calls
 * again after each, showing that message, until the receipt comes.
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

  const remove = async () => {
    if (!client) return;
    setError(undefined);
    try {
      for (let step = 1; step <= MAX_STEPS; step++) {
        try {
          // One attempt per call: the loop is the retry, so each step's message can be shown.
          setReceipt(await client.memory.delete(namespace, { maxRetries: 0 }));
          setProgress(undefined);
          onDone();
          return;
        } catch (e) {
          if (!(e instanceof TextMemoryError && e.code === 'idempotency_in_flight' && e.retryable)) throw e;
          setProgress(`Still deleting (step ${step}): ${e.message}`);
          await new Promise((resolve) => setTimeout(resolve, STEP_PAUSE_MS));
        }
      }
      setProgress('The deletion has not finished yet; delete again to go on from where it stopped.');
    } catch (e) {
      setProgress(undefined);
      setError(e);
    }
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
              onCancel={onClose}
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
              {receipt.state === 'deleted'
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
