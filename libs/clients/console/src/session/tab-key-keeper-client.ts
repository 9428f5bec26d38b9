import keeperUrl from './tab-key-keeper.ts?worker&url';

/** The page's side of tab-key-keeper.ts: registers it and passes it the tab key's comings and goings. */
let keeper: ServiceWorker | null = null;
let ready: Promise<ServiceWorker | null> | undefined;

/**
 * Registers the keeper, once per page. Where the browser has no service workers (an insecure origin:
 * plain http on a host other than localhost) `keeperReady()` stays false and the caller falls back to
 * revoking the key as the page goes, reloads included.
 */
export function startKeeper(): Promise<ServiceWorker | null> {
  ready ??=
    'serviceWorker' in navigator
      ? navigator.serviceWorker
          .register(keeperUrl, { type: import.meta.env.DEV ? 'module' : 'classic' })
          .then((registration) => {
            keeper = registration.active ?? registration.waiting ?? registration.installing;
            return keeper;
          })
          .catch(() => null)
      : Promise.resolve(null);
  return ready;
}

export const keeperReady = () => keeper !== null;

/** This tab holds the key (again): a revocation the previous page of the tab asked for is called off. */
export function holdKey(keyId: string): void {
  const at = Date.now();
  void startKeeper().then((worker) => worker?.postMessage({ type: 'hold', keyId, at }));
}

/** The page goes: the key is revoked unless a page of this tab holds it again within the keeper's grace. */
export function leaveKey(keyId: string, token: string): void {
  keeper?.postMessage({ type: 'leave', keyId, token, at: Date.now() });
}
