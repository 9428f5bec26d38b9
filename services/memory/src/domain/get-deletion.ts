import {
  AppError,
  type DeleteReceipt,
  ErrorCode,
  type MemoryDeletionGetMessage,
  UUID_PATTERN,
} from '@tm/contracts';
import { findDeletion } from '../data-access/namespace-deletion.js';
import { getSql } from '../data-access/prisma-client.js';
import { deletionReceipt } from './deletion-receipt.js';

/** A namespace deletion of the caller's tenant as it stands; another tenant's is "not found". */
export async function getDeletion(msg: MemoryDeletionGetMessage): Promise<DeleteReceipt> {
  // Job ids are UUIDs (a uuid column): anything else names no job and must not reach the query.
  const job = UUID_PATTERN.test(msg.deletion_id)
    ? await findDeletion(getSql(), msg.scope.tenant_id, msg.deletion_id.toLowerCase())
    : undefined;
  if (!job) throw new AppError(ErrorCode.NotFound, 'No such namespace deletion');
  return deletionReceipt(job, msg.request_id);
}
