import { AppError, ErrorCode, type GetTemplateMessage, type Template } from '@tm/contracts';
import { getPrisma } from '../../data-access/prisma-client.js';
import { findTemplate } from '../../data-access/template-repository.js';
import { templateView } from './template-views.js';

export const templateNotFound = () => new AppError(ErrorCode.NotFound, 'No such template');

/** A private template by name or id, at its current version; another tenant's is "not found". */
export async function getTemplate(msg: GetTemplateMessage, db = getPrisma()): Promise<Template> {
  const template = await findTemplate(db, msg.tenant_id, msg.ref);
  if (!template) throw templateNotFound();
  return templateView(template);
}
