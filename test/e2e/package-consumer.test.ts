/**
 * Charla as a package: what `npm pack` makes of the build, installed the way a
 * customer's SPA or a business's Node backend installs it (the tarball under
 * node_modules/charla, its dependencies beside it), then compiled with their
 * TypeScript settings and run with their Node. Offline: the tarball is
 * unpacked by hand and the repository's node_modules is linked in.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as events from '../../src/events/index.ts';
import { ensureBuilt, ROOT } from './helpers.ts';

interface PackageJson {
  name: string;
  exports: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

let work: string;
/** The consumer project: package.json, sources, node_modules/charla from the tarball. */
let consumer: string;
/** Paths in the tarball, relative to its package/ folder. */
let packed: string[];
let pkg: PackageJson;

const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

function run(command: string, args: string[], cwd: string): { status: number; output: string } {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status ?? 1, output: `${r.stdout}${r.stderr}` };
}

/**
 * How long a compilation may take. The one that checks every declaration file it reaches (skipLibCheck
 * off, so ours are checked) takes about 20 s of CPU, the others 2 s, and more when the machine is busy
 * with something else (under a load of 10, three full checks took over a minute).
 */
const COMPILE_TIMEOUT_MS = 300_000;

/** tsc -p <config> in the consumer, started at once: the compilations run side by side. */
function tsc(config: string): Promise<{ status: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSC, '-p', config],
      { cwd: consumer, timeout: COMPILE_TIMEOUT_MS },
      (error, stdout, stderr) =>
        resolve({
          status: error ? 1 : 0,
          output: `${stdout}${stderr}${error?.killed ? `tsc -p ${config} was stopped after ${COMPILE_TIMEOUT_MS} ms` : ''}`,
        }),
    );
  });
}

/** Consumer sources and the tsconfig that compiles each, by test. */
const COMPILE_OPTIONS = {
  target: 'ES2022',
  lib: ['ES2023', 'DOM', 'DOM.Iterable'],
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  skipDefaultLibCheck: true,
  types: [],
};

/** README, "ESM (single-page apps)" and "The widgetInstance API", in a strict TypeScript SPA. */
const README_ESM = `import { createWidget } from 'charla';

const widgetInstance = createWidget({
  apiKey: 'KEY',
  baseUrl: 'https://YOUR-CHARLA', // default: the page's origin
  userId: 'user-42', // default: a UUID made once and kept per API key
  userNames: 'Ana',
  container: document.querySelector('#chat'), // default document.body
  autoShow: false, // true: open the panel once connected
});
await widgetInstance.connect();
await widgetInstance.sendMessage({ type: 'TEXT', text: 'Hola' });
await widgetInstance.sendMessage({ type: 'EVENT', slug: 'page-view', description: 'pricing', eventPayload: { path: '/precios' } });
widgetInstance.on('message', ({ roomId, message }) => console.log(roomId, message.id));
document.querySelector('charla-widget')?.addEventListener('charla-connection', (e) => console.log(e.detail.state));
widgetInstance.destroy();
`;

/** A backend on TypeScript's old resolution (node10, the default of module commonjs), which ignores exports. */
const LEGACY_BACKEND = `import { createClient, type CampaignResult } from 'charla/api';
export const charla = createClient({ baseUrl: 'https://charla.example.com', companyToken: 'token' });
export const cancel = (id: string): Promise<CampaignResult> => charla.cancelCampaign(id);
export type { Message } from 'charla';
`;

/** charla/api beside the widget, so that the full check below reaches its declarations too. */
const API_TOO = `import { createClient, type CampaignResult } from 'charla/api';
const backend = createClient({ baseUrl: 'https://charla.example.com', companyToken: 'token' });
export const cancelled: Promise<CampaignResult> = backend.cancelCampaign('c-1');
`;

const COMPILATIONS = {
  // Every declaration the package ships (and those of its dependencies) is checked once, under the
  // strictest resolution, the widget's and charla/api's: TypeBox's own declarations alone take tsc
  // about 20 s of one core to check.
  // The bundler SPA and the legacy backend compile as their templates set them up (Vite's and
  // `tsc --init`'s skipLibCheck: true), which still reports anything that does not resolve or type
  // in the consumer's own code.
  'spa-bundler': {
    source: 'spa/main.ts',
    text: README_ESM,
    options: { module: 'ESNext', moduleResolution: 'bundler', skipLibCheck: true },
  },
  'spa-nodenext': {
    source: 'spa/main.ts',
    text: `${README_ESM}\n${API_TOO}`,
    options: { module: 'nodenext', moduleResolution: 'nodenext' },
  },
  'backend-node10': {
    source: 'backend/legacy.ts',
    text: LEGACY_BACKEND,
    options: {
      module: 'commonjs',
      moduleResolution: 'node10',
      ignoreDeprecations: '6.0',
      skipLibCheck: true,
    },
  },
} as const;
let compiled: Record<keyof typeof COMPILATIONS, Promise<{ status: number; output: string }>>;

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** The package a bare specifier names: `lit/decorators.js` -> `lit`, `@lit-labs/virtualizer/x` -> `@lit-labs/virtualizer`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** Module specifiers of import/export statements and import() types. */
function specifiers(code: string): string[] {
  const found: string[] = [];
  for (const m of code.matchAll(/(?:^|[\s;}])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]/g))
    found.push(m[1]!);
  for (const m of code.matchAll(/(?:^|[\s;])import\s*['"]([^'"]+)['"]/g)) found.push(m[1]!);
  for (const m of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]!);
  return found;
}

