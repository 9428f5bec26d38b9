import { RUNTIME, type Usage } from '@tm/contracts';

/** The provenance block of every memory response: the mock runtime, stated plainly. */
export const provenance = () => ({ ...RUNTIME });

export function billableUsage(pricingVersion: string, units = 1): Usage {
  return {
    billing_state: 'billable',
    operation_units: units,
    pricing_version: pricingVersion,
    sandbox: true,
  };
}

export function noUsage(pricingVersion: string): Usage {
  return { billing_state: 'no_data', operation_units: 0, pricing_version: pricingVersion, sandbox: true };
}
