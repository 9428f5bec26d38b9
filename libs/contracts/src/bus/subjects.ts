/** Bus subjects: versioned, owned by the service that answers (or publishes) them. */
export const Subjects = {
  memory: {
    write: 'memory.v1.write',
    /**
     * The gateway's concurrent single writes coalesced into one message (coalescing-endpoint.ts in
     * libs/bus); same answers, item by item. Its wire name says "batch" but it is not the API's batch:
     * it stays, because a gateway and memory of different releases must agree on it during a rolling
     * deploy, and operators see it in `nats micro` stats (endpoint `v1-write-batch`) and permissions.
     */
    writeCoalesced: 'memory.v1.write.batch',
    /**
     * One caller's batch of writes to one namespace (POST /api/v1/memory/write/batch): a versioned
     * message of its own, answered item by item in order. Not the subject above, which carries whatever
     * single writes of one event-loop turn happen to travel together.
     */
    writeItems: 'memory.v1.write.items',
    recall: 'memory.v1.recall',
    delete: 'memory.v1.delete',
    /** The state of one namespace deletion job of the caller's tenant. */
    getDeletion: 'memory.v1.deletions.get',
    /** One record of the caller's tenant by its memory id (GET /v1/memories/{memory_id}). */
    get: 'memory.v1.get',
    /** Forget one record of the caller's tenant by its memory id (DELETE /v1/memories/{memory_id}). */
    forget: 'memory.v1.forget',
    /**
     * The text of one record, for the webhooks service's deliveries to an endpoint that opted in
     * to text: asked when the attempt is made, so no copy of the text is kept outside memory.
     */
    getText: 'memory.v1.text.get',
    ping: 'memory.v1.ping',
    /** One page of a tenant's records or supersession relations, for the streamed export. */
    exportPage: 'memory.v1.export.page',
    /** One page of a tenant's namespaces with their record counts, by name (the console's listing). */
    listNamespaces: 'memory.v1.namespaces.list',
    /** JetStream: usage records relayed from the memory outbox; billing consumes them. */
    usageRecorded: 'memory.v1.usage.recorded',
    /**
     * JetStream: a namespace's deletion finished, relayed from the memory outbox (written in the
     * transaction that completed it); the webhooks service announces it as namespace.deleted.
     */
    namespaceDeleted: 'memory.v1.events.namespace-deleted',
    /** JetStream: one memory was forgotten (DELETE /v1/memories/{memory_id}); ids only. */
    memoryDeleted: 'memory.v1.events.memory-deleted',
  },
  billing: {
    usageSummary: 'billing.v1.usage.summary',
    listCharges: 'billing.v1.charges.list',
    voidCharge: 'billing.v1.charges.void',
    closeInvoicePeriod: 'billing.v1.invoices.close',
    listInvoices: 'billing.v1.invoices.list',
    /** The price list in force (version and unit prices); billing is the one owner of prices. */
    getPrices: 'billing.v1.prices.get',
    ping: 'billing.v1.ping',
    /** JetStream: usage records billing could not process, with the reason (anomaly input). */
    usageDeadLetter: 'billing.v1.usage.dead-letter',
    /** JetStream: a charge was voided, from billing's outbox; the webhooks service's charge.voided. */
    chargeVoided: 'billing.v1.events.charge-voided',
  },
  gateway: {
    /** Core NATS, every instance (no queue group): drop cached verifications of one tenant, then reply. */
    identityChanged: 'gateway.v1.identity.changed',
    /** JetStream: a RequestRecordBatch of redacted request records (telemetry consumes them). */
    requestRecorded: 'gateway.v1.request.recorded',
  },
  telemetry: {
    listEvents: 'telemetry.v1.events.list',
    metrics: 'telemetry.v1.metrics',
    anomalies: 'telemetry.v1.anomalies',
    historyPage: 'telemetry.v1.history.page',
    ping: 'telemetry.v1.ping',
    /**
     * JetStream: the anomaly watch raised (or escalated) a tenant's anomaly, from telemetry's
     * outbox; the webhooks service's anomaly.raised. Its stream names this subject alone: `events.list`
     * above is a request subject, so no `telemetry.v1.events.>` wildcard may be a stream's.
     */
    anomalyRaised: 'telemetry.v1.events.anomaly-raised',
  },
  template: {
    listTemplates: 'template.v1.templates.list',
    createTemplate: 'template.v1.templates.create',
    getTemplate: 'template.v1.templates.get',
    updateTemplate: 'template.v1.templates.update',
    searchMarketplace: 'template.v1.marketplace.search',
    getMarketplaceTemplate: 'template.v1.marketplace.get',
    /** Validate, render and retain (through memory.v1.write) one memory from a template. */
    createMemory: 'template.v1.memories.create',
    getMemory: 'template.v1.memories.get',
    /** A memory was forgotten: drop its template data and redact its creation request. */
    forgetMemory: 'template.v1.memories.forget',
    /** A namespace is being deleted: drop the template memories (and their requests) held for it. */
    deleteNamespace: 'template.v1.namespace.delete',
    /** Document import: open a job, append upload chunks, parse and estimate, discard a refused upload. */
    createImport: 'template.v1.imports.create',
    /** open, probe (hub metadata only) and estimate an import of a model-hub dataset. */
    createDatasetImport: 'template.v1.imports.dataset',
    appendImportChunk: 'template.v1.imports.chunk',
    sealImport: 'template.v1.imports.seal',
    discardImport: 'template.v1.imports.discard',
    startImport: 'template.v1.imports.start',
    getImport: 'template.v1.imports.get',
    listImportFailures: 'template.v1.imports.failures',
    /** Restore an export: open a job, send its rows, start it, read it and its failures. */
    createRestore: 'template.v1.restores.create',
    appendRestoreRows: 'template.v1.restores.rows',
    startRestore: 'template.v1.restores.start',
    getRestore: 'template.v1.restores.get',
    listRestoreFailures: 'template.v1.restores.failures',
    ping: 'template.v1.ping',
    /**
     * JetStream: an import or restore job completed or failed, from the template service's outbox
     * (written in the transaction that ended the job); the webhooks service's import.completed / .failed.
     */
    importCompleted: 'template.v1.events.import-completed',
    importFailed: 'template.v1.events.import-failed',
  },
  /** a tenant's webhook endpoints and their delivery log (the control plane's routes). */
  webhooks: {
    createEndpoint: 'webhooks.v1.endpoints.create',
    listEndpoints: 'webhooks.v1.endpoints.list',
    getEndpoint: 'webhooks.v1.endpoints.get',
    updateEndpoint: 'webhooks.v1.endpoints.update',
    deleteEndpoint: 'webhooks.v1.endpoints.delete',
    rotateSecret: 'webhooks.v1.endpoints.rotate-secret',
    listDeliveries: 'webhooks.v1.deliveries.list',
    redeliver: 'webhooks.v1.deliveries.redeliver',
    ping: 'webhooks.v1.ping',
  },
} as const;

