/**
 * The route template of a request path, for metrics labels and span names: `/v1/verifications/{id}`, never the
 * path as sent (an id would make a series per verification, a capture token would leak a secret). The templates
 * are the app router's own files (app/ page and route files, route groups dropped), matched with its
 * precedence: a static segment before a dynamic one before a catch-all.
 */
import fs from 'node:fs';
import path from 'node:path';

type Segment = { kind: 'static'; text: string } | { kind: 'dynamic' | 'catchAll' | 'optionalCatchAll'; name: string };
export type RouteTemplate = { template: string; segments: Segment[]; file: string };
export type RouteMatch = { template: string; file: string; params: Record<string, string | string[]> };

const RANK = { static: 0, dynamic: 1, catchAll: 2, optionalCatchAll: 3 } as const;
const ENDPOINT = /^(page|route)\.(tsx?|jsx?)$/;

function parseSegment(s: string): Segment {
  let m = /^\[\[\.\.\.(\w+)\]\]$/.exec(s);
  if (m) return { kind: 'optionalCatchAll', name: m[1] };
  m = /^\[\.\.\.(\w+)\]$/.exec(s);
  if (m) return { kind: 'catchAll', name: m[1] };
  m = /^\[(\w+)\]$/.exec(s);
  if (m) return { kind: 'dynamic', name: m[1] };
  return { kind: 'static', text: s };
}

const show = (s: Segment) => (s.kind === 'static' ? s.text : s.kind === 'dynamic' ? `{${s.name}}` : `{...${s.name}}`);

/** The route templates under an app directory: every page and route file, route groups (`(area)`) dropped. */
export function scanRoutes(appDir: string): RouteTemplate[] {
  const out: RouteTemplate[] = [];
  const walk = (dir: string, parts: string[]) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) {
        // Private folders (`_x`) and parallel-route slots (`@x`) are not URL segments of their own.
        if (e.name.startsWith('_') || e.name.startsWith('@')) continue;
        walk(path.join(dir, e.name), /^\(.*\)$/.test(e.name) ? parts : [...parts, e.name]);
      } else if (ENDPOINT.test(e.name)) {
        const segments = parts.map(parseSegment);
        out.push({ template: '/' + segments.map(show).join('/'), segments, file: path.join(dir, e.name) });
      }
    }
  };
  walk(appDir, []);
  return sortRoutes(out);
}

/** Most specific first: at the first segment where two differ, static before dynamic before catch-all. */
function sortRoutes(routes: RouteTemplate[]) {
  return routes.sort((a, b) => {
    for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
      const x = a.segments[i];
      const y = b.segments[i];
      if (!x || !y) return x ? -1 : 1;
      const d = RANK[x.kind] - RANK[y.kind];
      if (d !== 0) return d;
    }
    return 0;
  });
}

function matchOne(r: RouteTemplate, parts: string[]): Record<string, string | string[]> | null {
  const params: Record<string, string | string[]> = {};
  for (let i = 0; i < r.segments.length; i++) {
    const s = r.segments[i];
    if (s.kind === 'catchAll' || s.kind === 'optionalCatchAll') {
      const rest = parts.slice(i);
      if (rest.length === 0 && s.kind === 'catchAll') return null;
      params[s.name] = rest;
      return params;
    }
    if (i >= parts.length) return null;
    if (s.kind === 'static' ? s.text !== parts[i] : false) return null;
    if (s.kind === 'dynamic') params[s.name] = parts[i];
  }
  return parts.length === r.segments.length ? params : null;
}

/** The template a path (without its query) is served by, and its parameters; null when no file serves it. */
export function matchRoute(routes: readonly RouteTemplate[], pathname: string): RouteMatch | null {
  let parts: string[];
  try {
    parts = pathname
      .split('/')
      .filter(Boolean)
      .map((p) => decodeURIComponent(p));
  } catch {
    return null;
  }
  for (const r of routes) {
    const params = matchOne(r, parts);
    if (params) return { template: r.template, file: r.file, params };
  }
  return null;
}

export type RouteTable = { match: (pathname: string) => RouteMatch | null; label: (pathname: string) => string };

/**
 * The route table of the project at `root`: its app router's templates, Next.js's own assets (`/_next/…`) and the
 * files of public/ by their top folder. Anything else is `(unmatched)`: a 404, whatever the path.
 */
export function routeTable(root: string): RouteTable {
  const routes = scanRoutes(path.join(root, 'app'));
  let publicTop = new Set<string>();
  try {
    publicTop = new Set(fs.readdirSync(path.join(root, 'public')));
  } catch {
    /* no public folder */
  }
  const match = (pathname: string) => matchRoute(routes, pathname);
  const label = (pathname: string) => {
    const found = match(pathname);
    if (found) return found.template;
    const top = pathname.split('/')[1] ?? '';
    if (top === '_next') return '/_next/{...path}';
    if (publicTop.has(top)) return pathname.split('/').length > 2 ? `/${top}/{...path}` : `/${top}`;
    return '(unmatched)';
  };
  return { match, label };
}
