import type { ListTemplatesMessage, TemplatePage } from '@tm/contracts';
import { getPrisma } from '../../data-access/prisma-client.js';
import { listTemplates as listStored } from '../../data-access/template-repository.js';
import { pagingOf, templateView } from './template-views.js';

/** One page of the tenant's private templates, by name, each at its current version. */
export async function listTemplates(msg: ListTemplatesMessage, db = getPrisma()): Promise<TemplatePage> {
  const { rows, total } = await listStored(db, msg.tenant_id, msg);
  return { data: rows.map(templateView), paging: pagingOf(msg, rows.length, total) };
}
