// Start-up: the exit statuses, the HTTPS credentials, the notes to serve (a notes-gen directory or
// --count's), the fixtures of the fixture faults, and the listeners.

import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { checkItems, indexPages, readManifest } from '../notes/directory.mjs';
import { generatedPages, renderGeneratedPage } from '../notes/generated.mjs';

export const EXIT_USAGE = 64;

export const EXIT_DATA = 65;

export const EXIT_NO_INPUT = 66;

/** An error that ends start-up with a message and an exit status. */
export class Fatal extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const DEFAULT_FIXTURES = fileURLToPath(new URL('../../../Fixtures/contract/', import.meta.url));

/**
 * The --tls-cert and --tls-key files, as https.createServer takes them, or null for plain HTTP. An
 * unreadable file exits 66; a pair that TLS cannot use (not PEM, a key of another certificate) 65.
 */
export async function readCredentials(certFile, keyFile) {
  if (certFile === null) return null;
  const read = async (file, flag) => {
    try {
      return await readFile(file);
    } catch (error) {
      throw new Fatal(EXIT_NO_INPUT, `cannot read ${flag} ${file}: ${error.message}`);
    }
  };
  const credentials = { cert: await read(certFile, '--tls-cert'), key: await read(keyFile, '--tls-key') };
  try {
    tls.createSecureContext(credentials);
  } catch (error) {
    throw new Fatal(EXIT_DATA, `cannot serve HTTPS with ${certFile} and ${keyFile}: ${error.message}`);
  }
  return credentials;
}

/**
 * A notes-gen directory: the page list from its manifest, pages read from disk when first asked for.
 * Pages are read synchronously on purpose: a ~200 KB read from the page cache takes tens of
 * microseconds, while fs.promises.readFile's thread-pool round trips cost several times that, and
 * the first walk through a directory is what client benchmarks measure.
 */
export async function openDirectory(dir) {
  const manifestPath = path.join(dir, 'manifest.json');
  let text;
  try {
    text = await readFile(manifestPath, 'utf8');
  } catch (error) {
    throw new Fatal(EXIT_NO_INPUT, `cannot read ${manifestPath}: ${error.message}`);
  }
  let pages, byCursor;
  try {
    pages = readManifest(JSON.parse(text));
    byCursor = indexPages(pages);
  } catch (error) {
    throw new Fatal(EXIT_DATA, `${manifestPath}: ${error.message}`);
  }
  return {
    description: `directory ${dir}`,
    generated: null, // so no offset, page or keyset style
    pages,
    byCursor,
    load: async (index) => {
      const { file, items } = pages[index];
      const body = readFileSync(path.join(dir, file));
      checkItems(body, items, file);
      return { body, items };
    },
  };
}

/** The notes of --count (and the page size, seed, ... that the list styles need), made as they are asked for. */

export function generatedSource({ count, pageSize, seed, maxLimit, totals, totalLie, idKind, updates, noTitles }) {
  const pages = generatedPages(count, pageSize, seed);
  const titles = !noTitles;
  return {
    description: `${count} generated notes (page size ${pageSize}, seed ${seed}${idKind === 'int' ? ', integer ids' : ''}`
      + `${titles ? '' : ', no titles'}${updates ? ', with updates' : ''})`,
    // What the list styles (offset, page, keyset, jsonapi, ...) need; a directory has none of it.
    generated: { count, pageSize, seed, maxLimit, totals, totalLie, idKind, titles },
    pages,
    byCursor: indexPages(pages),
    load: async (index) => renderGeneratedPage(count, pageSize, seed, index, idKind, titles),
  };
}

/** Every file of the fixtures directory by name. The default directory may be missing; a given one may not. */
export async function loadFixtures(dir) {
  const fixtures = new Map();
  let names;
  try {
    names = await readdir(dir ?? DEFAULT_FIXTURES);
  } catch (error) {
    if (dir === null) return fixtures;
    throw new Fatal(EXIT_NO_INPUT, `cannot read fixtures directory ${dir}: ${error.message}`);
  }
  for (const name of names) fixtures.set(name, await readFile(path.join(dir ?? DEFAULT_FIXTURES, name)));
  return fixtures;
}

/** Listens; resolves with the origin that URLs name: `scheme://host:port`, host `urlHost` or the address bound. */
export function listen(server, host, port, scheme, urlHost) {
  return new Promise((resolve, reject) => {
    server.once('error', (error) => reject(new Fatal(1, `cannot listen on ${host}:${port}: ${error.message}`)));
    server.listen(port, host, () => {
      const { address, port: bound } = server.address();
      resolve(`${scheme}://${urlHost ?? (address.includes(':') ? `[${address}]` : address)}:${bound}`);
    });
  });
}
