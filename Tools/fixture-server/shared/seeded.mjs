// The one seeded source of every choice the server makes "at random": a 32-bit hash of a seed and an
// index for the choices per note (titles, ranks, the ids deleted between integer ids, the notes that
// /admin/touch edits), and SHA-256 of a text for the cursors, tokens and UUIDs that real servers draw at
// random. Nothing reads a clock or Math.random: the same seed and the same requests give the same bytes.

import { createHash } from 'node:crypto';

/** A 32-bit hash of (seed, i) for the per-note choices: the two mixed in, then MurmurHash3's finalizer. */
export function mix32(seed, i) {
  let h = (Math.imul(i, 0x9e3779b9) + Math.imul(seed, 0x85ebca6b) + 0x27d4eb2f) | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** SHA-256 of `text`: the bytes that cursors, tokens and UUIDs are drawn from. */
export function sha256(text) {
  return createHash('sha256').update(text).digest();
}

/** A version 4 UUID drawn from a text, for the nonces and ids that real servers make at random. */
export function uuidFrom(text) {
  const hex = sha256(text).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[parseInt(hex[16], 16) % 4]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
