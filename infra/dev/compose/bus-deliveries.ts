import { Subjects } from '@tm/contracts';

/** One client connection of nats-server: where it comes from, and the write messages handed to it. */
export interface WriteDeliveries {
  /** The client's address as nats-server sees it: a container's address on the compose network. */
  ip: string;
  writes: number;
}

/**
 * Write messages each open connection named `name` has received, by server and connection id, from
 * the monitoring port (`/connz`) of each nats-server given (every node of a cluster: a client connects
 * to one of them). Every instance of a service connects under the service's name and a queue
 * group hands each request to one of them, so the counts say which replica took how many writes without
 * the services exposing anything for it.
 */
export async function writesByConnection(
  monitorUrls: readonly string[],
  name: string,
): Promise<Map<string, WriteDeliveries>> {
  const deliveries = new Map<string, WriteDeliveries>();
  for (const monitorUrl of monitorUrls) {
    for (const [cid, writes] of await serverWrites(monitorUrl, name))
      deliveries.set(`${monitorUrl} ${cid}`, writes);
  }
  return deliveries;
}

async function serverWrites(monitorUrl: string, name: string): Promise<Map<number, WriteDeliveries>> {
  const res = await fetch(`${monitorUrl}/connz?subs=detail&limit=1024`);
  if (!res.ok) throw new Error(`nats-server monitoring answered ${res.status}`);
  const { connections } = (await res.json()) as {
    connections: Array<{
      cid: number;
      ip: string;
      name?: string;
      subscriptions_list_detail?: Array<{ subject: string; msgs: number }>;
    }>;
  };
  const writeSubjects = new Set<string>([Subjects.memory.write, Subjects.memory.writeCoalesced]);
  const deliveries = new Map<number, WriteDeliveries>();
  for (const c of connections) {
    if (c.name !== name) continue;
    const writes = (c.subscriptions_list_detail ?? [])
      .filter((sub) => writeSubjects.has(sub.subject))
      .reduce((sum, sub) => sum + sub.msgs, 0);
    deliveries.set(c.cid, { ip: c.ip, writes });
  }
  return deliveries;
}
