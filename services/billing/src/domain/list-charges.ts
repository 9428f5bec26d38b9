import type { ChargeList, ChargeListMessage } from '@tm/contracts';
import type { z } from 'zod';
import { listCharges } from '../data-access/ledger-repository.js';
import { getPrisma } from '../data-access/prisma-client.js';
import { chargeView } from './charge-view.js';

/** A tenant's charges, newest operation first, filtered and paged, each with its state history. */
export async function listTenantCharges(
  message: z.output<typeof ChargeListMessage>,
  db = getPrisma(),
): Promise<ChargeList> {
  const { total, rows } = await listCharges(
    db,
    {
      tenantId: message.tenant_id,
      state: message.state,
      operation: message.operation,
      from: message.from ? new Date(message.from) : undefined,
      to: message.to ? new Date(message.to) : undefined,
    },
    { limit: message.limit, offset: message.offset },
  );
  return { data: rows.map(chargeView), paging: { limit: message.limit, offset: message.offset, total } };
}
