// The pages served, kept in memory up to --cache-mb.

/**
 * Keeps recently used pages, evicting the least recently used once their bytes pass `capacity`
 * (the page just loaded always stays). Concurrent requests for a page share one load.
 */
export class PageCache {
  constructor(capacity) {
    this.capacity = capacity;
    this.size = 0;
    this.pages = new Map(); // index -> page, least recently used first
    this.loading = new Map(); // index -> Promise<page>
  }

  async get(index, load) {
    const cached = this.pages.get(index);
    if (cached) {
      this.pages.delete(index);
      this.pages.set(index, cached);
      return cached;
    }
    if (!this.loading.has(index)) {
      this.loading.set(index, (async () => {
        try {
          const page = await load(index);
          this.pages.set(index, page);
          this.size += page.body.length;
          for (const [old, oldPage] of this.pages) {
            if (this.size <= this.capacity || old === index) break;
            this.pages.delete(old);
            this.size -= oldPage.body.length;
          }
          return page;
        } finally {
          this.loading.delete(index);
        }
      })());
    }
    return this.loading.get(index);
  }
}
