import { type Schemas, TextMemory } from '@text-memory/sdk';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { useSession } from './session-context.js';
import { loadSessionToken, loadTabKey, saveTabKey } from './session-storage.js';
import { holdKey, keeperReady, leaveKey, startKeeper } from './tab-key-keeper-client.js';

/**
 * What the data pages do with the key (write, recall, delete a namespace): the console's own key holds
 * no more, so not telemetry:read nor an owner's export:read, whatever its creator's role would give.
 */
const DATA_PAGE_PERMISSIONS: Schemas['ApiKey']['permissions'] = [
  'memory:write',
  'memory:recall',
  'memory:delete',
];

/** "console (tab) 2026-11-26 09:41 UTC": recognisable on the API keys page, where it can be revoked. */
const ownKeyName = (now: Date) => `console (tab) ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** How long logout waits for the key's revocation before it ends the session anyway. */
const REVOKE_WAIT_MS = 5_000;

export interface OwnKey {
  id: string;
  name: string;
  key: string;
}

/**
 * Where the browser has no service worker to keep the key across a reload (tab-key-keeper-client.ts):
 * revokes the tab's key as the page goes away (reload, close, another address), with the session token
 * the tab still holds. `keepalive` lets the request outlive the page; nobody is left to read its answer,
 * so a failure (the API down, the session already ended) leaves the key to the API keys page.
 */
function revokeAsThePageGoes(id: string): void {
  const token = loadSessionToken();
  if (!token) return;
  void fetch(`${window.location.origin}/api/v1/control/api-keys/${encodeURIComponent(id)}/revoke`, {
    method: 'POST',
    headers: { accept: 'application/json', authorization: `Bearer ${token}` },
    keepalive: true,
  }).catch(() => undefined);
}

/**
 * Sessions never reach the data plane (the spec's Authentication rule 1): the playground, imports,
 * templates and namespace deletion call it with an API key the user pastes, or with the console's own
 * key for this tab, created in one click. A pasted key is held in the page's memory only. The console's
 * own key is kept in the tab's sessionStorage beside the session token, so a reload keeps it (and the
 * snippets that hold it keep working); API keys have no expiry, so the tab revokes it on the server:
 * on logout (before the session ends) and, through tab-key-keeper.ts, when the tab is closed or leaves
 * the console for longer than a reload takes. Both are best effort; a key left behind (the browser
 * killed, the API unreachable) is listed by its name on the API keys page.
 */
interface DataKeyState {
  /** A client carrying the key, or undefined until one is given. */
  client: TextMemory | undefined;
  /** The key's 12-character prefix, to say which key is in use. */
  prefix: string | undefined;
  /**
   * The key this tab created (the console's own), kept for the tab even while a pasted one is in use.
   * The only secret the console may show again (its "connect an app" snippets): the user just made it.
   */
  ownKey: OwnKey | undefined;
  chooseKey: (apiKey: string | undefined) => void;
  /** Creates the console's own key for this tab (or uses the one it has) and chooses it. */
  takeOwnKey: () => Promise<OwnKey>;
}

const DataKeyContext = createContext<DataKeyState | undefined>(undefined);

export function DataKeyProvider({ children }: { children: ReactNode }) {
  const { client: session, can, beforeLogout } = useSession();
  const [ownKey, setOwnKey] = useState<OwnKey | undefined>(loadTabKey);
  const [apiKey, setApiKey] = useState<string | undefined>(() => ownKey?.key);

  const takeOwnKey = useCallback(async () => {
    if (ownKey) {
      setApiKey(ownKey.key);
      return ownKey;
    }
    const answer = await session.control.apiKeys.create({
      name: ownKeyName(new Date()),
      // Within the role too: the server refuses a permission the role does not hold.
      permissions: DATA_PAGE_PERMISSIONS.filter((permission) => can(permission)),
    });
    const made = { id: answer.id, name: answer.name, key: answer.key };
    saveTabKey(made);
    setOwnKey(made);
    setApiKey(made.key);
    return made;
  }, [ownKey, session, can]);

  const ownKeyId = ownKey?.id;
  const ownSecret = ownKey?.key;
  // Logout revokes the key while the session still holds; no retry and a bounded wait, as logout must go on.
  useEffect(() => {
    if (!ownKeyId) return;
    return beforeLogout(async () => {
      await session.control.apiKeys.revoke(ownKeyId, { maxRetries: 0, timeoutMs: REVOKE_WAIT_MS });
    });
  }, [ownKeyId, session, beforeLogout]);
  // Registered as the console opens, so the keeper is there by the time a key is made.
  useEffect(() => void startKeeper(), []);
  // The tab holds its key: the keeper calls off the revocation the page before (a reload) asked for.
  // A key revoked meanwhile (the tab away for longer than a reload, or revoked on the API keys page)
  // is forgotten; one click makes another.
  useEffect(() => {
    if (!ownKeyId) return;
    const forgetIfRevoked = () => {
      session.control.apiKeys.get(ownKeyId).then(
        (key) => key.status === 'active' || forgetOwnKey(),
        (error: unknown) => (error as { status?: number }).status === 404 && forgetOwnKey(),
      );
    };
    const forgetOwnKey = () => {
      saveTabKey(undefined);
      setOwnKey(undefined);
      setApiKey((current) => (current === ownSecret ? undefined : current));
    };
    const hold = () => {
      holdKey(ownKeyId);
      forgetIfRevoked();
    };
    hold();
    const onHide = () => {
      const token = loadSessionToken();
      if (!token) return;
      if (keeperReady()) leaveKey(ownKeyId, token);
      else revokeAsThePageGoes(ownKeyId);
    };
    // Back from the back-forward cache: held again (the keeper may already have revoked it).
    const onShow = (event: PageTransitionEvent) => {
      if (event.persisted) hold();
    };
    window.addEventListener('pagehide', onHide);
    window.addEventListener('pageshow', onShow);
    return () => {
      window.removeEventListener('pagehide', onHide);
      window.removeEventListener('pageshow', onShow);
    };
  }, [ownKeyId, ownSecret, session]);

  const value = useMemo<DataKeyState>(
    () => ({
      client: apiKey ? new TextMemory({ baseUrl: window.location.origin, apiKey, maxRetries: 1 }) : undefined,
      prefix: apiKey?.slice(0, 12),
      ownKey,
      chooseKey: (next) => setApiKey(next?.trim() || undefined),
      takeOwnKey,
    }),
    [apiKey, ownKey, takeOwnKey],
  );
  return <DataKeyContext.Provider value={value}>{children}</DataKeyContext.Provider>;
}

export function useDataKey(): DataKeyState {
  const state = useContext(DataKeyContext);
  if (!state) throw new Error('useDataKey outside DataKeyProvider');
  return state;
}
