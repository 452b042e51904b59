#ifndef NOTES_PAGE_YAJL_NOOP_H
#define NOTES_PAGE_YAJL_NOOP_H

#include <stddef.h>

/// The benchmarks' ceiling: yajl parsing `length` bytes in chunks of `chunk` bytes with callbacks that do
/// nothing but count (numbers as text, as the project's decoder takes them). Returns the number of
/// events, or -1 if yajl rejected the text.
long yajl_noop_parse(const unsigned char *bytes, size_t length, size_t chunk);

#endif
