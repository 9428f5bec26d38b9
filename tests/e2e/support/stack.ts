import { randomBytes } from 'node:crypto';
import { BillingConfigSchema, type BillingService, startBillingService } from '@tm/billing';
import { type Gateway, GatewayConfigSchema, startGateway } from '@tm/gateway';
import { createLogger } from '@tm/kit';
import { MemoryConfigSchema, type MemoryService, startMemoryService } from '@tm/memory';
import { startTelemetryService, TelemetryConfigSchema, type TelemetryService } from '@tm/telemetry';
import { startTemplateService, TemplateConfigSchema, type TemplateService } from '@tm/template';
import { startWebhooksService, WebhooksConfigSchema, type WebhooksService } from '@tm/webhooks';
import { afterAll, beforeAll } from 'vitest';
import { type Api, createApi } from './api.js';
import { openFileEnv } from './file-env.js';
import type { StackEnv } from './global-setup.js';
import { logDestination, recordSecrets } from './log-capture.js';
import type { PrivateNatsOptions } from './private-nats.js';

/**
 * Every stack logs at the finest level into the run's one log file, which the global teardown
 * searches for credentials (credential-leak-check.ts); the file is kept when that check fails.
 */
export const testLogger = () => createLogger({ name: 'test', level: 'trace', destination: logDestination() });

/**
 * The real stack in this process: memory, billing, telemetry and template services and the gateway,
 * talking over this file's private nats-server, each on this file's own database (file-env.ts).
 * Tests reach it only through HTTP.
 */
export interface StackOptions {
  breakerResetMs?: number;
  requestTimeoutMs?: number;
  /** Gateway settings to override, by variable name (e.g. RATE_LIMIT_PER_KEY). */
  gatewayEnv?: Record<string, string>;
  /** Telemetry settings to override, by variable name (e.g. ANOMALY_ERROR_RATE_WARNING). */
  telemetryEnv?: Record<string, string>;
  /**
   * Template service settings to override, by variable name (e.g. IMPORT_BATCH_SIZE); a function is
   * read when the stack starts (e.g. for the URL of a stub hub started by an earlier `beforeAll`).
   */
  templateEnv?: Record<string, string> | (() => Record<string, string>);
  /** Memory and billing settings to override, by variable name (e.g. MEMORY_NATS_PASSWORD). */
  memoryEnv?: Record<string, string>;
  billingEnv?: Record<string, string>;
  /** Webhooks service settings to override (e.g. WEBHOOKS_RETRY_SCHEDULE_MS). */
  webhooksEnv?: Record<string, string>;
  /**
   * This file's nats-server: extra configuration and its environment
   * (tests/e2e/operations/nats-permissions.test.ts).
   */
  nats?: PrivateNatsOptions;
}

