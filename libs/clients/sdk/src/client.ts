import { checkedBaseUrl, checkedCredential } from './credentials.js';
import { ChatFamily } from './families/chat.js';
import { ControlFamily } from './families/control.js';
import { ImportsFamily } from './families/imports.js';
import { InfrastructureFamily } from './families/infrastructure.js';
import { MarketplaceFamily } from './families/marketplace.js';
import { MemoriesFamily } from './families/memories.js';
import { MemoryFamily } from './families/memory.js';
import { TemplatesFamily } from './families/templates.js';
import { type RetryEvent, Transport } from './http.js';
import type { RetryOptions } from './retry.js';

export interface TextMemoryOptions extends RetryOptions {
  /**
   * The deployment, e.g. `http://127.0.0.1:8080` (paths `/api/v1/…` and `/v1/…` are added). Required:
   * no default, and no environment variable is read.
   */
  baseUrl: string;
  /** `tmk_…`: data plane, templates, imports, chat, tenant telemetry. Never logged or put in errors. */
  apiKey?: string;
  /** A session token for the control plane (or log in with `control.sessions.login`). */
  sessionToken?: string;
  /** `tmo_…`, sent as X-Operator-Token by `infrastructure.smokeTest`. */
  operatorToken?: string;
  /** Another fetch (tests, proxies, instrumentation). Default: the global fetch. */
  fetch?: typeof fetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /** Called before each retry (after its delay is chosen): for logs and progress. */
  onRetry?: (event: RetryEvent) => void;
}

/**
 * The Text-Memory client. Methods are grouped by family:
 * `memory` (write, recall, delete), `infrastructure`, `control`, `templates`, `marketplace`,
 * `memories`, `imports`, `chat`. Every method takes per-call options last (timeout, retries, signal).
 */
export class TextMemory {
  readonly memory: MemoryFamily;
  readonly infrastructure: InfrastructureFamily;
  readonly control: ControlFamily;
  readonly templates: TemplatesFamily;
  readonly marketplace: MarketplaceFamily;
  readonly memories: MemoriesFamily;
  readonly imports: ImportsFamily;
  readonly chat: ChatFamily;
  private readonly http: Transport;

  /**
   * Throws a TextMemoryError (`validation_failed`, status 0) when the base URL is missing (there is no
   * default address) or holds a user name or password, or a credential cannot be sent (a line break, a
   * space or a character outside ASCII inside it). Its message names the option, never the value.
   */
  constructor(options: TextMemoryOptions) {
    // From JavaScript, `new TextMemory()` passes no options at all: refused as a missing baseUrl is.
    const given: Partial<TextMemoryOptions> = options ?? {};
    const checked = {
      baseUrl: checkedBaseUrl(given.baseUrl),
      apiKey: checkedCredential('apiKey', given.apiKey),
      sessionToken: checkedCredential('sessionToken', given.sessionToken),
      operatorToken: checkedCredential('operatorToken', given.operatorToken),
    };
    const { operatorToken: _operatorToken, ...transport } = given;
    this.http = new Transport({
      ...transport,
      baseUrl: checked.baseUrl,
      apiKey: checked.apiKey,
      sessionToken: checked.sessionToken,
    });
    this.memory = new MemoryFamily(this.http);
    this.infrastructure = new InfrastructureFamily(this.http, () => checked.operatorToken);
    this.control = new ControlFamily(this.http);
    this.templates = new TemplatesFamily(this.http);
    this.marketplace = new MarketplaceFamily(this.http);
    this.memories = new MemoriesFamily(this.http);
    this.imports = new ImportsFamily(this.http);
    this.chat = new ChatFamily(this.http);
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** The session token in use (set by `control.sessions.login`), for a CLI to keep between runs. */
  get sessionToken(): string | undefined {
    return this.http.sessionToken;
  }

  set sessionToken(token: string | undefined) {
    this.http.sessionToken = checkedCredential('sessionToken', token);
  }

  /** Never show the credentials (console.log, util.inspect, JSON.stringify). */
  toJSON() {
    return { baseUrl: this.baseUrl };
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `TextMemory { baseUrl: '${this.baseUrl}' }`;
  }
}
