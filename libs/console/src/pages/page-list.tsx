import type { ReactElement } from 'react';
import { BillingPage } from './billing-page.js';
import { EventsPage } from './events-page.js';
import { MetricsPage } from './metrics-page.js';
import { OverviewPage } from './overview-page.js';

/**
 * Every page of the console: its path under /console, its name in the navigation, and the role action
 * it needs to be listed (the server refuses the calls of the others anyway).
 */
export interface ConsolePage {
  path: string;
  label: string;
  element: ReactElement;
  needs?: string;
}

export const PAGES: ConsolePage[] = [
  { path: '/', label: 'Overview', element: <OverviewPage /> },
  { path: '/metrics', label: 'Metrics and anomalies', element: <MetricsPage />, needs: 'telemetry:read' },
  { path: '/events', label: 'Events', element: <EventsPage />, needs: 'telemetry:read' },
  { path: '/billing', label: 'Usage and billing', element: <BillingPage />, needs: 'usage:read' },
];
