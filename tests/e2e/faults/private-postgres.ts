import pg from 'pg';
import type { PgSettings } from '../../../infra/dev/dev-settings.js';
import { acceptsConnections, prepareEmbeddedPostgres } from '../../../infra/dev/embedded-postgres.js';
import type { SupervisedProcess } from '../../../infra/dev/supervised-process.js';
import { waitFor } from '../../../infra/dev/wait-for.js';

/**
 * The fault suite's own PostgreSQL: the launcher's embedded one (same binaries, same initdb), on a
 * free port with its data in the run's temp dir, so the suite can stop and restart it. The machine's
 * shared server on 5432 is never touched.
 */
export class PrivatePostgres {
  private server: SupervisedProcess | undefined;
  private startServer: (() => SupervisedProcess) | undefined;
  private quieted = false;

  constructor(
    readonly settings: PgSettings,
    private readonly dataDir: string,
  ) {}

  databaseUrl(database: string): string {
    const { user, host, port } = this.settings;
    return `postgresql://${user}@${host}:${port}/${database}`;
  }

  async start(): Promise<void> {
    if (this.server) return;
    // initdb once; each start after that runs the server on the same data.
    this.startServer ??= await prepareEmbeddedPostgres(this.settings, this.dataDir);
    this.server = this.startServer();
    await waitFor('the private PostgreSQL to accept connections', () => acceptsConnections(this.settings), {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    if (this.quieted) return;
    // Only what matters on the console: the suite's own faults would otherwise log pages of
    // "terminating connection" and every failed statement of a service that retries.
    const client = new pg.Client({ ...this.settings, database: 'postgres' });
    await client.connect();
    try {
      for (const [name, value] of [
        ['log_min_messages', 'fatal'],
        ['log_min_error_statement', 'panic'],
        ['log_checkpoints', 'off'],
      ])
        await client.query(`ALTER SYSTEM SET ${name} = '${value}'`);
      await client.query('SELECT pg_reload_conf()');
      this.quieted = true;
    } finally {
      await client.end();
    }
  }

  /** A fast shutdown (SIGINT): open sessions are cut, as on a failover or an operator's restart. */
  async stop(): Promise<void> {
    await this.server?.stop(15_000);
    this.server = undefined;
  }
}
