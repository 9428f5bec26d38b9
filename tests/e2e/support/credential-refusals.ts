/**
 * The gateway's 401 sentences, pinned here for every surface that shows them (the HTTP API, /mcp, the
 * SDKs, tm-mcp, the adapters): no credential asks for one; a refused one says it was not accepted, one
 * sentence per kind whatever the reason. A change to them is a change to what every client prints.
 */
export const NO_CREDENTIAL =
  'Authentication required: send an API key (Authorization: Bearer <API_KEY> or X-API-Key) or a session token';
export const KEY_NOT_ACCEPTED =
  'The API key was not accepted: it is unknown, revoked or mistyped. Authentication requires a valid API key or session token';
export const SESSION_NOT_ACCEPTED =
  'The session token was not accepted: it is unknown, expired or ended (sign in again; API keys start with tmk_). Authentication requires a valid API key or session token';
