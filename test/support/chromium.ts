// Debian's Chromium for the page's browser tests (docs/development.md): where it is, how it is started, and the one
// failure a missing Chromium gives (the install command, never a skip).
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
];

/** Throws with the install command when Chromium is not installed. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium is missing at ${CHROMIUM}: install it: apt-get install -y chromium`);
}
