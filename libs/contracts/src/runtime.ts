import { z } from 'zod';

/** The mock runtime the spec describes; reported in every memory response. */
export const RUNTIME = {
  execution_mode: 'mock',
  provider: 'service-local-mock',
  model_version: 'deterministic-lexical-v2',
  model_execution: false,
  capability_status: 'contract_fixture',
  model_variant: 'Unspecified',
} as const;

export const CONTRACT_VERSION = 'v1' as const;
/** Moves with every change to a response or request schema; health reports it, OpenAPI carries it. */
export const SCHEMA_VERSION = '1.11.0';
export const SCORE_KIND = 'mock_lexical_overlap' as const;
export const DECISION_VERSION = 'decision-v1' as const;

export const Provenance = z
  .object({
    execution_mode: z.literal('mock'),
    provider: z.literal(RUNTIME.provider),
    model_version: z.literal(RUNTIME.model_version),
    model_execution: z.literal(false),
    capability_status: z.literal(RUNTIME.capability_status),
    model_variant: z.literal(RUNTIME.model_variant),
  })
  .meta({ id: 'Provenance' });

export const BillingState = z.enum(['billable', 'no_data', 'void']);

export const Usage = z
  .object({
    billing_state: BillingState,
    operation_units: z.number().int().nonnegative(),
    pricing_version: z.string(),
    sandbox: z.literal(true).meta({ description: 'Billing is sandbox only; no live charge is implied' }),
  })
  .meta({ id: 'Usage' });
export type Usage = z.infer<typeof Usage>;
