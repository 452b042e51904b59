#ifndef NOTES_PREFETCH_H
#define NOTES_PREFETCH_H

/// Asks for the cache line at `address` to be loaded, for a write soon; no fault, whatever the address.
/// The id set fetches the slot an id will take while the rest of its record is read.
static inline void notes_prefetch_for_write(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

#endif
