import type { ReactElement } from 'react';
import { AccountPage } from './access/account-page.js';
import { ApiKeysPage } from './access/api-keys-page.js';
import { ConsentPage } from './access/consent-page.js';
import { OperatorTokensPage } from './access/operator-tokens-page.js';
import { StoragePage } from './access/storage-page.js';
import { UsersPage } from './access/users-page.js';
import { BillingPage } from './billing-page.js';
import { ConnectPage } from './connect-page.js';
import { EventsPage } from './events-page.js';
import { ImportsPage } from './imports-page.js';
import { MetricsPage } from './metrics-page.js';
import { NamespacesPage } from './namespaces-page.js';
import { OverviewPage } from './overview-page.js';
import { PlaygroundPage } from './playground-page.js';
import { TemplatesPage } from './templates-page.js';
import { WebhookDeliveriesPage } from './webhook-deliveries-page.js';
import { WebhooksPage } from './webhooks-page.js';

/**
 * Every page of the console: its path under /console, its name in the navigation, and the role action
 * it needs to be listed (the server refuses the calls of the others anyway).
 */
export interface ConsolePage {
  path: string;
  label: string;
  element: ReactElement;
  needs?: string;
  /** A page reached from another (an endpoint's deliveries), not listed in the navigation. */
  nav?: false;
}

export const PAGES: ConsolePage[] = [
  { path: '/', label: 'Overview', element: <OverviewPage /> },
  // First steps for a new user: the base URL and snippets for every client.
  { path: '/connect', label: 'Connect an app', element: <ConnectPage /> },
  // The access side of the control plane.
  { path: '/api-keys', label: 'API keys', element: <ApiKeysPage />, needs: 'keys:read' },
  { path: '/users', label: 'Users and roles', element: <UsersPage />, needs: 'users:read' },
  { path: '/storage', label: 'Storage connections', element: <StoragePage />, needs: 'storage:read' },
  { path: '/consent', label: 'Consent', element: <ConsentPage /> },
  { path: '/account', label: 'Account', element: <AccountPage /> },
  {
    path: '/operator-tokens',
    label: 'Operator tokens',
    element: <OperatorTokensPage />,
    needs: 'operator-tokens:manage',
  },
  // Owners and admins: an endpoint names the tenant's own systems, and its log shows their answers.
  { path: '/webhooks', label: 'Webhooks', element: <WebhooksPage />, needs: 'webhooks:manage' },
  {
    path: '/webhooks/:id',
    label: 'Webhook deliveries',
    element: <WebhookDeliveriesPage />,
    needs: 'webhooks:manage',
    nav: false,
  },
  // The data pages call the API with a key acting for the user, so they are listed for the roles that
  // hold memory:write and memory:recall (owner, admin, developer); a viewer's key could do neither.
  { path: '/playground', label: 'Playground', element: <PlaygroundPage />, needs: 'memory:write' },
  { path: '/namespaces', label: 'Namespaces', element: <NamespacesPage />, needs: 'telemetry:read' },
  // Reading a template takes memory:recall; an import's rows are writes.
  { path: '/templates', label: 'Templates', element: <TemplatesPage />, needs: 'memory:recall' },
  { path: '/imports', label: 'Imports', element: <ImportsPage />, needs: 'memory:write' },
  // What happened and what it cost.
  { path: '/metrics', label: 'Metrics and anomalies', element: <MetricsPage />, needs: 'telemetry:read' },
  { path: '/events', label: 'Events', element: <EventsPage />, needs: 'telemetry:read' },
  { path: '/billing', label: 'Usage and billing', element: <BillingPage />, needs: 'usage:read' },
];