export const Streams = {
  memoryUsage: { name: 'MEMORY_USAGE', subjects: ['memory.v1.usage.>'] },
  /** what happened to a tenant's memory, for the webhooks service (memory.v1.events.*). */
  memoryEvents: { name: 'MEMORY_EVENTS', subjects: ['memory.v1.events.>'] },
  gatewayRequests: { name: 'GATEWAY_REQUESTS', subjects: ['gateway.v1.request.>'] },
  billingDeadLetters: { name: 'BILLING_DEAD_LETTERS', subjects: ['billing.v1.usage.dead-letter'] },
  /**
   * what happened in each service that webhooks announce, one stream per owner (`<OWNER>_EVENTS`,
   * `<owner>.v1.events.*`, as MEMORY_EVENTS), each created by its owner and by the webhooks service.
   * Telemetry's lists its subjects one by one: `telemetry.v1.events.list` is a request subject.
   */
  templateEvents: { name: 'TEMPLATE_EVENTS', subjects: ['template.v1.events.>'] },
  telemetryEvents: { name: 'TELEMETRY_EVENTS', subjects: ['telemetry.v1.events.anomaly-raised'] },
  billingEvents: { name: 'BILLING_EVENTS', subjects: ['billing.v1.events.>'] },
} as const;

/**
 * The NATS micro protocol's discovery (`$SRV.PING|INFO|STATS`, what `nats micro ls|info|stats` asks):
 * every verb for all services, for one service's name, and for one of its instances. Each service
 * instance answers on these (libs/bus nats-service.ts), so its NATS user may subscribe to them.
 */
export const discoverySubjects = (service: string, instance = '*') => [
  '$SRV.*',
  `$SRV.*.${service}`,
  `$SRV.*.${service}.${instance}`,
];

/** Queue groups are named after the service so N instances share one subject's load. */
export const QueueGroups = {
  memory: 'memory',
  billing: 'billing',
  telemetry: 'telemetry',
  template: 'template',
  webhooks: 'webhooks',
} as const;

/** Durable JetStream consumers, named after the service that owns them. */
export const Consumers = {
  billingUsage: 'billing-usage',
  telemetryRequests: 'telemetry-requests',
  telemetryDeadLetters: 'telemetry-dead-letters',
  /** retained writes (their usage records) become memory.retained deliveries. */
  webhooksMemoryUsage: 'webhooks-memory-usage',
  /** memory's own events (namespace deletions, forgotten memories) become webhook deliveries. */
  webhooksMemoryEvents: 'webhooks-memory-events',
  /** finished import and restore jobs (import.completed / import.failed). */
  webhooksTemplateEvents: 'webhooks-template-events',
  /** raised anomalies (anomaly.raised). */
  webhooksTelemetryEvents: 'webhooks-telemetry-events',
  /** voided charges (charge.voided). */
  webhooksBillingEvents: 'webhooks-billing-events',
} as const;
