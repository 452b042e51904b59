// What the Python servers that the styles imitate (Django REST framework, Kinto, pygeoapi,
// flask-smorest, Eve) write and read: json.dumps, urllib.parse.quote and quote_plus, int() and
// int(float()) of a query value.

import { isPlainObject } from './http.mjs';

/**
 * A value as Python's json.dumps writes it by default: `", "` and `": "` between items, non-ASCII
 * characters as \u escapes (ensure_ascii). Objects, arrays, strings, numbers, booleans and null.
 */
export function pythonJson(value) {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (isPlainObject(value)) return `{${Object.entries(value).map(([name, member]) => `${pythonJson(name)}: ${pythonJson(member)}`).join(', ')}}`;
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return JSON.stringify(value);
}

/**
 * Text as Python's urllib.parse.quote writes it with `safe`: everything but letters, digits, `_.-~`
 * and the characters of `safe` percent-encoded in UTF-8 (a space as %20).
 */
export function pythonQuote(text, safe = '') {
  let quoted = encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  for (const c of new Set(safe)) quoted = quoted.replaceAll(encodeURIComponent(c).replace(/[!'()*]/g, (x) => `%${x.charCodeAt(0).toString(16).toUpperCase()}`), c);
  return quoted;
}

/**
 * A query value or name as Python's urllib.parse.quote_plus writes it (and so Django REST framework's
 * links): everything but letters, digits and `_.-~` percent-encoded in UTF-8, a space as `+`.
 */
export function quotePlus(text) {
  return pythonQuote(text).replaceAll('%20', '+');
}

/** A number as Python's int() reads a string (surrounding space, a sign, `_` between digits), or NaN. */
export function pythonInteger(text) {
  const match = /^\s*([+-]?\d+(?:_\d+)*)\s*$/.exec(text ?? '');
  return match ? Number(match[1].replaceAll('_', '')) : NaN;
}

/** A number as Python's int(float(text)) reads a string (Eve's max_results), or NaN (also for inf). */
export function pythonFloatToInteger(text) {
  const trimmed = text.trim();
  if (!/^[+-]?(?:\d[\d_]*)?(?:\.[\d_]*)?(?:[eE][+-]?\d[\d_]*)?$/.test(trimmed) || !/\d/.test(trimmed) || /__|_(?!\d)|(?<!\d)_/.test(trimmed)) return NaN;
  const value = Number(trimmed.replaceAll('_', ''));
  return Number.isFinite(value) ? Math.trunc(value) : NaN;
}
