/**
 * Reference data (api-v2.md "Category", "Language"). Categories are the spec's seven, in its order;
 * languages are the 44 of shared/data/languages.json (English first, then by name).
 */
import languages from './languages.json' with { type: 'json' };

export interface Category {
  id: string;
  name: string;
}
export interface Language {
  id: string;
  text: string;
}

export const CATEGORIES: readonly Category[] = [
  { id: 'text', name: 'Text' },
  { id: 'images', name: 'Images' },
  { id: 'video', name: 'Video' },
  { id: 'audio', name: 'Audio' },
  { id: 'software', name: 'Software' },
  { id: 'people', name: 'People' },
  { id: 'rest', name: 'Other' },
];

export const LANGUAGES: readonly Language[] = languages as Language[];

const categoryIds = new Set(CATEGORIES.map((c) => c.id));
const languageIds = new Set(LANGUAGES.map((l) => l.id));

export const DEFAULT_CATEGORY = 'rest';
export const DEFAULT_LANGUAGE = 'en_GB';

export const isCategory = (id: string): boolean => categoryIds.has(id);
export const isLanguage = (id: string): boolean => languageIds.has(id);
