// What every browser script shares: Debian's Chromium through playwright-core (no browser is downloaded), and the
// answer as one JSON line on stdout.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
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

/** check(condition, message) and same(actual, expected, what) note each failure in failures; same compares as JSON. */
export function checks(failures) {
  const check = (condition, message) => { if (!condition) failures.push(message); };
  const same = (actual, expected, what) =>
    check(JSON.stringify(actual) === JSON.stringify(expected), `${what}: the page shows ${JSON.stringify(actual)}, the API says ${JSON.stringify(expected)}`);
  return { check, same };
}

/** A GET of the gateway's API from the script itself (not the page), failing with the answer's status and text. */
export const apiOf = (origin) => async (path) => {
  const response = await fetch(origin + path);
  if (!response.ok) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
  return response.json();
};

/** Notes every request that leaves origin (in the whole context) and every console error and uncaught error of the page. */
export function watch(context, page, origin, { consoleErrors, foreignRequests }) {
  context.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith('data:') && new URL(url).origin !== origin) foreignRequests.push(url);
  });
  page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()); });
  page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
}

/**
 * What a script collects, and the page it drives: the failure lists (in result), check and same, a page of a new
 * context of the launched browser, watched, and shoot(name) for a full-page screenshot in outDir.
 */
export async function session(origin, outDir, fields, contextOptions) {
  const failures = [];
  const consoleErrors = [];
  const foreignRequests = [];
  const screenshots = [];
  const result = { ok: false, ...fields, failures, consoleErrors, foreignRequests, screenshots };
  mkdirSync(outDir, { recursive: true });
  const browser = await launch();
  const context = await browser.newContext(contextOptions);
  const page = await context.newPage();
  watch(context, page, origin, { consoleErrors, foreignRequests });
  const shoot = async (name) => {
    const path = join(outDir, name);
    await page.screenshot({ path, fullPage: true });
    screenshots.push(path);
  };
  return { result, failures, ...checks(failures), browser, context, page, shoot };
}
