/**
 * The capture page's languages in the browser tests: each catalogue as the page reads it (messages/<locale>.json,
 * through next-intl's own translator), the WCAG 2.2 AA scan, the 360 px overflow check, and the check that a
 * translated page shows no English.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createTranslator } from 'next-intl';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { DEFAULT_LOCALE, type Locale } from '../lib/core/i18n/locales';
import type messages from '../messages/en.json';

type Tree = { [k: string]: string | Tree };
const read = (l: Locale) =>
  JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, `../messages/${l}.json`), 'utf8')) as typeof messages;
const flatten = (t: Tree, prefix = ''): Record<string, string> =>
  Object.fromEntries(
    Object.entries(t).flatMap(([k, v]) =>
      typeof v === 'string' ? [[prefix + k, v]] : Object.entries(flatten(v, `${prefix}${k}.`)),
    ),
  );

/** The page's words in `locale`, formatted as the page formats them. */
export const translator = (locale: Locale) => createTranslator({ locale, messages: read(locale) });
export const catalogue = (locale: Locale) => flatten(read(locale) as unknown as Tree);

/** Every WCAG 2.0, 2.1 and 2.2 A and AA rule of axe-core, whatever its impact: each violation, readable. */
export async function wcagViolations(page: Page) {
  const r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
  return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * Elements whose content is larger than their box (scroll size over client size), other than scrolling boxes and
 * what has no box of its own (inline text, replaced elements, visually hidden labels), and a page wider than the
 * window. Text that runs out of its box on a narrow phone shows up here.
 */
export function overflowing(page: Page) {
  return page.evaluate(() => {
    const skip = new Set([
      'VIDEO',
      'CANVAS',
      'IMG',
      'SVG',
      'PATH',
      'CIRCLE',
      'SELECT',
      'OPTION',
      'INPUT',
      'SCRIPT',
      'STYLE',
      'NOSCRIPT',
      'BR',
    ]);
    const out: string[] = [];
    for (const el of Array.from(document.body.querySelectorAll<HTMLElement>('*'))) {
      if (skip.has(el.tagName.toUpperCase())) continue;
      const cs = getComputedStyle(el);
      if (
        cs.display === 'inline' ||
        cs.display === 'none' ||
        cs.display === 'contents' ||
        el.clientWidth <= 1 ||
        el.closest('[aria-hidden="true"]')
      )
        continue;
      const scrolls = (o: string) => o === 'auto' || o === 'scroll';
      const what = `${el.tagName.toLowerCase()}${el.dataset.testid ? `[data-testid=${el.dataset.testid}]` : ''} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
      if (!scrolls(cs.overflowX) && el.scrollWidth > el.clientWidth + 1)
        out.push(`${what}: width ${el.scrollWidth} > ${el.clientWidth}`);
      if (!scrolls(cs.overflowY) && el.scrollHeight > el.clientHeight + 1)
        out.push(`${what}: height ${el.scrollHeight} > ${el.clientHeight}`);
    }
    if (document.documentElement.scrollWidth > window.innerWidth)
      out.push(`page: width ${document.documentElement.scrollWidth} > ${window.innerWidth}`);
    return out;
  });
}

/** Every text the page shows or announces: visible text, and accessible names given by attributes. */
async function pageWords(page: Page) {
  return page.evaluate(() => {
    const attrs = Array.from(document.querySelectorAll('[aria-label], [alt], [title]')).flatMap((e) =>
      ['aria-label', 'alt', 'title'].map((a) => e.getAttribute(a) ?? ''),
    );
    return [document.title, document.body.innerText, ...attrs].join('\n');
  });
}

/**
 * English messages (with no arguments, whole words) that a page in `locale` shows: none may appear, except where the
 * language's word is the English one.
 */
export async function englishOn(page: Page, locale: Locale) {
  if (locale === DEFAULT_LOCALE) return [];
  const en = catalogue(DEFAULT_LOCALE);
  const mine = catalogue(locale);
  const words = await pageWords(page);
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return Object.entries(en)
    .filter(([k, v]) => !v.includes('{') && v !== mine[k] && !Object.values(mine).includes(v))
    .filter(([, v]) => new RegExp(`(^|[^\\p{L}])${escape(v)}($|[^\\p{L}])`, 'u').test(words))
    .map(([k, v]) => `${k}: ${v}`);
}

/** The font the platform draws a node's text with (Chromium's CSS.getPlatformFontsForNode). */
export async function platformFonts(page: Page, selector: string) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  const { root } = await cdp.send('DOM.getDocument', { depth: -1 });
  const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
  const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
  await cdp.detach();
  return fonts.map((f) => f.familyName);
}

/** Whether an element is drawn flipped left to right (Tailwind's -scale-x-100 sets `scale`; a transform may too). */
export function mirrored(el: import('@playwright/test').Locator) {
  return el.evaluate((e) => {
    const cs = getComputedStyle(e);
    const sx = cs.scale === 'none' ? 1 : Number.parseFloat(cs.scale);
    const tx = cs.transform === 'none' ? 1 : new DOMMatrix(cs.transform).a;
    return sx * tx < 0;
  });
}

/**
 * The side of its box an element's text starts from: its last line (a short line, where the text wraps) touching
 * the content box's left or right edge. Left to right text starts at the left, right to left at the right.
 */
export function textStartSide(el: import('@playwright/test').Locator) {
  return el.evaluate((e) => {
    const range = document.createRange();
    range.selectNodeContents(e);
    const lines = Array.from(range.getClientRects()).filter((r) => r.width > 0);
    const last = lines.reduce((a, r) => (r.bottom > a.bottom + 1 ? r : a), lines[0]);
    const box = e.getBoundingClientRect();
    const cs = getComputedStyle(e);
    const left = box.left + Number.parseFloat(cs.borderLeftWidth) + Number.parseFloat(cs.paddingLeft);
    const right = box.right - Number.parseFloat(cs.borderRightWidth) - Number.parseFloat(cs.paddingRight);
    const atLeft = Math.abs(last.left - left) < 2;
    const atRight = Math.abs(last.right - right) < 2;
    return atLeft && atRight ? 'both' : atLeft ? 'left' : atRight ? 'right' : 'neither';
  });
}
