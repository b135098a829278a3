// Opens an HTML report from its file in headless Chromium, offline, in a window of the given width, and answers how wide
// the page and its first answer and request data are: a long line of a target's JSON must wrap within the page.
// Usage: node report-width.mjs <report file> <screenshot folder> [width=1024]
// Prints one JSON line; exits 1 on any failure.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checks, finish, launch } from './harness.mjs';

const [file, outDir, widthArg = '1024'] = process.argv.slice(2);
if (!file || !outDir) {
  console.error('usage: node report-width.mjs <report file> <screenshot folder> [width]');
  process.exit(2);
}
const url = pathToFileURL(resolve(file)).href;
const failures = [];
const screenshots = [];
const result = { ok: false, failures, screenshots };
const { check } = checks(failures);
mkdirSync(outDir, { recursive: true });
const browser = await launch();
try {
  const context = await browser.newContext({ viewport: { width: Number(widthArg), height: 768 }, offline: true });
  const page = await context.newPage();
  await page.goto(url);
  Object.assign(result, await page.evaluate(() => ({
    pageWidth: document.documentElement.scrollWidth,
    windowWidth: document.documentElement.clientWidth,
    blocks: [...document.querySelectorAll('pre.answer, pre.request')].map((pre) => ({ className: pre.className, right: Math.ceil(pre.getBoundingClientRect().right) })),
  })));
  check(result.blocks.length === 2, `the report has ${result.blocks.length} answer and request blocks, not 2`);
  check(result.pageWidth <= result.windowWidth, `the page is ${result.pageWidth} px wide in a ${result.windowWidth} px window`);
  for (const block of result.blocks) check(block.right <= result.windowWidth, `the ${block.className} block ends at ${block.right} px in a ${result.windowWidth} px window`);
  const path = join(outDir, 'report-long-answer.png');
  await page.screenshot({ path, fullPage: true });
  screenshots.push(path);
} catch (failure) {
  failures.push(`the script failed: ${failure.message}`);
} finally {
  await browser.close();
}
finish(result);
