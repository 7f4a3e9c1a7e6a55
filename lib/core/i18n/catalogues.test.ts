/**
 * The capture page's catalogues (messages/<locale>.json, docs/capture-page.md): one per language and nothing else;
 * each has exactly the English keys (a missing one would show English, an extra one is dead); every key is used by
 * the source and every key the source uses exists; each message is valid ICU with the English arguments and the
 * plural forms its language needs; and no translation is the English text unless listed as the same word.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import ts from 'typescript';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { LOCALES, type Locale } from './locales';
import { DYNAMIC_MESSAGE_KEYS } from '@/components/capture/message-keys';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const DIR = path.join(ROOT, 'messages');

type Tree = { [k: string]: string | Tree };
const flatten = (t: Tree, prefix = ''): Record<string, string> =>
  Object.fromEntries(
    Object.entries(t).flatMap(([k, v]) =>
      typeof v === 'string' ? [[prefix + k, v]] : Object.entries(flatten(v, `${prefix}${k}.`)),
    ),
  );
const catalogue = (l: Locale) => flatten(JSON.parse(fs.readFileSync(path.join(DIR, `${l}.json`), 'utf8')));
const en = catalogue('en');

/**
 * Translations that are rightly the English text: the same word in that language, a format list, a version label.
 * Anything else equal to the English text is an untranslated message (the page would show English).
 */
const SAME_AS_ENGLISH: Partial<Record<Locale, string[]>> = {
  de: ['steps.selfie'],
  es: [],
  'pt-BR': ['steps.selfie'],
  fr: ['steps.selfie', 'steps.document', 'consent.version'],
  it: ['steps.selfie'],
  nl: ['steps.selfie', 'steps.document'],
  pl: ['steps.selfie'],
  tr: ['steps.selfie'],
};

/** Every source file that translates: it imports next-intl. */
function translatingSources(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', '.next', '.git', '.cache', '.data', 'e2e', 'sdk'].includes(e.name)) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) {
        const text = fs.readFileSync(p, 'utf8');
        if (/from 'next-intl(\/server)?'/.test(text)) out.push({ file: path.relative(ROOT, p), text });
      }
    }
  };
  walk(ROOT);
  return out;
}

