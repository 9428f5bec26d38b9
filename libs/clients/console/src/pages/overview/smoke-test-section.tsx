import { type SmokeTestReport, TextMemoryError } from '@text-memory/sdk';
import { type FormEvent, useId, useState } from 'react';
import { DataKeyPicker } from '../../components/data-key-picker.js';
import { ErrorNotice } from '../../components/error-notice.js';
import { NeedsDataKey } from '../../components/needs-data-key.js';
import { useAction } from '../../hooks/use-action.js';
import { useDataKey } from '../../session/data-key-context.js';
import { SmokeTestReportTable } from './smoke-test-report.js';

/**
 * A failed run's error fields as the API gave them: the route answers a failed step with 503, the report
 * and the envelope's fields in one body, which the SDK returns rather than throws.
 */
const failureOf = (report: SmokeTestReport | undefined) =>
  report && 'error' in report
    ? new TextMemoryError({
        status: 503,
        error: report.error,
        code: report.details.code,
        retryable: report.retryable,
        details: report.details,
      })
    : undefined;

/**
 * The smoke test (write, recall, delete in a reserved namespace) with the chosen API key and an operator
 * token pasted here. The token lives in this component's state only: never stored, gone when the page
 * is left, reloaded or the user logs out.
 */
export function SmokeTestSection() {
  const { client } = useDataKey();
  const action = useAction();
  const [operatorToken, setOperatorToken] = useState('');
  const [report, setReport] = useState<SmokeTestReport>();
  const id = useId();

  const run = async (event: FormEvent) => {
    event.preventDefault();
    setReport(undefined);
    if (!client) return;
    await action.run(async () => {
      // Passed or failed, the SDK resolves with the report (a failed run is not sent again: it was billed).
      setReport(await client.infrastructure.smokeTest({ operatorToken: operatorToken.trim() || undefined }));
    });
  };

  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Smoke test</h2>
      <p className="hint">
        Writes, recalls and deletes one record in a reserved namespace with the API key below, as any request
        would (its write and recall are billed).
      </p>
      <DataKeyPicker />
      <NeedsDataKey>
        <form className="card stack" onSubmit={run} aria-label="Run a smoke test">
          <label htmlFor={`${id}-token`}>Operator token</label>
          <input
            id={`${id}-token`}
            type="password"
            autoComplete="off"
            placeholder="tmo_…"
            value={operatorToken}
            onChange={(e) => setOperatorToken(e.target.value)}
          />
          <p className="hint">
            An owner issues one on the Operator tokens page. Held in this page's memory only, never stored.
          </p>
          <div className="row">
            <button type="submit" disabled={action.busy}>
              {action.busy ? 'Running…' : 'Run smoke test'}
            </button>
          </div>
        </form>
        <ErrorNotice error={action.error ?? failureOf(report)} />
        {report && <SmokeTestReportTable report={report} />}
      </NeedsDataKey>
    </section>
  );
}
