import pg from 'pg';
import { pgServerUrl } from './private-databases.js';

async function asAdmin(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: pgServerUrl() });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

const nameOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

/**
 * One database down while the server and the other databases stay up (the server is shared with
 * other files and other people): it refuses new connections, and the ones open now are ended, as a
 * failover or a restart would end them.
 */
export const takeDatabaseDown = (url: string) =>
  asAdmin(async (client) => {
    await client.query(`ALTER DATABASE "${nameOf(url)}" ALLOW_CONNECTIONS false`);
    await client.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [nameOf(url)],
    );
  });

export const bringDatabaseBack = (url: string) =>
  asAdmin((client) => client.query(`ALTER DATABASE "${nameOf(url)}" ALLOW_CONNECTIONS true`));
