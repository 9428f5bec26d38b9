import { TextMemory, TextMemoryError } from '@text-memory/sdk';
import type { Command } from 'commander';
import { DEFAULT_BASE_URL, readConfig, writeConfig } from '../config-store.js';
import { type Context, knownSecrets, withContext } from '../context.js';
import { sentCredentials } from '../credential-refusal.js';
import { UsageError } from '../exit-codes.js';
import { isInteractive, readHidden, readStdinLine } from '../prompt.js';
import { secretFlagWarning } from '../secret-flags.js';

interface LoginOptions {
  baseUrl?: string;
  apiKey?: string;
  apiKeyStdin?: boolean;
  email?: string;
  passwordStdin?: boolean;
  verify: boolean;
}

async function secret(fromStdin: boolean | undefined, prompt: string, option: string): Promise<string> {
  const value = fromStdin ? await readStdinLine() : isInteractive() ? await readHidden(prompt) : undefined;
  if (value === undefined) throw new UsageError(`No terminal to ask for it: pass ${option}`);
  if (value.trim() === '') throw new UsageError('Nothing was given');
  knownSecrets.add(value);
  return value;
}

async function login(ctx: Context, options: LoginOptions): Promise<void> {
  const stored = await readConfig(ctx.configPath);
  const baseUrl = options.baseUrl ?? process.env.TM_BASE_URL ?? stored.base_url ?? DEFAULT_BASE_URL;
  if (options.email) {
    if (options.apiKey || options.apiKeyStdin) throw new UsageError('Give either --email or an API key');
    const password = await secret(options.passwordStdin, 'Password: ', '--password-stdin');
    const tm = new TextMemory({ baseUrl });
    // Not retried: a 429 lasts up to 15 minutes (its message says how long), and a busy server's 503
    // is better tried again by the person than waited out here.
    const session = await tm.control.sessions.login({ email: options.email, password }, { maxRetries: 0 });
    knownSecrets.add(session.token);
    await writeConfig(
      { ...stored, base_url: baseUrl, session_token: session.token, email: options.email },
      ctx.configPath,
    );
    // The token goes to the config file only, never to the screen, not even with --json.
    const { token: _token, ...shown } = session;
    ctx.out.result({ ...shown, base_url: baseUrl, config: ctx.configPath }, () =>
      ctx.out.line(
        `Logged in to ${baseUrl} as ${session.user.email ?? options.email} (${session.user.role}, tenant ${session.tenant.name}); ` +
          `session until ${session.expires_at}, saved in ${ctx.configPath}`,
      ),
    );
    return;
  }
  if (options.apiKey !== undefined) {
    if (options.apiKeyStdin) throw new UsageError('Give either --api-key or --api-key-stdin');
    ctx.out.warn(secretFlagWarning('--api-key', 'the prompt, --api-key-stdin or TM_API_KEY'));
  }
  const apiKey = options.apiKey ?? (await secret(options.apiKeyStdin, 'API key: ', '--api-key-stdin'));
  knownSecrets.add(apiKey);
  let note = '';
  if (options.verify) {
    sentCredentials.add('API key');
    try {
      await new TextMemory({ baseUrl, apiKey }).infrastructure.status();
    } catch (error) {
      // 403: the key is valid but may not read status (a write-only key); keep it all the same.
      if (!(error instanceof TextMemoryError && error.status === 403)) throw error;
      note = ' (the key may not read status; kept anyway)';
    }
  }
  await writeConfig({ ...stored, base_url: baseUrl, api_key: apiKey }, ctx.configPath);
  ctx.out.result({ base_url: baseUrl, config: ctx.configPath, verified: options.verify }, () =>
    ctx.out.line(`Logged in to ${baseUrl} with an API key${note}; saved in ${ctx.configPath}`),
  );
}

async function logout(ctx: Context): Promise<void> {
  const stored = await readConfig(ctx.configPath);
  let ended = false;
  if (stored.session_token) {
    const tm = new TextMemory({
      baseUrl: stored.base_url ?? DEFAULT_BASE_URL,
      sessionToken: stored.session_token,
    });
    try {
      await tm.control.sessions.logout();
      ended = true;
    } catch (error) {
      // An expired or already ended session: forgetting it is all that is left to do.
      if (!(error instanceof TextMemoryError && error.status === 401)) throw error;
    }
  }
  await writeConfig(stored.base_url ? { base_url: stored.base_url } : {}, ctx.configPath);
  ctx.out.result({ session_ended: ended, config: ctx.configPath }, () =>
    ctx.out.line(`Logged out${ended ? ' (session ended)' : ''}; credentials removed from ${ctx.configPath}`),
  );
}

export function registerAuth(program: Command): void {
  program
    .command('login')
    .description(
      'Save a base URL and an API key (or, with --email, a session) in the config file (mode 0600)',
    )
    .option(
      '--base-url <url>',
      `the deployment (default: TM_BASE_URL, the saved one, or ${DEFAULT_BASE_URL})`,
    )
    .option(
      '--api-key <key>',
      'the API key (kept for compatibility, with a warning: it shows in shell history and the process list; prefer the prompt or --api-key-stdin)',
    )
    .option('--api-key-stdin', 'read the API key from stdin')
    .option(
      '--email <email>',
      'log in as this user for the control plane (keys, webhooks); asks for the password',
    )
    .option('--password-stdin', 'read the password from stdin instead of a prompt')
    .option('--no-verify', 'save the key without checking it against the service')
    .addHelpText(
      'after',
      '\nExamples:\n  tm login --base-url http://127.0.0.1:8080          # asks for the key, not echoed\n' +
        '  cat key.txt | tm login --api-key-stdin\n  tm login --email owner@example.com                 # asks for the password',
    )
    .action(withContext(login));
  program
    .command('logout')
    .description('End the saved session and remove the saved credentials')
    .action(withContext(logout));
}
