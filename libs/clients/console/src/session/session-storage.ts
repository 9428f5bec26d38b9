/**
 * Where the session token lives between page loads: sessionStorage, which dies with the tab and is never
 * sent anywhere by the browser (no cookie, hence no cross-site request forgery). Never localStorage. The
 * one API key stored is the console's own key for the tab, beside the token and gone with it (a pasted
 * key never is; docs/decisions/console.md, "Console").
 */
const KEY = 'tm.console.session';

export function loadSessionToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function saveSessionToken(token: string | undefined): void {
  if (token) sessionStorage.setItem(KEY, token);
  else {
    sessionStorage.removeItem(KEY);
    // The tab's key belongs to the session that made it: a later login starts without it.
    saveTabKey(undefined);
  }
}

/** The console's own API key for this tab (data-key-context.tsx): kept across a reload of the tab. */
export interface StoredTabKey {
  id: string;
  name: string;
  key: string;
}

const TAB_KEY = 'tm.console.tab-key';

export function loadTabKey(): StoredTabKey | undefined {
  try {
    const stored = JSON.parse(sessionStorage.getItem(TAB_KEY) ?? 'null') as Partial<StoredTabKey> | null;
    return stored?.id && stored.name && stored.key
      ? { id: stored.id, name: stored.name, key: stored.key }
      : undefined;
  } catch {
    return undefined;
  }
}

export function saveTabKey(key: StoredTabKey | undefined): void {
  if (key) sessionStorage.setItem(TAB_KEY, JSON.stringify(key));
  else sessionStorage.removeItem(TAB_KEY);
}
