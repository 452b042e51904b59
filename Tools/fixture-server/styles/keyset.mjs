// The keyset style, as Stripe pages: starting_after=ID&limit=L and has_more (where a page starts:
// list.mjs's listStart).

import { jsonPage } from '../shared/http.mjs';

/** keyset: `{"object":"list","data":[…],"has_more":nav.hasMore,"url":"/notes"}` (Stripe). */
export function wrapKeyset(items, nav) {
  return {
    headers: {},
    parts: [Buffer.from('{"object":"list","data":'), ...items, Buffer.from(`,"has_more":${nav.hasMore},"url":"/notes"}`)],
  };
}

/** A keyset page of the notes `itemParts`; `hasMore` says whether notes follow. */
export function keysetResponse(itemParts, hasMore) {
  return jsonPage(wrapKeyset(itemParts, { hasMore }));
}
