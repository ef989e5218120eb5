/**
 * The contract's constants carry INTERFACE.md's values, and the files the
 * browser bundle reads (types/index.ts and what it imports at run time)
 * never import the schema library.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as contract from '../../types/index.ts';
import {
  BOT_MESSAGE_TYPES,
  CAMPAIGN_FILTER_STATUSES,
  CAMPAIGN_LIST_LIMIT_DEFAULT,
  CAMPAIGN_LIST_LIMIT_MAX,
  CAMPAIGN_LIST_PAGE_DEFAULT,
  CAMPAIGN_STATUSES,
  DEFAULT_BUTTON_TEXT,
  E164_PATTERN,
  ERRORS,
  GET_MESSAGES_LIMIT_DEFAULT,
  MEMBER_TYPES,
  MESSAGE_BY,
  MESSAGE_STATUSES,
  MESSAGE_TYPES,
  OPTION_DESCRIPTION_MAX,
  OPTION_TITLE_MAX,
  OPTIONS_MAX,
  OPTIONS_MIN,
  ROUTES,
  SENDABLE_MESSAGE_TYPES,
  SIGNED_URL_TTL_MAX,
  SIGNED_URL_TTL_MIN,
  UUID_PATTERN,
  VIDEO_MAX_BYTES,
  VIDEO_MEDIA_TYPES,
} from '../../types/index.ts';

const typesDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../types');

describe('limits', () => {
  it('has the interface values', () => {
    expect(CAMPAIGN_LIST_LIMIT_DEFAULT).toBe(10);
    expect(CAMPAIGN_LIST_LIMIT_MAX).toBe(50);
    expect(CAMPAIGN_LIST_PAGE_DEFAULT).toBe(1);
    expect([OPTIONS_MIN, OPTIONS_MAX]).toEqual([1, 10]);
    expect(OPTION_TITLE_MAX).toBe(24);
    expect(OPTION_DESCRIPTION_MAX).toBe(72);
    expect(DEFAULT_BUTTON_TEXT).toBe('Opciones');
    expect(VIDEO_MAX_BYTES).toBe(16 * 1024 * 1024);
    expect(VIDEO_MEDIA_TYPES).toEqual(expect.arrayContaining(['video/mp4', 'video/3gpp']));
    expect([SIGNED_URL_TTL_MIN, SIGNED_URL_TTL_MAX]).toEqual([900, 3600]);
    expect(GET_MESSAGES_LIMIT_DEFAULT).toBe(20);
  });

  it('matches E.164 numbers and UUIDs with its patterns', () => {
    const e164 = new RegExp(E164_PATTERN);
    expect(['+6834002', '+12345678', '+5215512345678', '+123456789012345'].every((p) => e164.test(p))).toBe(
      true,
    );
    expect(
      ['12345678', '+0123456789', '+123456', '+1234567890123456', '+1 2345678'].some((p) => e164.test(p)),
    ).toBe(false);
    const uuid = new RegExp(UUID_PATTERN);
    expect(uuid.test(crypto.randomUUID())).toBe(true);
    expect(uuid.test('0b7e4a52-3f0c-4c8e-9d7a-2f1e5b6c7d8')).toBe(false);
  });
});

describe('enumerations', () => {
  it('has the interface values', () => {
    expect(CAMPAIGN_STATUSES).toEqual(['PENDING', 'SCHEDULED', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED']);
    expect([...CAMPAIGN_FILTER_STATUSES].sort()).toEqual([
      'COMPLETED',
      'IN_PROGRESS',
      'PENDING',
      'SCHEDULED',
    ]);
    expect(MESSAGE_TYPES).toEqual([
      'TEXT',
      'IMAGE',
      'AUDIO',
      'FILE',
      'DOCUMENT',
      'LOCATION',
      'POSTBACK',
      'EVENT',
      'VIDEO',
    ]);
    expect([...SENDABLE_MESSAGE_TYPES].sort()).toEqual([
      'AUDIO',
      'DOCUMENT',
      'EVENT',
      'IMAGE',
      'LOCATION',
      'POSTBACK',
      'TEXT',
      'VIDEO',
    ]);
    expect(MESSAGE_STATUSES).toEqual([
      'CREATED',
      'DELIVERED',
      'FAILED',
      'DELIVERED_CHANNEL',
      'DELIVERED_USER',
    ]);
    expect(MESSAGE_BY).toEqual(expect.arrayContaining(['user', 'bot', 'company', 'client']));
    expect(MESSAGE_BY).toHaveLength(5);
    expect(MEMBER_TYPES).toContain('Client');
    expect([...BOT_MESSAGE_TYPES].sort()).toEqual([
      'contact_info_request',
      'contacts',
      'text',
      'video',
      'voice_call',
    ]);
  });
});

describe('error catalogue', () => {
  it('has the interface identifiers and a code for each client error status', () => {
    expect(ERRORS.SIGNED_URL_ERROR.code).toBe('E1126');
    expect(ERRORS.UNKNOWN_ERROR.code).toBe('E0000');
    expect(ERRORS.UNKNOWN_ERROR.httpStatus).toBe(500);
    for (const key of ['INVALID_MEDIA_URL', 'MEDIA_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as const) {
      expect(ERRORS[key].key).toBe(key);
    }
    const statuses = new Set(Object.values(ERRORS).map((e) => e.httpStatus));
    for (const status of [400, 401, 404, 409, 415, 422, 500]) expect(statuses).toContain(status);
  });

  it('gives every entry a unique code, its own key, and Spanish and English texts', () => {
    const codes = Object.values(ERRORS).map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const [key, e] of Object.entries(ERRORS)) {
      expect(e.key).toBe(key);
      expect(e.developerMessages.es.length * e.developerMessages.en.length).toBeGreaterThan(0);
      expect(e.clientMessages.es.length * e.clientMessages.en.length).toBeGreaterThan(0);
    }
  });
});

describe('routes', () => {
  it('has the interface paths', () => {
    expect(ROUTES.listCampaigns).toBe('/v1/campaigns');
    expect(ROUTES.campaign).toBe('/v1/campaigns/:campaignId');
    expect(ROUTES.createWidget).toBe('/v1/widget/create');
    expect(ROUTES.botMessages).toBe('/v1/bots/:botId/messages');
    expect(ROUTES.roomMessage).toBe('/v1/rooms/:roomId/message');
    expect(ROUTES.assetsRefresh).toBe('/v1/external/assets/refresh');
  });
});

/** Relative modules a file imports or re-exports at run time (type-only ones are erased by the compiler). */
function runtimeImports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const js = ts.transpileModule(source, {
    fileName: file,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      allowImportingTsExtensions: true,
    },
  }).outputText;
  const found = ts.preProcessFile(js, true, true).importedFiles.map((f) => f.fileName);
  return found;
}

