/**
 * The widget's message catalogues: Spanish by default, English too. Every
 * user-visible string goes through {@link translate}.
 */
import type { Language } from '../../types/enums.ts';
import { en } from './en.ts';
import { es, type Catalogue, type CatalogueKey } from './es.ts';

export type { Catalogue, CatalogueKey };

const catalogues: Record<Language, Catalogue> = { es, en };

/** The catalogue of a language; unknown languages read Spanish. */
export function catalogue(language: string | null | undefined): Catalogue {
  return language === 'en' ? catalogues.en : catalogues.es;
}

/**
 * One string, with `{name}` placeholders filled in as text. A string with a `{count}` may have
 * two forms, `one|other`: the first for a count of 1, the second for any other (both languages'
 * plural rules for whole numbers).
 */
export function translate(
  language: string | null | undefined,
  key: CatalogueKey,
  params?: Record<string, string | number>,
): string {
  const template = catalogue(language)[key];
  if (!params) return template;
  const forms = template.split('|');
  return forms[params['count'] === 1 ? 0 : forms.length - 1]!.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

/** A translate function bound to one language. */
export type Translate = (key: CatalogueKey, params?: Record<string, string | number>) => string;

export function translator(language: string | null | undefined): Translate {
  return (key, params) => translate(language, key, params);
}
