// The page on a gateway that listens beyond loopback and asks for an API key. The page itself loads without one; its first
// read is refused (401), which shows the key field and the refusal's sentence. A wrong key is refused in its own words;
// once the right one is typed, the page loads what it could not (strategies, targets, lessons, history) without a reload.
// A run started there is followed live through its event stream, read with fetch() and the key as a header (no
// EventSource), to its final view; its report and a CSV export download as files. Every request after the key carried
// it as X-Api-Key, none carried it in its URL, and it stays in the tab's sessionStorage across a reload, not in localStorage.
// Usage: node key.mjs <gateway URL> <key> <screenshot folder>
// Prints one JSON line; exits 1 on any failure.
import { readFile } from 'node:fs/promises';
import { finish, session } from './harness.mjs';

const [gateway, key, outDir] = process.argv.slice(2);
if (!gateway || !key || !outDir) {
  console.error('usage: node key.mjs <gateway URL> <key> <screenshot folder>');
  process.exit(2);
}
const origin = new URL(gateway).origin;
const { result, failures, check, browser, context, page, shoot } = await session(origin, outDir, {}, { viewport: { width: 1440, height: 900 } });
const requests = [];
context.on('request', (request) => requests.push({
  method: request.method(), url: request.url(), type: request.resourceType(), key: request.headers()['x-api-key'],
}));
const refusals = [];
page.on('response', (response) => { if (response.status() === 401) refusals.push(new URL(response.url()).pathname); });
// Only the refusals this script provokes: each 401 is also a console error of the page's fetch.
const expectedConsole = (text) => text.includes('401');
const loaded = () => page.waitForFunction(() => document.querySelectorAll('#strategy option').length > 1
  && document.querySelectorAll('#target option').length > 0
  && document.querySelectorAll('#lesson-cards article.lesson').length > 0
  && document.querySelectorAll('#history-table tbody tr').length > 0, null, { timeout: 20000 });
const errorText = () => page.$eval('#errors', (region) => (region.hidden ? '' : region.textContent));

try {
  await page.goto(origin + '/');
  await page.waitForSelector('#api-key-field', { state: 'visible', timeout: 15000 });
  await page.waitForFunction(() => document.querySelector('#errors').textContent.includes('No key was sent'), null, { timeout: 5000 })
    .catch(() => failures.push('the error region does not say that no key was sent'));
  check(await page.$$eval('#strategy option', (options) => options.length) <= 1, 'the strategies loaded without a key');
  check(await page.isDisabled('#start'), 'Start can be pressed before the page has loaded');
  check(refusals.every((path) => path.startsWith('/api/')), `something but the API was refused: ${refusals.join(', ')}`);
  await shoot('key-asked.png');

  await page.fill('#api-key', 'not-the-key-but-long-enough');
  await page.dispatchEvent('#api-key', 'change');
  await page.waitForFunction(() => document.querySelector('#errors').textContent.includes('was not accepted'), null, { timeout: 10000 })
    .catch(() => failures.push('a wrong key was not refused in its own words'));

  const typedAt = requests.length;
  await page.fill('#api-key', key);
  await page.dispatchEvent('#api-key', 'change');
  await loaded();
  check(await errorText() === '', `the refusal still shows after the key was typed: ${await errorText()}`);
  check(!(await page.isDisabled('#start')), 'Start is off after the page loaded');

  await page.selectOption('#strategy', 'client-wrapper');
  await page.fill('#count', '1000');
  await page.fill('#delay', '2');
  const started = page.waitForResponse((response) => response.url().endsWith('/api/runs') && response.request().method() === 'POST');
  await page.click('#start');
  const run = await (await started).json();
  check((await started).status() === 202, 'the run with the key was not accepted');
  await page.waitForFunction(() => /measuring, [\d,]+ of 1,000 calls/.test(document.getElementById('status').textContent), null, { timeout: 20000 })
    .catch(() => failures.push('the run\'s progress never showed while it ran'));
  await page.waitForFunction(() => document.body.dataset.state !== 'running', null, { timeout: 60000 });
  const status = await page.textContent('#status');
  check(await page.getAttribute('body', 'data-state') === 'done' && status.includes('completed at'), `the run did not end in its final view: ${status}`);
  const streams = requests.filter((request) => new URL(request.url).pathname === `/api/runs/${run.id}/events`);
  check(streams.length > 0 && streams.every((request) => request.type === 'fetch' && request.key === key),
    `the run was not followed by fetch() with the key: ${JSON.stringify(streams.map(({ type, key: sent }) => ({ type, keyed: sent === key })))}`);
  check(!requests.some((request) => request.type === 'eventsource'), 'the page opened an EventSource');

  const [report] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), page.click('#report-link')]);
  check(report.suggestedFilename() === `report-client-wrapper-${run.id}.html`, `the report downloads as ${report.suggestedFilename()}`);
  const html = await readFile(await report.path(), 'utf8');
  check(html.startsWith('<!doctype html>') && html.includes('client-wrapper'), 'the downloaded report is not the run\'s HTML report');
  await page.waitForSelector(`#history-table tbody tr:first-child a[href="/api/runs/${run.id}/export?format=csv"]`, { timeout: 10000 });
  const [csv] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), page.click('#history-table tbody tr:first-child a >> nth=0')]);
  check(csv.suggestedFilename() === `run-client-wrapper-${run.id}.csv`, `the CSV export downloads as ${csv.suggestedFilename()}`);
  check((await readFile(await csv.path(), 'utf8')).startsWith('section,figure,value'), 'the downloaded CSV is not the run\'s export');

  const unkeyed = requests.slice(typedAt).filter((request) => new URL(request.url).pathname.startsWith('/api/') && request.key !== key);
  check(unkeyed.length === 0, `requests to the API after the key was typed went without it: ${unkeyed.map((request) => `${request.method} ${request.url}`).join(', ')}`);
  check(await page.evaluate(() => localStorage.length) === 0, 'the key went to localStorage');

  const refusedBefore = refusals.length;
  await page.reload();
  await loaded();
  check(refusals.length === refusedBefore, `after a reload the page was refused again: ${refusals.slice(refusedBefore).join(', ')}`);
  check(await page.isVisible('#api-key-field'), 'the key field is hidden after a reload though a key is kept');
  check(await page.inputValue('#api-key') === key, 'the key was not kept in the tab across a reload');
  await shoot('key-kept.png');
} catch (failure) {
  failures.push(`the script stopped: ${failure.message}`);
} finally {
  const inUrls = requests.filter((request) => request.url.includes(key) || request.url.includes(encodeURIComponent(key)));
  check(inUrls.length === 0, `the key went in a URL: ${inUrls.map((request) => request.url).join(', ')}`);
  result.requests = requests.length;
  result.consoleErrors = result.consoleErrors.filter((text) => !expectedConsole(text));
  await browser.close();
}
finish(result);
