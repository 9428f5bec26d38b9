import { type FormEvent, useId, useState } from 'react';
import { DataKeyPicker } from '../../components/data-key-picker.js';
import { ErrorNotice } from '../../components/error-notice.js';
import { NeedsDataKey } from '../../components/needs-data-key.js';
import { useAction } from '../../hooks/use-action.js';
import { useDataKey } from '../../session/data-key-context.js';
import { type SmokeTestReport, SmokeTestReportTable } from './smoke-test-report.js';

const isReport = (body: unknown): body is SmokeTestReport =>
  typeof body === 'object' && body !== null && Array.isArray((body as { steps?: unknown }).steps);

/**
 * A fetch that hands a 503's report to `keep` before the SDK turns the answer into a TextMemoryError,
 * which carries the envelope's fields but not the steps. Any other answer passes untouched.
 */
const keepingFailedReport =
  (keep: (report: SmokeTestReport) => void): typeof fetch =>
  async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 503) {
      const body: unknown = await response
        .clone()
        .json()
        .catch(() => undefined);
      if (isReport(body)) keep(body);
    }
    return response;
  };

/**
 * The smoke test (write, recall, delete in a reserved namespace) with the chosen API key and an operator
 * token pasted here. The token lives in this component's state only: never stored, gone when the page
 * is left, reloaded or the user logs out.
 */
export function SmokeTestSection() {
  const { clientWith } = useDataKey();
  const action = useAction();
  const [operatorToken, setOperatorToken] = useState('');
  const [report, setReport] = useState<SmokeTestReport>();
  const id = useId();

  const run = async (event: FormEvent) => {
    event.preventDefault();
    setReport(undefined);
    let failedReport: SmokeTestReport | undefined;
    const client = clientWith({
      fetch: keepingFailedReport((kept) => {
        failedReport = kept;
      }),
    });
    if (!client) return;
    await action.run(async () => {
      try {
        // Not retried: each run is billed, and a failed one is reported, not hidden by a second try.
        const passed = await client.infrastructure.smokeTest({
          operatorToken: operatorToken.trim() || undefined,
          maxRetries: 0,
        });
        setReport(passed);
      } finally {
        if (failedReport) setReport(failedReport);
      }
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
        <ErrorNotice error={action.error} />
        {report && <SmokeTestReportTable report={report} />}
      </NeedsDataKey>
    </section>
  );
}
