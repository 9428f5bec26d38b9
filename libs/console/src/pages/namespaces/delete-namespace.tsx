import { type DeleteReceipt, TextMemoryError } from '@text-memory/sdk';
import { useEffect, useRef, useState } from 'react';
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
 * again after each, showing that message, until the receipt comes. Cancel, leaving the page or choosing
 * another key stops the calls (the steps already committed stay deleted; deleting again goes on).
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
      for (let step = 1; step <= MAX_STEPS; step++) {
        try {
          // One attempt per call: the loop is the retry, so each step's message can be shown.
          const answer = await client.memory.delete(namespace, { maxRetries: 0, signal });
          setReceipt(answer);
          setProgress(undefined);
          onDone();
          return;
        } catch (e) {
          if (!(e instanceof TextMemoryError && e.code === 'idempotency_in_flight' && e.retryable)) throw e;
          setProgress(`Still deleting (step ${step}): ${e.message}`);
          await pause(STEP_PAUSE_MS, signal);
        }
      }
      setProgress('The deletion has not finished yet; delete again to go on from where it stopped.');
    } catch (e) {
      if (signal.aborted) {
        setProgress('Stopped. The steps already done stay deleted; delete again to go on.');
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

/** Waits `ms`, or less when `signal` aborts (then rejects, ending the loop). */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