beforeAll(() => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'charla-package-'));
  // Pack a copy: others rebuild dist/ while tests run (helpers.ts keeps a snapshot of it).
  const stage = join(work, 'stage');
  mkdirSync(stage);
  for (const f of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'custom-elements.json', 'types'])
    if (existsSync(join(ROOT, f))) cpSync(join(ROOT, f), join(stage, f), { recursive: true });
  cpSync(process.env['CHARLA_DIST_DIR'] ?? join(ROOT, 'dist'), join(stage, 'dist'), { recursive: true });
  const out = execFileSync(
    'npm',
    ['pack', '--json', '--offline', '--ignore-scripts', '--pack-destination', work],
    {
      cwd: stage,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const [info] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
  packed = info!.files.map((f) => f.path).sort();

  consumer = join(work, 'consumer');
  const modules = join(consumer, 'node_modules');
  mkdirSync(join(modules, 'charla'), { recursive: true });
  execFileSync('tar', [
    'xzf',
    join(work, info!.filename),
    '-C',
    join(modules, 'charla'),
    '--strip-components=1',
  ]);
  pkg = JSON.parse(readFileSync(join(modules, 'charla', 'package.json'), 'utf8')) as PackageJson;
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (entry === 'charla' || entry.startsWith('.')) continue;
    symlinkSync(join(ROOT, 'node_modules', entry), join(modules, entry));
  }
  write(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  for (const [name, { source, text, options }] of Object.entries(COMPILATIONS)) {
    write(join(consumer, source), text);
    write(
      join(consumer, `tsconfig.${name}.json`),
      JSON.stringify({ compilerOptions: { ...COMPILE_OPTIONS, ...options }, files: [source] }),
    );
  }
  compiled = {
    'spa-bundler': tsc('tsconfig.spa-bundler.json'),
    'spa-nodenext': tsc('tsconfig.spa-nodenext.json'),
    'backend-node10': tsc('tsconfig.backend-node10.json'),
  };
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the charla tarball', () => {
  it('holds every file its exports and declarations name', () => {
    const targets = Object.values(pkg.exports).flatMap((t) =>
      typeof t === 'string' ? [t] : Object.values(t),
    );
    for (const target of targets)
      expect(packed, `exports target ${target}`).toContain(posix.normalize(target));
    for (const file of packed.filter((p) => p.endsWith('.d.ts') || /^dist\/.*\.js$/.test(p))) {
      const code = readFileSync(join(consumer, 'node_modules', 'charla', file), 'utf8');
      for (const spec of specifiers(code).filter((s) => s.startsWith('.'))) {
        const target = posix.join(posix.dirname(file), spec);
        const wanted = file.endsWith('.d.ts') ? target.replace(/\.(ts|js)$/, '.d.ts') : target;
        expect(packed, `${file} imports ${spec}`).toContain(wanted);
      }
    }
  });

  it('ships the bundles, declarations and manifest, not sources or the demo pages', () => {
    const extra = packed.filter(
      (p) =>
        p.startsWith('dist/demo/') || p.startsWith('src/') || (p.endsWith('.ts') && !p.endsWith('.d.ts')),
    );
    expect(extra).toEqual([]);
  });

  it('depends on exactly the packages its published code imports', () => {
    const shipped = packed.filter((p) => /^dist\/[^/]+\.js$|\.d\.ts$/.test(p) && !p.includes('.iife.'));
    const imported = new Set<string>();
    for (const file of shipped) {
      const code = readFileSync(join(consumer, 'node_modules', 'charla', file), 'utf8')
        // Doc comments show imports of charla itself (`import { createClient } from 'charla/api'`).
        .replace(/\/\*[\s\S]*?\*\//g, '');
      for (const spec of specifiers(code)) {
        if (spec.startsWith('.') || spec.startsWith('node:') || builtinModules.includes(spec)) continue;
        imported.add(packageOf(spec));
      }
    }
    imported.delete('charla');
    // Under Yarn PnP or pnpm without hoisting only our own dependencies resolve: every package the
    // shipped code names must be one (the elements' render() is typed `unknown`, so lit-html is not named).
    const declared = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies }).sort();
    expect(declared).toEqual([...imported].sort());
  });
});

describe('a TypeScript SPA (strict) importing charla as the README shows', () => {
  it.each(['bundler', 'nodenext'] as const)(
    'compiles with moduleResolution %s',
    async (resolution) => {
      const r = await compiled[`spa-${resolution}`];
      expect(r.output).toBe('');
      expect(r.status).toBe(0);
    },
    COMPILE_TIMEOUT_MS + 10_000,
  );
});

