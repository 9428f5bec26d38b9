import type { ListTemplatesMessage, TemplatePage } from '@tm/contracts';
import { listTemplates as listStored } from '../data-access/template-repository.js';
import { pagingOf, templateView } from './template-views.js';

/** One page of the tenant's private templates, by name, each at its current version. */
export async function listTemplates(msg: ListTemplatesMessage): Promise<TemplatePage> {
  const { rows, total } = await listStored(msg.tenant_id, msg);
  return { data: rows.map(templateView), paging: pagingOf(msg, rows.length, total) };
}
