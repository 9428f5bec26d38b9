import { randomUUID } from 'node:crypto';
import { type NatsConnection, type Subscription, serveEndpoint } from '@tm/bus';
import {
  CreateTemplateMemoryMessage,
  CreateTemplateMessage,
  DeleteTemplateNamespaceMessage,
  GetMarketplaceTemplateMessage,
  GetTemplateMemoryMessage,
  GetTemplateMessage,
  ListTemplatesMessage,
  QueueGroups,
  SearchMarketplaceMessage,
  type ServiceSelfReport,
  Subjects,
  UpdateTemplateMessage,
} from '@tm/contracts';
import { type Logger, storageOutage } from '@tm/kit';
import { z } from 'zod';
import type { WriteMemory } from '../../clients/memory-writer.js';
import { createTemplateMemory } from '../../domain/template-memories/create-template-memory.js';
import {
  deleteNamespaceMemories,
  type NamespaceDeletionOptions,
} from '../../domain/template-memories/delete-namespace-memories.js';
import { getTemplateMemory } from '../../domain/template-memories/get-template-memory.js';
import { createTemplate } from '../../domain/templates/create-template.js';
import { getMarketplaceTemplate } from '../../domain/templates/get-marketplace-template.js';
import { getTemplate } from '../../domain/templates/get-template.js';
import { listTemplates } from '../../domain/templates/list-templates.js';
import { searchMarketplace } from '../../domain/templates/search-marketplace.js';
import { updateTemplate } from '../../domain/templates/update-template.js';

const instance = randomUUID();

/** The template service's request/reply endpoints, in queue group `template`. */
export function serveTemplateEndpoints(
  nc: NatsConnection,
  options: {
    writeMemory: WriteMemory;
    version: string;
    health: () => Promise<ServiceSelfReport>;
    namespaceDeletion: NamespaceDeletionOptions;
  },
  logger: Logger,
): Subscription[] {
  const common = { queue: QueueGroups.template, mapError: storageOutage('Template storage') };
  const s = Subjects.template;
  return [
    serveEndpoint(
      nc,
      { ...common, subject: s.listTemplates, input: ListTemplatesMessage, handler: listTemplates },
      logger,
    ),
    serveEndpoint(
      nc,
      { ...common, subject: s.createTemplate, input: CreateTemplateMessage, handler: createTemplate },
      logger,
    ),
    serveEndpoint(
      nc,
      { ...common, subject: s.getTemplate, input: GetTemplateMessage, handler: getTemplate },
      logger,
    ),
    serveEndpoint(
      nc,
      { ...common, subject: s.updateTemplate, input: UpdateTemplateMessage, handler: updateTemplate },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        ...common,
        subject: s.searchMarketplace,
        input: SearchMarketplaceMessage,
        handler: searchMarketplace,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        ...common,
        subject: s.getMarketplaceTemplate,
        input: GetMarketplaceTemplateMessage,
        handler: getMarketplaceTemplate,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        ...common,
        subject: s.createMemory,
        input: CreateTemplateMemoryMessage,
        handler: (m) => createTemplateMemory(m, { writeMemory: options.writeMemory }),
      },
      logger,
    ),
    serveEndpoint(
      nc,
      { ...common, subject: s.getMemory, input: GetTemplateMemoryMessage, handler: getTemplateMemory },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        ...common,
        subject: s.deleteNamespace,
        input: DeleteTemplateNamespaceMessage,
        handler: (m) => deleteNamespaceMemories(m, options.namespaceDeletion),
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        ...common,
        subject: s.ping,
        input: z.unknown(),
        handler: async () => ({
          service: 'template',
          instance,
          version: options.version,
          ...(await options.health()),
        }),
      },
      logger,
    ),
  ];
}
