import type { NatsConnection } from '@tm/bus';
import {
  CreateDatasetImportMessage,
  CreateImportMessage,
  CreateRestoreMessage,
  CreateTemplateMemoryMessage,
  CreateTemplateMemoryResponse,
  CreateTemplateMessage,
  DeleteTemplateNamespaceMessage,
  GetMarketplaceTemplateMessage,
  GetTemplateMemoryMessage,
  GetTemplateMessage,
  ImportAcknowledged,
  ImportChunkMessage,
  ImportCreated,
  ImportFailurePage,
  ImportJob,
  ImportRefMessage,
  ListImportFailuresMessage,
  ListRestoreFailuresMessage,
  ListTemplatesMessage,
  MarketplacePage,
  MarketplaceTemplate,
  RestoreCreated,
  RestoreFailurePage,
  RestoreJob,
  RestoreRefMessage,
  RestoreRowsMessage,
  SearchMarketplaceMessage,
  StartImportMessage,
  StartRestoreMessage,
  Subjects,
  Template,
  TemplateMemory,
  TemplateMemoryForgetMessage,
  TemplateMemoryForgotten,
  TemplateNamespaceDeleted,
  TemplatePage,
  UpdateTemplateMessage,
} from '@tm/contracts';
import { createServiceClient, endpoint, type ServiceClientOptions } from './service-client.js';

const s = Subjects.template;

/** The template service's endpoints (templates, marketplace, template memories, imports, restores). */
const TEMPLATE_SERVICE = {
  service: 'template',
  ping: s.ping,
  endpoints: {
    listTemplates: endpoint(s.listTemplates, ListTemplatesMessage, TemplatePage),
    createTemplate: endpoint(s.createTemplate, CreateTemplateMessage, Template),
    getTemplate: endpoint(s.getTemplate, GetTemplateMessage, Template),
    updateTemplate: endpoint(s.updateTemplate, UpdateTemplateMessage, Template),
    searchMarketplace: endpoint(s.searchMarketplace, SearchMarketplaceMessage, MarketplacePage),
    getMarketplaceTemplate: endpoint(
      s.getMarketplaceTemplate,
      GetMarketplaceTemplateMessage,
      MarketplaceTemplate,
    ),
    createMemory: endpoint(s.createMemory, CreateTemplateMemoryMessage, CreateTemplateMemoryResponse),
    getMemory: endpoint(s.getMemory, GetTemplateMemoryMessage, TemplateMemory),
    forgetMemory: endpoint(s.forgetMemory, TemplateMemoryForgetMessage, TemplateMemoryForgotten),
    deleteNamespace: endpoint(s.deleteNamespace, DeleteTemplateNamespaceMessage, TemplateNamespaceDeleted),
    createImport: endpoint(s.createImport, CreateImportMessage, ImportCreated),
    createDatasetImport: endpoint(s.createDatasetImport, CreateDatasetImportMessage, ImportJob),
    appendImportChunk: endpoint(s.appendImportChunk, ImportChunkMessage, ImportAcknowledged),
    sealImport: endpoint(s.sealImport, ImportRefMessage, ImportJob),
    discardImport: endpoint(s.discardImport, ImportRefMessage, ImportAcknowledged),
    startImport: endpoint(s.startImport, StartImportMessage, ImportJob),
    getImport: endpoint(s.getImport, ImportRefMessage, ImportJob),
    listImportFailures: endpoint(s.listImportFailures, ListImportFailuresMessage, ImportFailurePage),
    createRestore: endpoint(s.createRestore, CreateRestoreMessage, RestoreCreated),
    appendRestoreRows: endpoint(s.appendRestoreRows, RestoreRowsMessage, ImportAcknowledged),
    startRestore: endpoint(s.startRestore, StartRestoreMessage, RestoreJob),
    getRestore: endpoint(s.getRestore, RestoreRefMessage, RestoreJob),
    listRestoreFailures: endpoint(s.listRestoreFailures, ListRestoreFailuresMessage, RestoreFailurePage),
  },
};

/** Typed, breaker-wrapped calls to the template service over NATS request/reply. */
export const createTemplateClient = (
  nc: NatsConnection,
  options: ServiceClientOptions & { importSealTimeoutMs?: number },
) =>
  createServiceClient(nc, TEMPLATE_SERVICE, {
    ...options,
    // Parsing a whole file, or asking a model hub about a dataset (retries included), takes longer
    // than a request: the import's own deadline.
    deadlines: { sealImport: options.importSealTimeoutMs, createDatasetImport: options.importSealTimeoutMs },
  });
export type TemplateClient = ReturnType<typeof createTemplateClient>;