export async function startStack(options: StackOptions, env: StackEnv) {
  const logger = testLogger();
  const memoryConfig = MemoryConfigSchema.parse({
    MEMORY_DATABASE_URL: env.memoryDbUrl,
    NATS_URL: env.natsUrl,
    OUTBOX_RELAY_INTERVAL_MS: '100',
    ...options.memoryEnv,
  });
  let memory: MemoryService | undefined = await startMemoryService(memoryConfig, logger);
  const billingConfig = BillingConfigSchema.parse({
    BILLING_DATABASE_URL: env.billingDbUrl,
    NATS_URL: env.natsUrl,
    ...options.billingEnv,
  });
  let billing: BillingService | undefined = await startBillingService(billingConfig, logger);
  const telemetryConfig = TelemetryConfigSchema.parse({
    TELEMETRY_DATABASE_URL: env.telemetryDbUrl,
    NATS_URL: env.natsUrl,
    ...options.telemetryEnv,
  });
  let telemetry: TelemetryService | undefined = await startTelemetryService(telemetryConfig, logger);
  const templateConfig = TemplateConfigSchema.parse({
    TEMPLATE_DATABASE_URL: env.templateDbUrl,
    NATS_URL: env.natsUrl,
    ...(typeof options.templateEnv === 'function' ? options.templateEnv() : options.templateEnv),
  });
  let template: TemplateService | undefined = await startTemplateService(templateConfig, logger);
  const webhooksSecretKey = randomBytes(32).toString('base64url');
  recordSecrets([webhooksSecretKey]);
  const webhooksConfig = WebhooksConfigSchema.parse({
    WEBHOOKS_DATABASE_URL: env.webhooksDbUrl,
    NATS_URL: env.natsUrl,
    WEBHOOKS_SECRET_KEY: webhooksSecretKey,
    // The tests' receivers listen on 127.0.0.1; every other private range stays refused.
    WEBHOOKS_ALLOW_LOOPBACK: 'true',
    WEBHOOKS_POLL_INTERVAL_MS: '200',
    ...options.webhooksEnv,
  });
  let webhooks: WebhooksService | undefined = await startWebhooksService(webhooksConfig, logger);
  const secretKey = randomBytes(32).toString('base64url');
  recordSecrets([secretKey]); // it must never be logged either
  const gatewayEnv = {
    GATEWAY_PORT: '0',
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_DATABASE_URL: env.gatewayDbUrl,
    NATS_URL: env.natsUrl,
    BREAKER_RESET_MS: String(options.breakerResetMs ?? 500),
    GATEWAY_REQUEST_TIMEOUT_MS: String(options.requestTimeoutMs ?? 3_000),
    // Shared by the instances of this stack, as in a deployment: a session from one works on another.
    GATEWAY_SECRET_KEY: secretKey,
    ...options.gatewayEnv,
  };
  const gatewayConfig = GatewayConfigSchema.parse(gatewayEnv);
  let gateway: Gateway | undefined = await startGateway(gatewayConfig, logger);
  return {
    get gateway() {
      if (!gateway) throw new Error('gateway is stopped');
      return gateway;
    },
    /**
     * Another gateway instance on the same bus and database, as a deployment would scale it; `env`
     * overrides some of its settings (e.g. GATEWAY_TRUST_PROXY for an instance behind a proxy).
     */
    startGatewayInstance: (env: Record<string, string> = {}) =>
      startGateway(GatewayConfigSchema.parse({ ...gatewayEnv, ...env }), logger),
    url: gateway.url,
    env,
    /** The gateway's GATEWAY_SECRET_KEY, for tests that forge or expire tokens. */
    secretKey,
    get memory() {
      if (!memory) throw new Error('memory service is stopped');
      return memory;
    },
    async stopMemory() {
      await memory?.stop();
      memory = undefined;
    },
    async startMemory() {
      memory ??= await startMemoryService(memoryConfig, logger);
    },
    async stopBilling() {
      await billing?.stop();
      billing = undefined;
    },
    async startBilling() {
      billing ??= await startBillingService(billingConfig, logger);
    },
    async stopTelemetry() {
      await telemetry?.stop();
      telemetry = undefined;
    },
    async startTelemetry() {
      telemetry ??= await startTelemetryService(telemetryConfig, logger);
    },
    async stopWebhooks() {
      await webhooks?.stop();
      webhooks = undefined;
    },
    async startWebhooks() {
      webhooks ??= await startWebhooksService(webhooksConfig, logger);
    },
    async stopTemplate() {
      await template?.stop();
      template = undefined;
    },
    async startTemplate() {
      template ??= await startTemplateService(templateConfig, logger);
    },
    /** The process holds one gateway database; a test that needs a gateway on another stops this one. */
    async stopGateway() {
      await gateway?.stop();
      gateway = undefined;
    },
    async stop() {
      await gateway?.stop();
      await webhooks?.stop();
      await template?.stop();
      await telemetry?.stop();
      await billing?.stop();
      await memory?.stop();
    },
  };
}
export type Stack = Awaited<ReturnType<typeof startStack>>;

/** This file's databases and nats-server; a module of its own per test file (vitest isolates files). */
let fileEnv: StackEnv | undefined;

/** Where this file's stack runs, for helpers that read its databases or streams directly. */
export function stackEnv(): StackEnv {
  if (!fileEnv) throw new Error('no stack in this file yet: call useStack() and read this inside a test');
  return fileEnv;
}

/**
 * Give this file its own databases and nats-server, start the stack on them before the file's tests,
 * then stop it and drop them after. The returned object's fields are set once `beforeAll` has run,
 * so tests read them as `t.api`, `t.stack`. Call it once per file, at the top level.
 */
export function useStack(options: StackOptions = {}) {
  const t = {} as { stack: Stack; api: Api };
  let closeFileEnv: (() => Promise<void>) | undefined;
  beforeAll(async (file) => {
    if (fileEnv) throw new Error('useStack() is called once per file');
    const opened = await openFileEnv('filepath' in file ? file.filepath : file.file.filepath, options.nats);
    closeFileEnv = opened.close;
    fileEnv = opened.env;
    t.stack = await startStack(options, opened.env);
    t.api = await createApi(t.stack.url);
  });
  afterAll(async () => {
    await t.stack?.stop();
    await closeFileEnv?.();
  });
  return t;
}

/**
 * A second gateway instance on the same bus and database, started before this describe's tests and
 * stopped after them, as a deployment would scale the gateway. Fields are set once `beforeAll` has run.
 */
export function useSecondGateway(t: { stack: Stack }, env: Record<string, string> = {}) {
  const second = {} as { gateway: Gateway; api: Api };
  beforeAll(async () => {
    second.gateway = await t.stack.startGatewayInstance(env);
    second.api = await createApi(second.gateway.url);
  });
  afterAll(() => second.gateway?.stop());
  return second;
}
