// live-page.mjs — what the dashboard tests of the live view share (liveview.mjs, agentlive.mjs,
// rerecord.mjs): Playwright from node/, ok/FAIL lines counted, a page's readiness, the colour of the
// live frame at a point, a click on the frame at a point (fractions of its size).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, 'node', 'package.json'));
export const { chromium } = require('playwright-core');

let failed = 0;
export const check = (name, ok, got) => {
  console.log(ok ? `ok   ${name}` : `FAIL ${name}: ${got}`);
  if (!ok) failed++;
};
export const fails = () => failed;
export const ready = (page, name) =>
  page.waitForSelector(`#view[data-page="${name}"][data-state="ready"]`, { timeout: 30000 });
export const data = (page, k) => page.evaluate((key) => document.getElementById('view').dataset[key], k);
// the colour of the frame at (fx, fy), fractions of its size
export const pixel = (page, fx, fy) => page.evaluate(([x, y]) => {
  const img = document.getElementById('live-frame');
  if (!img || !img.naturalWidth) return null;
  const c = document.createElement('canvas');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  return Array.from(g.getImageData(Math.floor(x * c.width), Math.floor(y * c.height), 1, 1).data.slice(0, 3));
}, [fx, fy]);
// wait (bounded) until the frame's colour at (fx, fy) satisfies want
export async function waitPixel(page, fx, fy, want, ms = 60000) {
  const end = Date.now() + ms;
  let got = null;
  while (Date.now() < end) {
    got = await pixel(page, fx, fy);
    if (got && want(got)) return got;
    await page.waitForTimeout(200);
  }
  throw new Error(`frame colour at ${fx},${fy}: ${JSON.stringify(got)}`);
}
export const blue = ([r, g, b]) => b > 150 && r < 80 && g < 80;
export const red = ([r, g, b]) => r > 150 && g < 80 && b < 80;
export const green = ([r, g, b]) => g > 80 && g > r + 50 && g > b + 50;
export const clickFrame = async (page, fx, fy) => {
  const box = await page.locator('#live-frame').boundingBox();
  await page.locator('#live-frame').click({ position: { x: fx * box.width, y: fy * box.height } });
};
// a dashboard page of BASE in a fresh context of browser, the token stored as the dashboard keeps it;
// its uncaught errors collected in errors
export async function dashboard(browser, base, token) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.setViewportSize({ width: 1300, height: 900 });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}/`);
  await page.evaluate((t) => localStorage.setItem('keynode.token', t), token);
  return { ctx, page, errors };
}
