// Sending a response, and the faults that act on the wire as it goes out: a body dripped a few bytes
// at a time, truncated (the connection closed short of its Content-Length) or stalled (held open,
// nothing more sent); the bomb's endless gzip stream. A delay and a reset act before (see plan.mjs).

import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { CHUNK_BYTES, chunks, partsLength } from '../shared/parts.mjs';

/**
 * Sends a response with its full Content-Length. Without delivery faults the body goes out in one
 * write; otherwise in chunks, each written before the next (`drip`: `bytes` every `ms` ms);
 * `truncate` stops short of the end (half the body, or its `bytes`, never all of it) and closes, and
 * `stall` stops after its `bytes` (never all of the body) and sends nothing more, holding the
 * connection until the client closes it or the server stops. A `stream` body (the bomb) goes out
 * chunked, as it is made.
 */
export async function send(res, { status, headers, parts, stream = null, truncate = null, stall = null, drip = null }, record, signal) {
  if (stream) return sendStream(res, status, headers, stream(), record, signal);
  const total = partsLength(parts);
  res.writeHead(status, { ...headers, 'Content-Length': total });
  if (!truncate && !stall && !drip && parts.every(Buffer.isBuffer)) {
    res.end(parts.length === 1 ? parts[0] : Buffer.concat(parts));
    record.bytes = res.req?.method === 'HEAD' ? 0 : total; // Node sends no body after a HEAD
    return;
  }
  const most = Math.max(total - 1, 0);
  const limit = truncate ? Math.min(truncate.bytes ?? Math.floor(total / 2), most) : stall ? Math.min(stall.bytes, most) : total;
  if (limit === 0) await write(res, Buffer.alloc(0), signal); // flushes the headers
  for (const chunk of chunks(parts, drip ? drip.bytes : CHUNK_BYTES)) {
    if (record.bytes === limit) break;
    if (drip && record.bytes > 0) await sleep(drip.ms, undefined, { signal });
    const piece = chunk.subarray(0, limit - record.bytes);
    await write(res, piece, signal);
    record.bytes += piece.length;
  }
  if (stall) await aborted(signal); // rejects: the caller destroys the response
  if (truncate) res.destroy();
  else res.end();
}

/** Sends the output of a stream pipeline without a Content-Length (chunked), as fast as the client reads it. */
async function sendStream(res, status, headers, streams, record, signal) {
  res.writeHead(status, headers);
  await pipeline(...streams, async (source) => {
    for await (const chunk of source) {
      await write(res, chunk, signal);
      record.bytes += chunk.length;
    }
  }, { signal });
  res.end();
}

// The signals that stalled responses wait on. Nothing else may hold such a signal (one of
// AbortSignal.any, which its sources hold only weakly), and a signal collected never fires.
const stalled = new Set();

/** A promise that rejects with the signal's reason once it is aborted, and never settles otherwise. */
function aborted(signal) {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      stalled.delete(signal);
      reject(signal.reason);
    };
    if (signal.aborted) return onAbort();
    stalled.add(signal);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Writes a chunk and waits until the socket has taken it, or the request is aborted. */
function write(res, chunk, signal) {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    res.write(chunk, (error) => {
      signal.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve();
    });
  });
}