describe('the browser-facing contract', () => {
  const browserFiles = ['index.ts', 'limits.ts', 'enums.ts', 'errors.ts', 'routes.ts'];

  it('reaches only the five dependency-free files at run time, from types/index.ts', () => {
    const seen = new Set<string>();
    const queue = [join(typesDir, 'index.ts')];
    const bare: string[] = [];
    while (queue.length > 0) {
      const file = queue.shift() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const spec of runtimeImports(file)) {
        if (spec.startsWith('.')) queue.push(resolve(dirname(file), spec));
        else bare.push(`${relative(typesDir, file)} -> ${spec}`);
      }
    }
    expect(bare).toEqual([]);
    expect([...seen].map((f) => relative(typesDir, f)).sort()).toEqual([...browserFiles].sort());
  });

  it.each(browserFiles)('types/%s has no runtime import of typebox or of the schemas', (name) => {
    const imports = runtimeImports(join(typesDir, name));
    expect(imports.filter((s) => s.includes('typebox') || s.includes('schemas'))).toEqual([]);
  });

  it('exports no schema object at run time', () => {
    // A TypeBox schema carries the `~kind` marker; the barrel must hold none.
    const schemas = Object.entries(contract).filter(
      ([, v]) => typeof v === 'object' && v !== null && ('~kind' in v || Symbol.for('TypeBox.Kind') in v),
    );
    expect(schemas.map(([k]) => k)).toEqual([]);
  });

  it('sees type-only re-exports as erased (the check itself can tell them apart)', () => {
    expect(runtimeImports(join(typesDir, 'index.ts'))).not.toContain('./schemas/campaigns.ts');
    expect(runtimeImports(join(typesDir, 'schemas', 'campaigns.ts'))).toContain('typebox');
  });
});
