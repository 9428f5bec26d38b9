/**
 * The units the ledger charges for a metered answer (a write, a recall, a template memory), or null
 * when it charges nothing. A replay returns the original answer, billable block and all, but the
 * ledger charged the original only (telemetry once counted replays nobody was charged for).
 */
export function chargedUnits(result: {
  usage?: { billing_state: string; operation_units?: number | null };
  idempotency_outcome?: string;
}): number | null {
  const billed = result.usage?.billing_state === 'billable' && result.idempotency_outcome !== 'Replayed';
  return billed ? (result.usage?.operation_units ?? 0) : null;
}
