import type { Schemas } from '@text-memory/sdk';
import { FieldList } from '../../components/field-list.js';

/**
 * Plain words for the provenance's `capability_status`, a code a newcomer cannot read on its own. The
 * code stays beside it, as the API sends it, so it can be searched for in the docs.
 */
const CAPABILITY_WORDS: Record<string, string> = {
  contract_fixture:
    'Stand-in: answers follow the API contract, worked out by matching words; no trained model runs',
};

/** The provenance and usage blocks every data-plane answer carries: what answered, and what it costs. */
export function ProvenanceAndUsage({
  provenance,
  usage,
}: {
  provenance: Schemas['Provenance'];
  usage: Schemas['Usage'];
}) {
  return (
    <>
      <h4>Provenance</h4>
      <FieldList
        items={[
          ['Execution', provenance.execution_mode],
          ['Provider', provenance.provider],
          ['Model version', provenance.model_version],
          ['Model ran', provenance.model_execution ? 'yes' : 'no'],
          [
            'Capability',
            <>
              {CAPABILITY_WORDS[provenance.capability_status] ?? 'As reported'} (
              <code>{provenance.capability_status}</code>)
            </>,
          ],
        ]}
      />
      <h4>Usage</h4>
      <FieldList
        items={[
          ['Billing', usage.billing_state],
          ['Units', usage.operation_units.toLocaleString()],
          ['Pricing version', usage.pricing_version],
          ['Sandbox', usage.sandbox ? 'yes' : 'no'],
        ]}
      />
    </>
  );
}
