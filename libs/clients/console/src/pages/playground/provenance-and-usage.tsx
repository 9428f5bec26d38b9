import type { Schemas } from '@text-memory/sdk';
import { FieldList } from '../../components/field-list.js';

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
          ['Capability', provenance.capability_status],
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
