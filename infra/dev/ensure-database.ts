import pg from 'pg';

/** Create the database a postgresql:// URL names, if missing. Resolves true when it was created. */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect().catch((err: Error) => {
    throw new Error(`cannot connect to PostgreSQL at ${url.host} for database ${name}: ${err.message}`);
  });
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (existing.rowCount) return false;
    // UTF8 whatever the cluster's default: the service stores arbitrary text.
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)} ENCODING 'UTF8' TEMPLATE template0`);
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === '42P04') return false; // created concurrently
    throw err;
  } finally {
    await client.end();
  }
}
