import { z } from 'zod';

/**
 * Who is calling, derived by the gateway from the verified credential and carried in every message.
 * Services take tenant and user from here only, never from a request body.
 */
export const Scope = z.object({
  tenant_id: z.string().min(1),
  user_id: z.string().min(1),
  key_id: z.string().min(1),
  storage_connection_id: z.string().min(1),
  consent: z.enum(['granted', 'missing']),
});
export type Scope = z.infer<typeof Scope>;
