import type { SmokeTestReport } from '@text-memory/sdk';
import { DataTable, numberColumn } from '../../components/data-table.js';

/** "All steps passed." or the steps that did not, so the outcome is read without scanning the table. */
function overall(report: SmokeTestReport): string {
  const failed = report.steps.filter((step) => step.outcome === 'failed').map((step) => step.step);
  if (report.outcome === 'passed') return 'All steps passed.';
  return failed.length > 0 ? `Failed: ${failed.join(', ')}.` : 'The smoke test failed.';
}

/** Each step (write, recall, delete) with its outcome, the server's detail and its latency. */
export function SmokeTestReportTable({ report }: { report: SmokeTestReport }) {
  return (
    <section className="card" aria-label="Smoke test report">
      <p>
        <strong>{overall(report)}</strong> Ran in <code>{report.namespace}</code>, request{' '}
        <code>{report.request_id}</code>.
      </p>
      <DataTable
        caption="Smoke test steps"
        columns={['Step', 'Outcome', 'Detail', numberColumn('Latency (ms)')]}
      >
        {report.steps.map((step) => (
          <tr key={step.step}>
            <th scope="row">{step.step}</th>
            <td>
              <span className={`badge badge-${step.outcome}`}>{step.outcome}</span>
            </td>
            <td>{step.detail}</td>
            <td className="number">{step.latency_ms === null ? '–' : step.latency_ms.toFixed(1)}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
