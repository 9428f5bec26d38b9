import { AppError, ErrorCode, type Template, type UpdateTemplateMessage } from '@tm/contracts';
import { appendVersion, findTemplate } from '../data-access/template-repository.js';
import { templateNotFound } from './get-template.js';
import { templateView } from './template-views.js';

const staleVersion = (current: number) =>
  new AppError(ErrorCode.VersionConflict, `The template has changed: its current version is "${current}"`, {
    fields: [{ path: 'version', message: `must be the current version "${current}"` }],
  });

/**
 * Replace description, fields and format as a new version. With `version` in the body the update is
 * optimistic: it applies only to that version (409 otherwise), so a client cannot overwrite a change
 * it has not seen. Without it, it applies to whatever is current.
 */
export async function updateTemplate(msg: UpdateTemplateMessage): Promise<Template> {
  const template = await findTemplate(msg.tenant_id, msg.ref);
  if (!template) throw templateNotFound();
  const { template_name, version, description, fields, format } = msg.body;
  if (template_name !== undefined && template_name !== template.name) {
    throw new AppError(ErrorCode.ValidationFailed, 'Templates cannot be renamed', {
      fields: [{ path: 'template_name', message: 'must be the current name (templates cannot be renamed)' }],
    });
  }
  if (version !== undefined && version !== String(template.version)) throw staleVersion(template.version);
  const updated = await appendVersion(template, { description, fields, format });
  if (!updated) {
    const now = await findTemplate(msg.tenant_id, msg.ref);
    throw staleVersion(now?.version ?? template.version + 1);
  }
  return templateView(updated);
}
