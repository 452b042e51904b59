// Content codings: what --compress and compress= offer, the one a request's Accept-Encoding chooses,
// and the response's body compressed with it.

import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { UsageError } from '../shared/errors.mjs';
import { CHUNK_BYTES, chunks, partsLength } from '../shared/parts.mjs';

/** The content codings that --compress and `compress=` may offer, as Accept-Encoding names them. */
export const ENCODINGS = ['gzip', 'deflate', 'br'];

/**
 * Parses a --compress or `compress=` value: a comma-separated list of gzip, deflate and br (each at
 * most once; the order breaks ties between codings a client accepts equally), or `none`. Returns the list.
 */
export function parseCompress(value, what) {
  if (value.trim() === 'none') return [];
  const names = value.split(',').map((name) => name.trim());
  if (!names.every((name) => ENCODINGS.includes(name)) || new Set(names).size !== names.length) {
    throw new UsageError(`${what} takes a comma-separated list of ${ENCODINGS.join(', ')} (each once), or none; not '${value}'`);
  }
  return names;
}

/**
 * The content coding to answer with: the one of `offered` (server order) that `acceptEncoding` (the
 * request header, or undefined) weighs highest, or null for none. A coding is weighed by its own entry,
 * else by `*`, else not accepted; `q=0` refuses it; ties go to the earlier in `offered`. Names are
 * case-insensitive and `x-gzip` is gzip. Without the header nothing is compressed, as real servers do.
 */
export function chooseEncoding(acceptEncoding, offered) {
  if (typeof acceptEncoding !== 'string' || offered.length === 0) return null;
  const weights = new Map();
  for (const item of acceptEncoding.split(',')) {
    const [name, ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    if (!/^(?:[a-z0-9!#$%&'*+.^_`|~-]+)$/.test(name)) continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const weight = /^q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.exec(param);
      if (weight) q = Number(weight[1]);
      else if (/^q\s*=/.test(param)) valid = false;
    }
    const coding = name === 'x-gzip' ? 'gzip' : name;
    if (valid && !weights.has(coding)) weights.set(coding, q);
  }
  let best = null;
  let bestQ = 0;
  for (const coding of offered) {
    const q = weights.get(coding) ?? weights.get('*') ?? 0;
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}

// br at quality 5: quality 11 (the default) takes a large fraction of a second for one page.
const BROTLI_OPTIONS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } };

const COMPRESS = { gzip: promisify(zlib.gzip), deflate: promisify(zlib.deflate), br: promisify(zlib.brotliCompress) };

const COMPRESS_STREAM = {
  gzip: () => zlib.createGzip(),
  deflate: () => zlib.createDeflate(),
  br: () => zlib.createBrotliCompress(BROTLI_OPTIONS),
};

/** The content codings a request's `compress=` offers (none: --compress); throws UsageError. */
export function requestedEncodings(query, state) {
  const values = query.getAll('compress');
  if (values.length > 1) throw new UsageError('more than one compress');
  return values.length ? parseCompress(values[0], 'compress=') : state.compress;
}

/** The content codings offered for a request target; a bad `compress=` (answered 400) offers --compress. */
export function offeredEncodings(url, state) {
  const q = url.indexOf('?');
  try {
    return requestedEncodings(new URLSearchParams(q === -1 ? '' : url.slice(q + 1)), state);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return state.compress;
  }
}

/**
 * Compresses a response's body with the coding of `offered` that `acceptEncoding` allows, if any,
 * setting Content-Encoding; a body that might have been compressed gets `Vary: Accept-Encoding` either
 * way. Empty bodies and the bomb (already gzip) are left alone. Delivery faults then act on the
 * compressed bytes.
 */
export async function encode(response, acceptEncoding, offered) {
  if (response.stream || offered.length === 0 || partsLength(response.parts) === 0) return;
  response.headers.Vary = 'Accept-Encoding';
  const encoding = chooseEncoding(acceptEncoding, offered);
  if (encoding === null) return;
  response.parts = [await compress(response.parts, encoding)];
  response.headers['Content-Encoding'] = encoding;
}

async function compress(parts, encoding) {
  if (parts.every(Buffer.isBuffer)) return COMPRESS[encoding](Buffer.concat(parts), encoding === 'br' ? BROTLI_OPTIONS : {});
  // A streamed part (huge-title, deep) is compressed as it is made.
  const compressed = [];
  await pipeline(Readable.from(chunks(parts, CHUNK_BYTES)), COMPRESS_STREAM[encoding](), async (source) => {
    for await (const chunk of source) compressed.push(chunk);
  });
  return Buffer.concat(compressed);
}
