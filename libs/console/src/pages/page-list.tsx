import type { ReactElement } from 'react';
import { ImportsPage } from './imports-page.js';
import { NamespacesPage } from './namespaces-page.js';
import { OverviewPage } from './overview-page.js';
import { PlaygroundPage } from './playground-page.js';
import { TemplatesPage } from './templates-page.js';

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
  { path: '/playground', label: 'Playground', element: <PlaygroundPage /> },
  { path: '/namespaces', label: 'Namespaces', element: <NamespacesPage />, needs: 'telemetry:read' },
  { path: '/templates', label: 'Templates', element: <TemplatesPage /> },
  { path: '/imports', label: 'Imports', element: <ImportsPage /> },
];
