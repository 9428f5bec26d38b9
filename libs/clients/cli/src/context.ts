import { TextMemory } from '@text-memory/sdk';
import type { Command } from 'commander';
import { type Credentials, configPath, readConfig, resolveCredentials } from './config-store.js';
import { sentCredentials } from './credential-refusal.js';
import { UsageError } from './exit-codes.js';
import { Output } from './output.js';

/** Credentials seen in this run, masked in any error text that might ever echo one. */
export const knownSecrets = new Set<string>();

export interface GlobalOptions {
  json?: boolean;
}

/** What a command needs: where to print, and a client with the credential its routes take. */
export class Context {
  constructor(
    readonly out: Output,
    readonly credentials: Credentials,
    readonly configPath: string,
  ) {
    for (const secret of [credentials.apiKey, credentials.sessionToken]) if (secret) knownSecrets.add(secret);
  }

  static async create(options: GlobalOptions): Promise<Context> {
    const path = configPath();
    const credentials = resolveCredentials(await readConfig(path));
    return new Context(new Output(Boolean(options.json)), credentials, path);
  }

  /**
   * A client for routes taking `need`: a missing credential is said here, before any request,
   * rather than as the server's 401.
   */
  client(need: 'apiKey' | 'session' | 'either' | 'none', extra: { operatorToken?: string } = {}): TextMemory {
    const { baseUrl, apiKey, sessionToken } = this.credentials;
    if (need === 'apiKey' && !apiKey)
      throw new UsageError('No API key: run `tm login` with a key, or set TM_API_KEY');
    if (need === 'session' && !sessionToken)
      throw new UsageError('No session: run `tm login --email <email>`, or set TM_SESSION_TOKEN');
    if (need === 'either' && !apiKey && !sessionToken)
      throw new UsageError('Not logged in: run `tm login`, or set TM_API_KEY');
    if (extra.operatorToken) knownSecrets.add(extra.operatorToken);
    if (need !== 'session' && apiKey) sentCredentials.add('API key');
    if (need !== 'apiKey' && sessionToken) sentCredentials.add('session token');
    return new TextMemory({
      baseUrl,
      // A session-only command sends the session even when a key is stored too.
      ...(need !== 'session' && apiKey ? { apiKey } : {}),
      ...(need !== 'apiKey' && sessionToken ? { sessionToken } : {}),
      ...(extra.operatorToken ? { operatorToken: extra.operatorToken } : {}),
    });
  }
}

/**
 * Wrap a command's handler: commander passes (...arguments, options, command); the handler gets a
 * Context built from the global options, then the same arguments.
 */
export function withContext<A extends unknown[]>(handler: (ctx: Context, ...args: A) => Promise<void>) {
  return async (...args: unknown[]) => {
    const command = args.at(-1) as Command;
    const ctx = await Context.create(command.optsWithGlobals<GlobalOptions>());
    await handler(ctx, ...(args.slice(0, -1) as A));
  };
}
