// What every browser script shares: Debian's Chromium through playwright-core (no browser is downloaded), and the
// answer as one JSON line on stdout.
import { chromium } from 'playwright-core';

export const launch = () => chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});

/** Prints the result as one JSON line and exits: 0 when no check failed, 1 otherwise. */
export function finish(result) {
  result.ok = result.failures.length === 0;
  console.log(JSON.stringify(result));
  process.exit(result.ok ? 0 : 1);
}
