import { SKILL_MIME_TYPE } from './skills.constants.js';

/** MIME types of the file extensions skills usually hold; anything else is sniffed (`mimeTypeOf`). */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  md: SKILL_MIME_TYPE,
  markdown: SKILL_MIME_TYPE,
  txt: 'text/plain',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  xml: 'application/xml',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  js: 'text/javascript',
  mjs: 'text/javascript',
  cjs: 'text/javascript',
  ts: 'text/x-typescript',
  py: 'text/x-python',
  sh: 'text/x-shellscript',
  sql: 'application/sql',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
};

/** Types served as `text` when their bytes are valid UTF-8, besides `text/*`. */
const TEXTUAL = new Set([
  'application/json',
  'application/yaml',
  'application/toml',
  'application/xml',
  'application/sql',
  'image/svg+xml',
]);

/** The MIME type of a skill file, from its extension; without a known one, `text/plain` for UTF-8 text, else bytes. */
export function mimeTypeOf(fileName: string, text: string | undefined): string {
  const dot = fileName.lastIndexOf('.');
  const known = dot > 0 ? BY_EXTENSION[fileName.slice(dot + 1).toLowerCase()] : undefined;
  if (known) return known;
  return text !== undefined && !text.includes('\0') ? 'text/plain' : 'application/octet-stream';
}

/** Whether a file of this type is served as `text` (when its bytes are valid UTF-8) rather than `blob`. */
export function isTextual(mimeType: string): boolean {
  return mimeType.startsWith('text/') || TEXTUAL.has(mimeType);
}
