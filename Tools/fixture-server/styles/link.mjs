// The link style, as GitHub pages: the bare notes array, the next page in a Link header.

/** An RFC 8288 Link field value: `<url>; rel="next", ...`. */
export function formatLinkHeader(links) {
  return links.map(({ url, rel }) => `<${url}>; rel="${rel}"`).join(', ');
}

/** link: `[…]` with `Link: <prev>; rel="prev", <next>; rel="next"` of `nav.prevUrl` and `nav.nextUrl` (GitHub; no next on the last page). */
export function wrapLink(items, nav) {
  const links = [{ rel: 'prev', url: nav.prevUrl }, { rel: 'next', url: nav.nextUrl }].filter((l) => l.url !== null);
  return { headers: links.length ? { Link: formatLinkHeader(links) } : {}, parts: items };
}