/** The keys the source asks for: `t('a.b')` as written, and `t(`family.${code}`)` as the family's listed members. */
function usedKeys() {
  const used = new Set<string>();
  const families = new Set<string>();
  for (const { text } of translatingSources()) {
    for (const m of text.matchAll(/\bt(?:\.rich|\.markup|\.has)?\(\s*(['"])([^'"]+)\1/g)) used.add(m[2]);
    for (const m of text.matchAll(/\bt(?:\.rich|\.markup|\.has)?\(\s*`([^`$]*)\$\{/g))
      families.add(m[1].replace(/\.$/, ''));
  }
  return { used, families };
}

describe('capture page catalogues', () => {
  it('messages/ holds one catalogue per language and nothing else', () => {
    expect(fs.readdirSync(DIR).sort()).toEqual(LOCALES.map((l) => `${l}.json`).sort());
  });

  it('every catalogue has exactly the English keys', () => {
    for (const l of LOCALES) {
      const keys = Object.keys(catalogue(l));
      expect({
        locale: l,
        missing: Object.keys(en).filter((k) => !keys.includes(k)),
        extra: keys.filter((k) => !(k in en)),
      }).toEqual({ locale: l, missing: [], extra: [] });
    }
  });

  it('every key is used by the page, and every key the page uses exists (scanning the source)', () => {
    const { used, families } = usedKeys();
    const unlisted = [...families].filter((f) => !(f in DYNAMIC_MESSAGE_KEYS));
    expect(
      unlisted,
      'keys built from a code must have their family listed in components/capture/message-keys.ts',
    ).toEqual([]);
    for (const f of families) for (const member of DYNAMIC_MESSAGE_KEYS[f]) used.add(`${f}.${member}`);
    expect(
      [...used].filter((k) => !(k in en)),
      'used but not in messages/en.json',
    ).toEqual([]);
    expect(
      Object.keys(en).filter((k) => !used.has(k)),
      'in messages/en.json but used nowhere',
    ).toEqual([]);
  });

  it('the scan sees the page: a key only the page uses is counted, a key nobody uses is not', () => {
    const { used } = usedKeys();
    expect(used.has('consent.accept')).toBe(true);
    expect(used.has('page.metaTitle')).toBe(true); // the server side (app/verify/[token]/page.tsx)
    expect(used.has('no.such.key')).toBe(false);
  });

  it('each message is valid ICU with the English arguments and every plural form its language needs', () => {
    const argsOf = (els: MessageFormatElement[], out = new Set<string>(), plurals: { options: string[] }[] = []) => {
      for (const e of els) {
        if (e.type === TYPE.argument || e.type === TYPE.number) out.add(e.value);
        if (e.type === TYPE.plural || e.type === TYPE.select) {
          out.add(e.value);
          if (e.type === TYPE.plural) plurals.push({ options: Object.keys(e.options) });
          for (const o of Object.values(e.options)) argsOf(o.value, out, plurals);
        }
        if (e.type === TYPE.tag) argsOf(e.children, out, plurals);
      }
      return { args: out, plurals };
    };
    for (const l of LOCALES) {
      const needed = new Set<string>();
      const rules = new Intl.PluralRules(l);
      for (let i = 0; i <= 1000; i++) needed.add(rules.select(i));
      for (const [k, v] of Object.entries(catalogue(l))) {
        const { args, plurals } = argsOf(parse(v));
        expect({ l, k, args: [...args].sort() }).toEqual({ l, k, args: [...argsOf(parse(en[k])).args].sort() });
        for (const p of plurals)
          expect({ l, k, missing: [...needed].filter((c) => !p.options.includes(c)) }).toEqual({ l, k, missing: [] });
      }
    }
  });

  it('no translation is the English text, except the words listed as the same in that language', () => {
    for (const l of LOCALES.filter((x) => x !== 'en')) {
      const c = catalogue(l);
      const same = Object.keys(en).filter((k) => c[k] === en[k]);
      expect({ l, same }).toEqual({ l, same: SAME_AS_ENGLISH[l] ?? [] });
    }
  });

  it('the capture page writes no words of its own: every text it shows is a message of the catalogues', () => {
    expect(
      fs.existsSync(path.join(ROOT, 'components/capture/messages.ts')),
      'the hand-written dictionary is gone: add messages to messages/*.json',
    ).toBe(false);
    const files = [
      ...fs
        .readdirSync(path.join(ROOT, 'components/capture'))
        .filter((f) => f.endsWith('.tsx'))
        .map((f) => `components/capture/${f}`),
      'app/verify/[token]/page.tsx',
    ];
    const found: string[] = [];
    for (const file of files) {
      const sf = ts.createSourceFile(
        file,
        fs.readFileSync(path.join(ROOT, file), 'utf8'),
        ts.ScriptTarget.Latest,
        true,
        ts.ScriptKind.TSX,
      );
      const visit = (n: ts.Node) => {
        if (ts.isJsxText(n) && /\p{L}/u.test(n.text)) found.push(`${file}: ${n.text.trim()}`);
        if (
          ts.isJsxAttribute(n) &&
          ['aria-label', 'alt', 'title', 'placeholder', 'label'].includes(n.name.getText()) &&
          n.initializer &&
          ts.isStringLiteral(n.initializer) &&
          /\p{L}/u.test(n.initializer.text)
        ) {
          found.push(`${file}: ${n.name.getText()}="${n.initializer.text}"`);
        }
        ts.forEachChild(n, visit);
      };
      visit(sf);
    }
    expect(found).toEqual([]);
  });
});
