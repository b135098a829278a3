// The page on a gateway that listens beyond loopback and asks for an API key: the key field is hidden until a run is
// refused (401, its sentence in the error region), the key typed there starts the run (sent as X-Api-Key on the POST,
// never on a GET), and it stays in the tab's sessionStorage across a reload, not in localStorage.
// Usage: node key.mjs <gateway URL> <key> <screenshot folder>
// Prints one JSON line; exits 1 on any failure.
import { finish, session } from './harness.mjs';

const [gateway, key, outDir] = process.argv.slice(2);
if (!gateway || !key || !outDir) {
  console.error('usage: node key.mjs <gateway URL> <key> <screenshot folder>');
  process.exit(2);
}
const origin = new URL(gateway).origin;
const { result, failures, check, browser, page, shoot } = await session(origin, outDir, {}, { viewport: { width: 1440, height: 900 } });
const sentKeys = [];
page.on('request', (request) => {
  const sent = request.headers()['x-api-key'];
  if (sent !== undefined) sentKeys.push(`${request.method()} ${new URL(request.url()).pathname}`);
});
// Only the refusals this script provokes: each 401 is also a console error of the page's fetch.
const expectedConsole = (text) => text.includes('401');
try {
  await page.goto(origin + '/');
  await page.waitForFunction(() => document.querySelectorAll('#strategy option').length > 1, null, { timeout: 15000 });
  check(await page.isHidden('#api-key-field'), 'the key field shows before the gateway asked for a key');

  await page.selectOption('#strategy', 'client-wrapper');
  await page.fill('#count', '1');
  const refused = page.waitForResponse((response) => response.url().endsWith('/api/runs') && response.request().method() === 'POST');
  await page.click('#start');
  check((await refused).status() === 401, 'the run without a key was not refused with 401');
  await page.waitForSelector('#api-key-field', { state: 'visible', timeout: 5000 });
  const error = await page.textContent('#errors');
  check(error.includes('No key was sent'), `the error region reads "${error}"`);
  await shoot('key-asked.png');

  await page.fill('#api-key', key);
  await page.dispatchEvent('#api-key', 'change');
  const accepted = page.waitForResponse((response) => response.url().endsWith('/api/runs') && response.request().method() === 'POST');
  await page.click('#start');
  check((await accepted).status() === 202, 'the run with the key was not accepted');
  check(sentKeys.includes('POST /api/runs'), 'the POST did not carry X-Api-Key');
  check(sentKeys.every((request) => !request.startsWith('GET ')), `a GET carried the key: ${sentKeys.join(', ')}`);
  check(await page.evaluate(() => localStorage.length) === 0, 'the key went to localStorage');

  await page.reload();
  await page.waitForFunction(() => document.querySelectorAll('#strategy option').length > 1, null, { timeout: 15000 });
  check(await page.isVisible('#api-key-field'), 'the key field is hidden after a reload though a key is kept');
  check(await page.inputValue('#api-key') === key, 'the key was not kept in the tab across a reload');
  await shoot('key-kept.png');
} catch (failure) {
  failures.push(`the script stopped: ${failure.message}`);
} finally {
  result.consoleErrors = result.consoleErrors.filter((text) => !expectedConsole(text));
  await browser.close();
}
finish(result);
