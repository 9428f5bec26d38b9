import type { CreateTemplateMessage, Template } from '@tm/contracts';
import { getPrisma } from '../../data-access/prisma-client.js';
import { insertTemplate } from '../../data-access/template-repository.js';
import { templateView } from './template-views.js';

/** A new private template at revision 1 (labelled "1" unless the author says); the name is unique within the tenant. */
export async function createTemplate(msg: CreateTemplateMessage, db = getPrisma()): Promise<Template> {
  const { template_name, version, description, fields, format } = msg.body;
  return templateView(
    await insertTemplate(db, msg.tenant_id, template_name, { label: version, description, fields, format }),
  );
}
