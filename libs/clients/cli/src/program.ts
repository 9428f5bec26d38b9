import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerAuth } from './commands/auth.js';
import { registerImports } from './commands/imports.js';
import { registerInfrastructure } from './commands/infrastructure.js';
import { registerKeys } from './commands/keys.js';
import { registerMarketplace } from './commands/marketplace.js';
import { registerMemories } from './commands/memories.js';
import { registerMemory } from './commands/memory.js';
import { registerRestore } from './commands/restore.js';
import { registerTemplates } from './commands/templates.js';
import { registerWebhooks } from './commands/webhooks.js';
import { knownSecrets } from './context.js';
import { explainCredentialRefusal } from './credential-refusal.js';
import { EXIT, EXIT_CODES_HELP, ExitWith, exitCodeFor } from './exit-codes.js';
import { Output } from './output.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const ENVIRONMENT_HELP = `Environment (wins over the config file):
  TM_BASE_URL       the deployment, e.g. http://127.0.0.1:8080
  TM_API_KEY        API key for memory, templates, imports, telemetry
  TM_SESSION_TOKEN  session token for the control plane (keys, webhooks)
  TM_OPERATOR_TOKEN operator token for smoke-test
  TM_HUB_TOKEN      model-hub token for import --dataset of a gated or private dataset
  TM_CONFIG         config file (default $XDG_CONFIG_HOME/text-memory/config.json or ~/.config/text-memory/config.json)`;

export function buildProgram(): Command {
  const program = new Command('tm')
    .description('Text-Memory Service from the command line: write, recall, delete, import, operate')
    .version(version)
    .option('--json', 'print the SDK result as JSON on stdout (errors as JSON on stderr)')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', `\n${EXIT_CODES_HELP}\n\n${ENVIRONMENT_HELP}`)
    // Commander would exit on its own with 1; we map its errors to 2 (usage) in `main`.
    .exitOverride();
  registerAuth(program);
  registerMemory(program);
  registerRestore(program);
  registerImports(program);
  registerInfrastructure(program);
  registerKeys(program);
  registerTemplates(program);
  registerMarketplace(program);
  registerMemories(program);
  registerWebhooks(program);
  return program;
}

/** Run `tm` with argv (node, script, ...args) and resolve with the exit code; never throws. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    // Help and version are CommanderErrors with exit code 0; anything else it throws is a bad command line.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (error instanceof ExitWith) return error.code;
    new Output(Boolean(program.opts().json)).error(explainCredentialRefusal(error), [...knownSecrets]);
    return exitCodeFor(error);
  }
}
