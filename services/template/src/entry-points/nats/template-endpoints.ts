import type { Service } from '@tm/bus';
import {
  CreateTemplateMemoryMessage,
  CreateTemplateMessage,
  DeleteTemplateNamespaceMessage,
  GetMarketplaceTemplateMessage,
  GetTemplateMemoryMessage,
  GetTemplateMessage,
  ListTemplatesMessage,
  SearchMarketplaceMessage,
  Subjects,
  TemplateMemoryForgetMessage,
  UpdateTemplateMessage,
} from '@tm/contracts';
import type { WriteMemory } from '../../clients/memory-writer.js';
import { createTemplateMemory } from '../../domain/template-memories/create-template-memory.js';
import {
  deleteNamespaceMemories,
  type NamespaceDeletionOptions,
} from '../../domain/template-memories/delete-namespace-memories.js';
import { forgetTemplateMemory } from '../../domain/template-memories/forget-template-memory.js';
import { getTemplateMemory } from '../../domain/template-memories/get-template-memory.js';
import { createTemplate } from '../../domain/templates/create-template.js';
import { getMarketplaceTemplate } from '../../domain/templates/get-marketplace-template.js';
import { getTemplate } from '../../domain/templates/get-template.js';
import { listTemplates } from '../../domain/templates/list-templates.js';
import { searchMarketplace } from '../../domain/templates/search-marketplace.js';
import { updateTemplate } from '../../domain/templates/update-template.js';

/** The template service's request/reply endpoints (its ping and discovery are the service's own). */
export function serveTemplateEndpoints(
  service: Service,
  options: { writeMemory: WriteMemory; namespaceDeletion: NamespaceDeletionOptions },
): void {
  const s = Subjects.template;
  service.endpoint({
    subject: s.listTemplates,
    input: ListTemplatesMessage,
    handler: listTemplates,
  });
  service.endpoint({
    subject: s.createTemplate,
    input: CreateTemplateMessage,
    handler: createTemplate,
  });
  service.endpoint({ subject: s.getTemplate, input: GetTemplateMessage, handler: getTemplate });
  service.endpoint({
    subject: s.updateTemplate,
    input: UpdateTemplateMessage,
    handler: updateTemplate,
  });
  service.endpoint({
    subject: s.searchMarketplace,
    input: SearchMarketplaceMessage,
    handler: searchMarketplace,
  });
  service.endpoint({
    subject: s.getMarketplaceTemplate,
    input: GetMarketplaceTemplateMessage,
    handler: getMarketplaceTemplate,
  });
  service.endpoint({
    subject: s.createMemory,
    input: CreateTemplateMemoryMessage,
    handler: (m) => createTemplateMemory(m, { writeMemory: options.writeMemory }),
  });
  service.endpoint({
    subject: s.getMemory,
    input: GetTemplateMemoryMessage,
    handler: getTemplateMemory,
  });
  service.endpoint({
    subject: s.forgetMemory,
    input: TemplateMemoryForgetMessage,
    handler: (m) => forgetTemplateMemory(m),
  });
  service.endpoint({
    subject: s.deleteNamespace,
    input: DeleteTemplateNamespaceMessage,
    handler: (m) => deleteNamespaceMemories(m, options.namespaceDeletion),
  });
}
