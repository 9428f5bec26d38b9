import { DateTime } from '../components/date-time.js';
import { ErrorNotice } from '../components/error-notice.js';
import { Page } from '../components/page.js';
import { useLoad } from '../hooks/use-load.js';
import { AnomalyList } from '../insight/anomaly-list.js';
import { LatencyTable } from '../insight/latency-table.js';
import { OperationMix } from '../insight/operation-mix.js';
import { RequestCharts } from '../insight/request-charts.js';
import { RequestQuality } from '../insight/request-quality.js';
import type { MetricsAnswer } from '../insight/series.js';
import { useWindow, WindowPicker } from '../insight/window-picker.js';
import { useSession } from '../session/session-context.js';

/** Latency, quality, operation mix and anomalies over a chosen window (GET /infrastructure/metrics, /anomalies). */
export function MetricsPage() {
  const { client } = useSession();
  const chosen = useWindow(60);
  const query = { window_minutes: chosen.minutes };
  const metrics = useLoad(
    (signal): Promise<MetricsAnswer> => client.infrastructure.metrics(query, { signal }),
    [client, chosen.minutes],
  );
  const anomalies = useLoad(
    (signal) => client.infrastructure.anomalies(query, { signal }),
    [client, chosen.minutes],
  );
  const data = metrics.data;

  return (
    <Page
      title="Metrics and anomalies"
      summary="Every request of your tenant, answered or refused, over the window you choose."
      actions={<WindowPicker minutes={chosen.minutes} choose={chosen.choose} />}
    >
      <ErrorNotice error={metrics.error} />
      <p aria-live="polite" className="hint">
        {metrics.loading
          ? 'Loading…'
          : data && (
              <>
                <DateTime value={data.window.from} /> – <DateTime value={data.window.to} /> · percentiles{' '}
                {data.percentiles}
              </>
            )}
      </p>
      {data && (
        <>
          <section className="card" aria-labelledby="quality-title">
            <h2 id="quality-title">Errors and refusals</h2>
            <RequestQuality quality={data.quality} />
          </section>
          <RequestCharts metrics={data} />
          <section className="card" aria-labelledby="latency-title">
            <h2 id="latency-title">Latency per operation</h2>
            {data.latency.length === 0 ? (
              <p>No requests in the last {chosen.label}.</p>
            ) : (
              <LatencyTable latency={data.latency} caption="Latency per operation" />
            )}
          </section>
          {data.operation_mix.length > 0 && (
            <section className="card" aria-labelledby="mix-title">
              <h2 id="mix-title">Operation mix</h2>
              <OperationMix mix={data.operation_mix} />
            </section>
          )}
        </>
      )}
      <section className="card" aria-labelledby="anomalies-title">
        <h2 id="anomalies-title">Anomalies</h2>
        <ErrorNotice error={anomalies.error} />
        {anomalies.data && (
          <>
            <AnomalyList anomalies={anomalies.data.anomalies} windowLabel={`last ${chosen.label}`} />
            <p className="hint">
              Rates and p95 are judged over at least {anomalies.data.min_requests.toLocaleString()} requests;
              an anomaly clears when the window no longer holds the requests that raised it.
            </p>
          </>
        )}
      </section>
    </Page>
  );
}
