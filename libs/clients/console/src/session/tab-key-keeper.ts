/**
 * A service worker that revokes a tab's console key once the tab is gone, but not when it reloads.
 * The page itself cannot tell the two apart: `pagehide` fires for both, and a reload keeps the tab's
 * sessionStorage (the key in it) while a closed tab loses it. So the leaving page hands the key's id
 * and its session token to this worker, which outlives the page; the page that comes back in the same
 * tab (a reload, the back button) says it holds the key again, and only a key nobody held again within
 * GRACE_MS is revoked. Built apart by Vite (`?worker&url`); the console never routes requests through it.
 */

/** A reload of a loaded machine's console, from pagehide to the new page's "hold", fits well within. */
const GRACE_MS = 10_000;

type KeeperMessage =
  | { type: 'hold'; keyId: string; at: number }
  | { type: 'leave'; keyId: string; token: string; at: number }
  | { type: 'state' };

/** What a service worker's message event carries (lib.webworker's types are not in the console's build). */
interface KeeperEvent {
  data: KeeperMessage;
  ports: readonly MessagePort[];
  waitUntil(work: Promise<unknown>): void;
}
const worker = self as unknown as {
  addEventListener(type: 'message', listener: (event: KeeperEvent) => void): void;
  location: Location;
};

/** The last time a page said it holds each key (Date.now() of that page, the same clock as "leave"). */
const heldAt = new Map<string, number>();
/** For tests and for nobody else: revocations waiting, keys kept, keys revoked. */
const state = { pending: 0, kept: 0, revoked: 0 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function revokeUnlessHeld(keyId: string, token: string, leftAt: number): Promise<void> {
  await sleep(GRACE_MS);
  if ((heldAt.get(keyId) ?? 0) > leftAt) {
    state.kept += 1;
    return;
  }
  heldAt.delete(keyId);
  // Nobody is left to show a failure (the API down, the session ended): the key then stays listed.
  const answer = await fetch(
    `${worker.location.origin}/api/v1/control/api-keys/${encodeURIComponent(keyId)}/revoke`,
    { method: 'POST', headers: { accept: 'application/json', authorization: `Bearer ${token}` } },
  ).catch(() => undefined);
  if (answer?.ok) state.revoked += 1;
}

worker.addEventListener('message', (event) => {
  const message = event.data;
  if (message.type === 'hold') {
    heldAt.set(message.keyId, Math.max(message.at, heldAt.get(message.keyId) ?? 0));
  } else if (message.type === 'leave') {
    state.pending += 1;
    // waitUntil keeps the worker alive through the grace (browsers allow minutes).
    event.waitUntil(
      revokeUnlessHeld(message.keyId, message.token, message.at).finally(() => {
        state.pending -= 1;
      }),
    );
  } else if (message.type === 'state') {
    event.ports[0]?.postMessage({ ...state });
  }
});
