import { Subjects } from '@tm/contracts';

/**
 * Write messages each open connection named `name` has received, from nats-server's monitoring port
 * (`/connz`). Every instance of a service connects under the service's name and a queue group hands each
 * request to one of them, so the counts say which replica took how many writes without the services
 * exposing anything for it.
 */
export async function writesByConnection(monitorUrl: string, name: string): Promise<Map<number, number>> {
  const res = await fetch(`${monitorUrl}/connz?subs=detail&limit=1024`);
  if (!res.ok) throw new Error(`nats-server monitoring answered ${res.status}`);
  const { connections } = (await res.json()) as {
    connections: Array<{
      cid: number;
      name?: string;
      subscriptions_list_detail?: Array<{ subject: string; msgs: number }>;
    }>;
  };
  const writeSubjects = new Set<string>([Subjects.memory.write, Subjects.memory.writeBatch]);
  const counts = new Map<number, number>();
  for (const c of connections) {
    if (c.name !== name) continue;
    const taken = (c.subscriptions_list_detail ?? [])
      .filter((sub) => writeSubjects.has(sub.subject))
      .reduce((sum, sub) => sum + sub.msgs, 0);
    counts.set(c.cid, taken);
  }
  return counts;
}
