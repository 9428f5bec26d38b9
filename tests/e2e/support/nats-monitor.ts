/**
 * What the file's nats-server says about its clients (its monitoring port, `/connz`): for each
 * connection with a given name, open or closed, how many messages each subject's subscription
 * received. Instances of a service all connect under the service's name, and a queue group hands each
 * request to one subscription, so the counts say which instance took how many requests, without the
 * services exposing anything for it. A closed connection (a killed instance) keeps its last counts in
 * the server's list of closed connections.
 */
export interface ConnectionDeliveries {
  cid: number;
  state: 'open' | 'closed';
  /** Messages delivered per subscribed subject. */
  bySubject: Record<string, number>;
}

interface Connz {
  connections: Array<{
    cid: number;
    name?: string;
    subscriptions_list_detail?: Array<{ subject: string; msgs: number }>;
  }>;
}

async function connz(monitorUrl: string, state: 'open' | 'closed'): Promise<Connz> {
  const res = await fetch(`${monitorUrl}/connz?subs=detail&state=${state}&limit=1024`);
  if (!res.ok) throw new Error(`nats-server monitoring answered ${res.status}`);
  return (await res.json()) as Connz;
}

export async function deliveriesByConnection(
  monitorUrl: string,
  name: string,
): Promise<ConnectionDeliveries[]> {
  const out: ConnectionDeliveries[] = [];
  for (const state of ['open', 'closed'] as const) {
    for (const c of (await connz(monitorUrl, state)).connections) {
      if (c.name !== name) continue;
      const bySubject: Record<string, number> = {};
      for (const sub of c.subscriptions_list_detail ?? [])
        bySubject[sub.subject] = (bySubject[sub.subject] ?? 0) + sub.msgs;
      out.push({ cid: c.cid, state, bySubject });
    }
  }
  return out;
}
