/**
 * One Prisma client (and pool) per process, created on start from validated config and closed on
 * shutdown. Each service passes the factory for its own generated client.
 */
export function prismaHolder<C extends { $disconnect(): Promise<void> }>(
  create: (url: string, poolSize: number) => C,
) {
  let client: C | undefined;
  return {
    init(url: string, poolSize: number): C {
      client = create(url, poolSize);
      return client;
    },
    get(): C {
      if (!client) throw new Error('Prisma client used before init');
      return client;
    },
    async close(): Promise<void> {
      await client?.$disconnect();
      client = undefined;
    },
  };
}
