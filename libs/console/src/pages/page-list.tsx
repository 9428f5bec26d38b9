import type { ReactElement } from 'react';
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

export const PAGES: ConsolePage[] = [{ path: '/', label: 'Overview', element: <OverviewPage /> }];
