import { AppError, type DeleteReceipt, ErrorCode, type MemoryDeletionGetMessage } from '@tm/contracts';
import { findDeletion } from '../data-access/namespace-deletion.js';
import { getSql } from '../data-access/prisma-client.js';
import { deletionReceipt } from './deletion-receipt.js';

// Job ids are UUIDs (a uuid column): anything else names no job and must not reach the query.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A namespace deletion of the caller's tenant as it stands; another tenant's is "not found". */
export async function getDeletion(msg: MemoryDeletionGetMessage): Promise<DeleteReceipt> {
  const job = UUID.test(msg.deletion_id)
    ? await findDeletion(getSql(), msg.scope.tenant_id, msg.deletion_id.toLowerCase())
    : undefined;
  if (!job) throw new AppError(ErrorCode.NotFound, 'No such namespace deletion');
  return deletionReceipt(job, msg.request_id);
}
