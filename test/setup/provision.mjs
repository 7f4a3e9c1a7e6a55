// @ts-check
/**
 * What the tests need from outside npm, provisioned by the tests themselves: `npm test` runs this first
 * (its `pretest`), and vitest's and Playwright's global setups run the parts they need, so one test file
 * run on its own works too. Idempotent; when everything is present it only checks files (milliseconds).
 *
 * - fonts:    OCR-B (the MRZ typeface) and DejaVu, and for the capture page's languages Noto Sans Arabic, Hebrew
 *             and Devanagari and IPA Gothic (Japanese), unpacked from Debian's packages into .cache/fonts and
 *             used through a fontconfig file of their own (FONTCONFIG_FILE): nothing is installed.
 * - photos:   real face photos from Debian's packages, unpacked into .cache/photos (nothing installed):
 *             astronaut.png (python3-skimage, NASA, public domain), grace_hopper.jpg (python-matplotlib-data).
 * - chromium: Debian's Chromium, for Playwright (its own browser download is unreachable): apt, as root.
 * - pg15:     Debian's PostgreSQL 15 server with pgvector built from Debian's source package (the source is
 *             cached in .cache/pgvector): apt and make install, as root.
 *
 * A step that needs root, run by another user, stops everything before any test with one message that
 * names the command to run.
 *
 * CLI: node test/setup/provision.mjs [fonts] [photos] [chromium] [pg15]   (default: all)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CACHE = path.join(ROOT, '.cache');
export const FONTS_DIR = path.join(CACHE, 'fonts');
export const FONTCONFIG_FILE = path.join(FONTS_DIR, 'fonts.conf');
/** Chromium's fonts in the browser tests: what a phone has for the capture page's scripts. */
export const BROWSER_FONTCONFIG_FILE = path.join(FONTS_DIR, 'browser-fonts.conf');
export const PHOTOS_DIR = path.join(CACHE, 'photos');
export const PG15_BIN = '/usr/lib/postgresql/15/bin';
const VECTOR_CONTROL = '/usr/share/postgresql/15/extension/vector.control';

/** @typedef {'fonts' | 'photos' | 'chromium' | 'pg15'} Need */
/** @type {Need[]} */
export const ALL = ['fonts', 'photos', 'chromium', 'pg15'];

export class ProvisionError extends Error {}

const isRoot = () => process.getuid?.() === 0;
const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
/** @param {string} cmd @param {string[]} args @param {string} [cwd] */
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, env: aptEnv, stdio: ['ignore', 'ignore', 'pipe'] });

// Wait for another apt or dpkg run (a second test run, unattended upgrades) instead of failing at once.
const APT_LOCK_WAIT = ['-o', 'DPkg::Lock::Timeout=600'];
let listsUpdated = false;
function aptUpdate() {
  if (listsUpdated) return;
  run('apt-get', [...APT_LOCK_WAIT, 'update', '-qq']);
  listsUpdated = true;
}

/** Downloads Debian packages (no installation) and unpacks them into a temporary directory; returns it. */
function unpackDebs(/** @type {string[]} */ packages) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-deb-'));
  // apt's _apt user cannot write into a root-owned mkdtemp directory: let it, as apt-get download expects.
  fs.chmodSync(tmp, 0o777);
  try {
    run('apt-get', ['download', '-qq', ...packages], tmp);
  } catch (e) {
    // Stale or missing package lists: refresh them (root only), then once more.
    if (!isRoot()) {
      fs.rmSync(tmp, { recursive: true, force: true });
      throw new ProvisionError(
        `apt-get could not download ${packages.join(', ')}: ${stderrOf(e)}\nRefresh the package lists once, then run the tests again:\n  sudo apt-get update`,
      );
    }
    aptUpdate();
    run('apt-get', ['download', '-qq', ...packages], tmp);
  }
  for (const deb of fs.readdirSync(tmp).filter((f) => f.endsWith('.deb'))) run('dpkg-deb', ['-x', deb, 'x'], tmp);
  return tmp;
}

const stderrOf = (/** @type {unknown} */ e) =>
  String(/** @type {{ stderr?: Buffer }} */ (e).stderr ?? e)
    .trim()
    .split('\n')
    .pop();

/** Every file under `dir` whose name matches. */
function findFiles(/** @type {string} */ dir, /** @type {RegExp} */ re) {
  /** @type {string[]} */
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...findFiles(p, re));
    else if (e.isFile() && re.test(e.name)) out.push(p);
  }
  return out;
}

