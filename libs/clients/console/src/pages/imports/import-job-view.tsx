import { type ImportJob, type ResponseOf, TextMemoryError } from '@text-memory/sdk';
import { useEffect, useId, useState } from 'react';
import { DataErrorNotice } from '../../components/data-error-notice.js';
import { DataTable, numberColumn } from '../../components/data-table.js';
import { DateTime } from '../../components/date-time.js';
import { FieldList } from '../../components/field-list.js';
import { Pager } from '../../components/pager.js';
import { formatCount, formatUsd } from '../../insight/format.js';
import { useDataKey } from '../../session/data-key-context.js';

type Failures = ResponseOf<'listImportFailures'>;

const POLL_MS = 1_000;
/**
 * A read that failed retryably (the gateway restarting, a 503, no connection) is tried again after 2,
 * 4, 8, 16 then 30 s, ten times (about 3.5 minutes); the rows go on being written meanwhile, so the
 * page catches up at the next answer. Then "Check again" is the user's.
 */
const MAX_READ_RETRIES = 10;
const MAX_RETRY_PAUSE_MS = 30_000;
const retryPauseMs = (failedReads: number) => Math.min(POLL_MS * 2 ** failedReads, MAX_RETRY_PAUSE_MS);
const FAILURES_PAGE = 100;
const finished = (job: ImportJob) => job.state === 'completed' || job.state === 'failed';

/**
 * One import job: its estimate, the start button, live progress, then the rows that failed. Opened
 * with the job an upload answered (`initial`), or by its id alone (GET /v1/imports/{id}), as after a
 * reload or a link with `?import=`.
 */
