import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import client from 'prom-client';

export interface MetricsServer {
  /** The bound port (an ephemeral one when asked for 0); undefined when it could not listen. */
  port: number | undefined;
  close: () => Promise<void>;
}

/**
 * The Prometheus exposition on its own listener, apart from any public port: `GET /metrics`. A port
 * that cannot be bound is logged and the service runs on without metrics; serving requests matters
 * more than being scraped.
 */
export async function serveMetrics(options: {
  port: number;
  host: string;
  logger: Logger;
}): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    client.register.metrics().then(
      (text) => res.writeHead(200, { 'content-type': client.register.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  const port = await new Promise<number | undefined>((resolve) => {
    server.once('error', (err) => {
      options.logger.warn(
        { err, port: options.port },
        'metrics listener could not start; running without it',
      );
      resolve(undefined);
    });
    server.listen(options.port, options.host, () => resolve((server.address() as AddressInfo).port));
  });
  if (port !== undefined) options.logger.info({ metrics_port: port }, 'metrics at /metrics');
  return {
    port,
    close: () =>
      port === undefined ? Promise.resolve() : new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