/**
 * Two sets of fonts, each with its own fontconfig file listing only it. The synthetic documents (rendered by sharp
 * in the tests' own processes: FONTCONFIG_FILE) use OCR-B and DejaVu. The browser (Chromium: BROWSER_FONTCONFIG_FILE)
 * gets what a phone has for the capture page's scripts (docs/capture-page.md "Fonts"): Noto Sans for Latin, Greek
 * and Cyrillic, Noto Sans Arabic, Hebrew and Devanagari, IPA Gothic for Japanese; each script then falls back to its
 * own font, as on a phone (DejaVu, which has Arabic and Hebrew letters, would take their place).
 * @type {{ pkg: string, set: 'documents' | 'browser', files: string[] | 'all', required: string[] }[]}
 */
const FONT_PACKAGES = [
  { pkg: 'fonts-ocr-b', set: 'documents', files: 'all', required: ['OCRB.otf'] },
  {
    pkg: 'fonts-dejavu-core',
    set: 'documents',
    files: 'all',
    required: ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSansMono.ttf'],
  },
  {
    pkg: 'fonts-noto-core',
    set: 'browser',
    files: [
      'NotoSans-Regular.ttf',
      'NotoSans-Bold.ttf',
      'NotoSansArabic-Regular.ttf',
      'NotoSansArabic-Bold.ttf',
      'NotoSansHebrew-Regular.ttf',
      'NotoSansHebrew-Bold.ttf',
      'NotoSansDevanagari-Regular.ttf',
      'NotoSansDevanagari-Bold.ttf',
    ],
    required: [
      'NotoSans-Regular.ttf',
      'NotoSansArabic-Regular.ttf',
      'NotoSansHebrew-Regular.ttf',
      'NotoSansDevanagari-Regular.ttf',
    ],
  },
  { pkg: 'fonts-ipafont-gothic', set: 'browser', files: ['ipag.ttf'], required: ['ipag.ttf'] },
];
const FONT_SETS = {
  documents: {
    dir: path.join(FONTS_DIR, 'files'),
    conf: FONTCONFIG_FILE,
    generic: { 'sans-serif': 'DejaVu Sans', serif: 'DejaVu Serif', monospace: 'DejaVu Sans Mono' },
  },
  browser: {
    dir: path.join(FONTS_DIR, 'browser'),
    conf: BROWSER_FONTCONFIG_FILE,
    generic: { 'sans-serif': 'Noto Sans', serif: 'Noto Sans', monospace: 'Noto Sans' },
  },
};
/** The font each script of the capture page is drawn with in Chromium (checked by the browser tests). */
export const SCRIPT_FONTS = {
  ar: 'Noto Sans Arabic',
  he: 'Noto Sans Hebrew',
  hi: 'Noto Sans Devanagari',
  ja: 'IPAGothic',
};

const fontFile = (/** @type {typeof FONT_PACKAGES[number]} */ p, /** @type {string} */ f) =>
  path.join(FONT_SETS[p.set].dir, f);

function fontsPresent() {
  // A conf written for another checkout (a .cache copied or moved) names that checkout's folder: written again.
  return (
    Object.values(FONT_SETS).every(
      (s) => fs.existsSync(s.conf) && fs.readFileSync(s.conf, 'utf8').includes(`<dir>${s.dir}</dir>`),
    ) && FONT_PACKAGES.every((p) => p.required.every((f) => fs.existsSync(fontFile(p, f))))
  );
}

