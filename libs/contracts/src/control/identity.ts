import { z } from 'zod';

/**
 * Broadcast by whoever changes a tenant's keys, storage connections or consent: every gateway instance
 * drops what it had verified for that tenant before the change is acknowledged.
 */
export const IdentityChanged = z.object({ tenant_id: z.string().min(1) });
export type IdentityChanged = z.infer<typeof IdentityChanged>;
