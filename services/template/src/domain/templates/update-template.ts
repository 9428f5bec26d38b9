import { AppError, ErrorCode, type Template, type UpdateTemplateMessage } from '@tm/contracts';
import { getPrisma } from '../../data-access/prisma-client.js';
import { appendVersion, findTemplate } from '../../data-access/template-repository.js';
import { templateNotFound } from './get-template.js';
import { templateView } from './template-views.js';

const staleRevision = (current: number) =>
  new AppError(
    ErrorCode.PreconditionFailed,
    `The template has changed: its current revision is ${current} (ETag "${current}")`,
    { fields: [{ path: 'If-Match', message: `must name the current revision "${current}"` }] },
  );

/**
 * Replace description, version label, fields and format as a new revision. With If-Match
 * (`expected_revision`) the update is optimistic: it applies only to that revision (412 otherwise),
 * so a client cannot overwrite a change it has not seen. Without it, it applies to whatever is current.
 */
export async function updateTemplate(msg: UpdateTemplateMessage, db = getPrisma()): Promise<Template> {
  const template = await findTemplate(db, msg.tenant_id, msg.ref);
  if (!template) throw templateNotFound();
  const { template_name, version, description, fields, format } = msg.body;
  if (template_name !== undefined && template_name !== template.name) {
    throw new AppError(ErrorCode.ValidationFailed, 'Templates cannot be renamed', {
      fields: [{ path: 'template_name', message: 'must be the current name (templates cannot be renamed)' }],
    });
  }
  const expected = msg.expected_revision;
  if (expected !== null && expected !== template.version) throw staleRevision(template.version);
  const updated = await appendVersion(db, template, { label: version, description, fields, format });
  if (!updated) {
    // Another update won the race for this revision: without If-Match the caller never saw either.
    const now = await findTemplate(db, msg.tenant_id, msg.ref);
    if (expected !== null) throw staleRevision(now?.version ?? template.version + 1);
    throw new AppError(ErrorCode.VersionConflict, 'The template changed during the update; send it again', {
      retryable: true,
    });
  }
  return templateView(updated);
}