/** Debian's font packages (FONT_PACKAGES), unpacked into .cache/fonts/<set>: nothing is installed. */
function provisionFonts() {
  if (fontsPresent()) return;
  for (const p of FONT_PACKAGES) {
    if (p.required.every((f) => fs.existsSync(fontFile(p, f)))) continue;
    fs.mkdirSync(FONT_SETS[p.set].dir, { recursive: true });
    const tmp = unpackDebs([p.pkg]);
    try {
      for (const f of findFiles(path.join(tmp, 'x'), /\.(otf|ttf)$/)) {
        if (p.files === 'all' || p.files.includes(path.basename(f))) fs.copyFileSync(f, fontFile(p, path.basename(f)));
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  for (const [name, set] of Object.entries(FONT_SETS)) {
    const generic = Object.entries(set.generic)
      .map(
        ([alias, family]) => `  <alias><family>${alias}</family><prefer><family>${family}</family></prefer></alias>\n`,
      )
      .join('');
    fs.writeFileSync(
      set.conf,
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n<!-- Written by test/setup/provision.mjs: the ${name} fonts of the tests, only them. -->\n<fontconfig>\n  <dir>${set.dir}</dir>\n  <cachedir>${path.join(FONTS_DIR, `cache-${name}`)}</cachedir>\n${generic}</fontconfig>\n`,
    );
  }
  const missing = FONT_PACKAGES.flatMap((p) => p.required.filter((f) => !fs.existsSync(fontFile(p, f))));
  if (missing.length)
    throw new ProvisionError(`fonts missing after unpacking Debian's packages: ${missing.join(', ')}`);
}

const PHOTOS = [
  { file: 'astronaut.png', pkg: 'python3-skimage' },
  { file: 'grace_hopper.jpg', pkg: 'python-matplotlib-data' },
];

function provisionPhotos() {
  const missing = PHOTOS.filter((p) => !fs.existsSync(path.join(PHOTOS_DIR, p.file)));
  if (missing.length === 0) return;
  const tmp = unpackDebs(missing.map((p) => p.pkg));
  try {
    fs.mkdirSync(PHOTOS_DIR, { recursive: true });
    for (const p of missing) {
      const [found] = findFiles(path.join(tmp, 'x'), new RegExp(`^${p.file.replace('.', '\\.')}$`));
      if (!found) throw new ProvisionError(`${p.file} not found in Debian's ${p.pkg}`);
      fs.copyFileSync(found, path.join(PHOTOS_DIR, p.file));
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export const chromiumPath = () => process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** @returns {string | null} the command a non-root user must run, or null when done */
function provisionChromium() {
  if (fs.existsSync(chromiumPath())) return null;
  if (process.env.CHROMIUM_PATH) throw new ProvisionError(`CHROMIUM_PATH=${process.env.CHROMIUM_PATH} does not exist.`);
  if (!isRoot()) return 'sudo apt-get update && sudo apt-get install -y chromium';
  aptUpdate();
  run('apt-get', [...APT_LOCK_WAIT, 'install', '-y', '-qq', 'chromium']);
  return null;
}

export const pg15Present = () => fs.existsSync(path.join(PG15_BIN, 'postgres')) && fs.existsSync(VECTOR_CONTROL);

/** @returns {string | null} */
function provisionPg15() {
  if (pg15Present()) return null;
  const script = path.join(ROOT, 'test/setup/install-postgres.sh');
  if (!isRoot()) return `sudo bash ${path.relative(process.cwd(), script) || script}`;
  execFileSync('bash', [script], { env: aptEnv, stdio: ['ignore', 'inherit', 'inherit'] });
  return null;
}

/**
 * Provisions `needs`. Throws ProvisionError with the exact commands to run when a step needs root and
 * this user is not root (after doing every step it can).
 * @param {Need[]} needs
 */
export function provision(needs = ALL) {
  if (needs.includes('fonts')) provisionFonts();
  if (needs.includes('photos')) provisionPhotos();
  /** @type {string[]} */
  const asRoot = [];
  if (needs.includes('chromium')) asRoot.push(...[provisionChromium()].filter((c) => c !== null));
  if (needs.includes('pg15')) asRoot.push(...[provisionPg15()].filter((c) => c !== null));
  if (asRoot.length) {
    throw new ProvisionError(
      `The tests need system packages that only root can install (Chromium for the browser tests, PostgreSQL 15 with pgvector for the concurrency tests). Run once:\n${asRoot.map((c) => `  ${c}`).join('\n')}\nthen run the tests again.`,
    );
  }
  // Every process that renders test documents (vitest and Playwright workers inherit this) uses these fonts.
  if (needs.includes('fonts')) process.env.FONTCONFIG_FILE = FONTCONFIG_FILE;
}

/** For the test setups: provisions `needs`, or prints the one message and exits before any test runs. */
export function provisionOrExit(/** @type {Need[]} */ needs = ALL) {
  try {
    provision(needs);
  } catch (e) {
    if (!(e instanceof ProvisionError)) throw e;
    console.error(`\n${e.message}\n`);
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const asked = /** @type {Need[]} */ (process.argv.slice(2));
  const bad = asked.filter((a) => !ALL.includes(a));
  if (bad.length) {
    console.error(`provision: unknown step ${bad.join(', ')} (steps: ${ALL.join(', ')})`);
    process.exit(2);
  }
  const t0 = Date.now();
  provisionOrExit(asked.length ? asked : ALL);
  const ms = Date.now() - t0;
  if (ms > 1000) console.log(`test dependencies ready in .cache/ and the system (${(ms / 1000).toFixed(0)} s)`);
}
