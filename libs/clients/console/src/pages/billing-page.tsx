import { useState } from 'react';
import { DateTime } from '../components/date-time.js';
import { ErrorNotice } from '../components/error-notice.js';
import { Page } from '../components/page.js';
import { useLoad } from '../hooks/use-load.js';
import { ChargesSection } from '../insight/charges-section.js';
import { InvoicesSection } from '../insight/invoices-section.js';
import type { UsageAnswer } from '../insight/series.js';
import { UsageCharts } from '../insight/usage-chart.js';
import { UsageOperations, UsageTotals } from '../insight/usage-totals.js';
import { useWindow, WindowPicker } from '../insight/window-picker.js';
import { useSession } from '../session/session-context.js';

/**
 * Usage from the billing ledger over a chosen window (GET /control/usage), its charges and invoices
 * (docs/decisions/billing.md, "Billing"). Sandbox prices: nothing is charged.
 */
export function BillingPage() {
  const { client, can } = useSession();
  const chosen = useWindow(1440);
  const [round, setRound] = useState(0);
  const usage = useLoad(
    (signal): Promise<UsageAnswer> => client.control.usage({ window_minutes: chosen.minutes }, { signal }),
    [client, chosen.minutes, round],
  );
  // A void changes what the usage totals count, an invoice the charges' states: both read again.
  const changed = () => setRound((n) => n + 1);

  return (
    <Page
      title="Usage and billing"
      summary="Billable operations and their charges, from the billing ledger."
      actions={<WindowPicker minutes={chosen.minutes} choose={chosen.choose} />}
    >
      <ErrorNotice error={usage.error} />
      <section className="card" aria-labelledby="usage-title">
        <h2 id="usage-title">Usage, last {chosen.label}</h2>
        <p aria-live="polite" className="hint">
          {usage.loading
            ? 'Loading…'
            : usage.data && (
                <>
                  <DateTime value={usage.data.window.from} /> – <DateTime value={usage.data.window.to} />
                </>
              )}
        </p>
        {usage.data && <UsageTotals usage={usage.data} />}
      </section>
      {usage.data && <UsageCharts usage={usage.data} />}
      {usage.data && (
        <section className="card" aria-labelledby="usage-operations-title">
          <h2 id="usage-operations-title">Per operation</h2>
          <UsageOperations usage={usage.data} />
        </section>
      )}
      {can('billing:read') && <ChargesSection round={round} onChanged={changed} />}
      {can('billing:read') && <InvoicesSection onChanged={changed} />}
    </Page>
  );
}
