import { type NatsConnection, requestReply } from '@tm/bus';
import {
  CreateImportMessage,
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
  ListTemplatesMessage,
  MarketplacePage,
  MarketplaceTemplate,
  PingReply,
  SearchMarketplaceMessage,
  StartImportMessage,
  Subjects,
  Template,
  TemplateMemory,
  TemplateNamespaceDeleted,
  TemplatePage,
  UpdateTemplateMessage,
} from '@tm/contracts';
import type { Logger } from '@tm/kit';
import { z } from 'zod';
import { createBreaker } from './breaker.js';

/** Typed, breaker-wrapped calls to the template service (templates, marketplace, template memories). */
export function createTemplateClient(
  nc: NatsConnection,
  options: { timeoutMs: number; breakerResetMs: number; logger: Logger; importSealTimeoutMs?: number },
) {
  const { breaker, call } = createBreaker({
    name: 'template',
    resetMs: options.breakerResetMs,
    logger: options.logger,
  });
  const opts = { timeoutMs: options.timeoutMs, service: 'template' };
  const endpoint =
    <I extends z.ZodType, O extends z.ZodType>(
      subject: string,
      input: I,
      output: O,
      timeoutMs = opts.timeoutMs,
    ) =>
    (msg: z.input<I>) =>
      call(() => requestReply(nc, subject, { input, output }, msg, { ...opts, timeoutMs }));
  const s = Subjects.template;
  return {
    breaker,
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
    deleteNamespace: endpoint(s.deleteNamespace, DeleteTemplateNamespaceMessage, TemplateNamespaceDeleted),
    createImport: endpoint(s.createImport, CreateImportMessage, ImportCreated),
    appendImportChunk: endpoint(s.appendImportChunk, ImportChunkMessage, ImportAcknowledged),
    /** Parsing a whole file takes longer than a request: its own deadline. */
    sealImport: endpoint(
      s.sealImport,
      ImportRefMessage,
      ImportJob,
      options.importSealTimeoutMs ?? options.timeoutMs,
    ),
    discardImport: endpoint(s.discardImport, ImportRefMessage, ImportAcknowledged),
    startImport: endpoint(s.startImport, StartImportMessage, ImportJob),
    getImport: endpoint(s.getImport, ImportRefMessage, ImportJob),
    listImportFailures: endpoint(s.listImportFailures, ListImportFailuresMessage, ImportFailurePage),
    /** Health probe: bypasses the breaker so an open breaker cannot hide a recovered service. */
    ping: (timeoutMs: number) =>
      requestReply(
        nc,
        s.ping,
        { input: z.object({}), output: PingReply },
        {},
        { timeoutMs, service: 'template' },
      ),
  };
}
export type TemplateClient = ReturnType<typeof createTemplateClient>;
