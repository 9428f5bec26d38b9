/**
 * Where the session token lives between page loads: sessionStorage, which dies with the tab and is never
 * sent anywhere by the browser (no cookie, hence no cross-site request forgery). Never localStorage, and
 * API keys are never stored at all (docs/decisions.md, "Console").
 */
const KEY = 'tm.console.session';

export function loadSessionToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function saveSessionToken(token: string | undefined): void {
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
}