export function ImportJobView({
  importId,
  initial,
  onClose,
}: {
  importId: string;
  initial?: ImportJob | undefined;
  onClose: () => void;
}) {
  const { client } = useDataKey();
  const id = useId();
  const [job, setJob] = useState(initial?.id === importId ? initial : undefined);
  const [error, setError] = useState<unknown>();
  // Consecutive retryable read failures, and the last one, shown while the next try waits.
  const [failedReads, setFailedReads] = useState(0);
  const [retrying, setRetrying] = useState<TextMemoryError>();
  const [round, setRound] = useState(0);
  const [starting, setStarting] = useState(false);
  const [failures, setFailures] = useState<Failures>();
  const [failuresOffset, setFailuresOffset] = useState(0);

  // Read the job when opened by id, then about every second while its rows are written.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `round` is how "Check again" asks for a read
  useEffect(() => {
    if (!client || (job && job.state !== 'processing')) return;
    const controller = new AbortController();
    const pause = failedReads > 0 ? retryPauseMs(failedReads) : job ? POLL_MS : 0;
    const timer = setTimeout(() => {
      client.imports.get(importId, { signal: controller.signal }).then(
        (next) => {
          if (controller.signal.aborted) return;
          setRetrying(undefined);
          setFailedReads(0);
          setJob(next);
        },
        (e: unknown) => {
          if (controller.signal.aborted) return;
          if (e instanceof TextMemoryError && e.retryable && failedReads < MAX_READ_RETRIES) {
            setRetrying(e);
            setFailedReads(failedReads + 1);
          } else {
            setRetrying(undefined);
            setError(e);
          }
        },
      );
    }, pause);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [client, importId, job, failedReads, round]);

  const checkAgain = () => {
    setError(undefined);
    setFailedReads(0);
    setRound((n) => n + 1);
  };

  // Once finished, the failed rows (their numbers and reasons; never their values).
  useEffect(() => {
    if (!client || !job || !finished(job) || job.failed === 0) return;
    const controller = new AbortController();
    client.imports
      .failures(job.id, { limit: FAILURES_PAGE, offset: failuresOffset }, { signal: controller.signal })
      .then(setFailures, (e: unknown) => {
        if (!controller.signal.aborted) setError(e);
      });
    return () => controller.abort();
  }, [client, job, failuresOffset]);

  const start = async () => {
    if (!client || !job) return;
    setStarting(true);
    setError(undefined);
    try {
      setJob(await client.imports.start(job.id));
    } catch (e) {
      setError(e);
    } finally {
      setStarting(false);
    }
  };

  const readNotices = (
    <>
      {retrying && (
        <p className="notice" role="status">
          Could not read the import's progress ({retrying.message}); trying again in{' '}
          {Math.round(retryPauseMs(failedReads) / 1_000)} s. The rows go on being written meanwhile.
        </p>
      )}
      <DataErrorNotice error={error} />
      {error !== undefined && (!job || job.state === 'processing') && (
        <button type="button" className="button-secondary" onClick={checkAgain}>
          Check again
        </button>
      )}
    </>
  );

  if (!job) {
    return (
      <section className="card" aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`}>
          Import <code>{importId}</code>
        </h2>
        {!error && !retrying && <p className="loading">Loading…</p>}
        {readNotices}
        <button type="button" className="button-secondary" onClick={onClose}>
          Close
        </button>
      </section>
    );
  }

  const { estimate } = job;
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        Import of{' '}
        {job.file_name ??
          (job.dataset ? `${job.dataset.id} (${job.dataset.config}/${job.dataset.split})` : 'a dataset')}{' '}
        <span className={`badge badge-${badge(job)}`}>{job.state}</span>
      </h2>
      <p className="hint">
        Into <code>{job.namespace}</code>, format <code>{job.format}</code>
        {job.template_name ? ` from template ${job.template_name}` : ''}
        {job.marketplace_template_id ? ` from marketplace template ${job.marketplace_template_id}` : ''}.
        {job.dataset && (
          <>
            {' '}
            Dataset revision <code>{job.dataset.revision}</code>.
          </>
        )}{' '}
        Created <DateTime value={job.created_at} />. Id <code>{job.id}</code>.
      </p>
      <h3>Estimate</h3>
      <FieldList
        items={[
          ['Rows', formatCount(estimate.rows)],
          ['Billable rows', formatCount(estimate.billable_rows)],
          ['Malformed rows', formatCount(estimate.rows_malformed)],
          ['Rows rendering empty', formatCount(estimate.rows_empty_render)],
          ['Rows with an empty cell the format needs', formatCount(estimate.rows_missing_value)],
          ['Rows too long', formatCount(estimate.rows_too_long)],
          [
            'Estimated cost',
            `${formatUsd(estimate.estimated_cost_usd)} (${formatUsd(estimate.unit_price_usd)} a row)`,
          ],
          ['Pricing version', estimate.pricing_version],
          estimate.placeholders_without_column.length > 0 && [
            'Placeholders without a column',
            estimate.placeholders_without_column.join(', '),
          ],
        ]}
      />
      {estimate.warnings.length > 0 && (
        <ul className="notice">
          {estimate.warnings.map((warning) => (
            <li key={warning}>{warning}</li>
          ))}
        </ul>
      )}
      {job.state === 'estimated' && (
        <button type="button" onClick={start} disabled={starting}>
          {starting ? 'Starting…' : `Start import of ${formatCount(estimate.rows)} rows`}
        </button>
      )}
      {job.state === 'expired' && (
        <p role="status" className="notice">
          This import was not started in time and has expired
          {job.completed_at && (
            <>
              {' '}
              (<DateTime value={job.completed_at} />)
            </>
          )}
          : its rows are no longer kept. Upload the file, or name the dataset, again.
        </p>
      )}
      {job.state === 'cancelled' && (
        <p role="status" className="notice">
          This import was cancelled
          {job.completed_at && (
            <>
              {' '}
              (<DateTime value={job.completed_at} />)
            </>
          )}
          : its namespace was deleted while it ran. The counts below are those when it stopped.
        </p>
      )}
      {job.state !== 'estimated' && job.state !== 'expired' && (
        <div aria-live="polite">
          <label htmlFor={`${id}-progress`}>Progress</label>
          <progress id={`${id}-progress`} max={Math.max(job.total, 1)} value={job.processed}>
            {formatCount(job.processed)} of {formatCount(job.total)}
          </progress>
          <p>
            {formatCount(job.processed)} of {formatCount(job.total)} rows processed:{' '}
            {formatCount(job.retained)} retained, {formatCount(job.failed)} failed.
            {job.completed_at && (
              <>
                {' '}
                Finished <DateTime value={job.completed_at} />.
              </>
            )}
          </p>
          {job.error && (
            <p role="alert" className="notice notice-error">
              {job.error.message} ({job.error.code})
            </p>
          )}
        </div>
      )}
      {readNotices}
      {failures && failures.failures.length > 0 && (
        <DataTable
          caption={<>Failed rows ({formatCount(failures.paging.total)})</>}
          columns={[numberColumn('Row'), 'Reason', 'Message']}
          showCaption
          after={
            <Pager
              previousText="Previous failures"
              nextText="More failures"
              onPrevious={
                failuresOffset > 0
                  ? () => setFailuresOffset(Math.max(0, failuresOffset - FAILURES_PAGE))
                  : undefined
              }
              onNext={
                failuresOffset + FAILURES_PAGE < failures.paging.total
                  ? () => setFailuresOffset(failuresOffset + FAILURES_PAGE)
                  : undefined
              }
            />
          }
        >
          {failures.failures.map((failure) => (
            <tr key={failure.row}>
              <th scope="row" className="number">
                {formatCount(failure.row)}
              </th>
              <td>{failure.reason}</td>
              <td>{failure.message}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <button type="button" className="button-secondary" onClick={onClose}>
        Close
      </button>
    </section>
  );
}

const badge = (job: ImportJob) =>
  job.state === 'completed'
    ? job.failed > 0
      ? 'warning'
      : 'ok'
    : job.state === 'failed'
      ? 'critical'
      : 'active';