describe('custom-elements.json', () => {
  it('lists the events <charla-widget> dispatches', () => {
    const manifest = JSON.parse(
      readFileSync(join(consumer, 'node_modules', 'charla', 'custom-elements.json'), 'utf8'),
    ) as { modules: { declarations?: { tagName?: string; events?: { name: string }[] }[] }[] };
    const widget = manifest.modules
      .flatMap((m) => m.declarations ?? [])
      .find((d) => d.tagName === 'charla-widget');
    const dispatched = (Object.values(events) as unknown[])
      .filter(
        (e): e is new (detail: never) => Event => typeof e === 'function' && e.prototype instanceof Event,
      )
      .map((EventClass) => new EventClass({} as never).type)
      .sort();
    expect(dispatched).toHaveLength(7);
    expect((widget?.events ?? []).map((e) => e.name).sort()).toEqual(dispatched);
  });

  it('names only shipped modules, and the one that exports and defines every element', () => {
    type Ref = { name: string; module: string };
    const manifest = JSON.parse(
      readFileSync(join(consumer, 'node_modules', 'charla', 'custom-elements.json'), 'utf8'),
    ) as {
      modules: {
        path: string;
        declarations?: { name: string; tagName?: string }[];
        exports?: { kind: string; name: string; declaration: Ref }[];
      }[];
    };
    const paths = manifest.modules.map((m) => m.path);
    for (const path of paths) expect(packed, path).toContain(path);
    const elements = manifest.modules.flatMap((m) => (m.declarations ?? []).filter((d) => d.tagName));
    // The tags src/define.ts registers (`'charla-widget': CharlaWidget,` ...), read from its source.
    const define = readFileSync(join(ROOT, 'src', 'define.ts'), 'utf8');
    const registered = [...define.matchAll(/^\s+'(charla-[a-z-]+)': (\w+),$/gm)].map(([, tag, cls]) => [
      tag,
      cls,
    ]);
    expect(registered).toHaveLength(8);
    expect(elements.map((d) => [d.tagName, d.name]).sort()).toEqual(registered.sort());
    const exported = manifest.modules.flatMap((m) => m.exports ?? []);
    for (const d of elements) {
      expect(exported, d.name).toContainEqual({ kind: 'js', name: d.name, declaration: expect.any(Object) });
      const definition = exported.find((e) => e.kind === 'custom-element-definition' && e.name === d.tagName);
      expect(definition?.declaration.name, d.tagName).toBe(d.name);
      expect(paths).toContain(definition?.declaration.module);
    }
  });
});

describe('a Node 20 backend using charla/api', () => {
  /** Calls with bad arguments: each must reject its promise (as docs/api-client.md says), never throw. */
  const USE_CLIENT = (load: string) => `${load}
const charla = createClient({ baseUrl: 'https://charla.example.com', clientId: 'id', clientSecret: 'secret' });
const calls = {
  sendText: () => charla.sendText('demo-bot', '', 'Hola'),
  listCampaigns: () => charla.listCampaigns({ botId: 'demo-bot', startAt: 'yesterday', endAt: '2026-01-01' }),
  cancelCampaign: () => charla.cancelCampaign(''),
  refreshAsset: () => charla.refreshAsset({ resourceUrl: 'https://charla.example.com/v1/media/a', ttl: 1 }),
};
(async () => {
  for (const [name, call] of Object.entries(calls)) {
    let outcome;
    try {
      outcome = await call().then(
        () => 'resolved',
        (error) => \`rejected \${error instanceof CharlaApiError} \${error.key}\`,
      );
    } catch (error) {
      outcome = \`threw \${error.key}\`;
    }
    console.log(name, outcome);
  }
})();
`;
  const EXPECTED = ['sendText', 'listCampaigns', 'cancelCampaign', 'refreshAsset']
    .map((name) => `${name} rejected true VALIDATION_ERROR`)
    .join('\n');

  it('runs as an ES module; bad arguments reject the promise', () => {
    write(
      join(consumer, 'backend', 'esm.mjs'),
      USE_CLIENT(`import { createClient, CharlaApiError } from 'charla/api';`),
    );
    const r = run(process.execPath, ['backend/esm.mjs'], consumer);
    expect(r.output.trim()).toBe(EXPECTED);
  });

  it('runs from CommonJS (require of an ES module, Node 20.19+)', () => {
    write(
      join(consumer, 'backend', 'cjs.cjs'),
      USE_CLIENT(`const { createClient, CharlaApiError } = require('charla/api');`),
    );
    const r = run(process.execPath, ['backend/cjs.cjs'], consumer);
    expect(r.output.trim()).toBe(EXPECTED);
  });

  it(
    'finds the types of charla and charla/api under moduleResolution node10 (module commonjs)',
    async () => {
      const r = await compiled['backend-node10'];
      expect(r.output).toBe('');
      expect(r.status).toBe(0);
    },
    COMPILE_TIMEOUT_MS + 10_000,
  );
});
