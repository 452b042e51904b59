#ifndef NOTES_ALLOCATION_COUNTER_H
#define NOTES_ALLOCATION_COUNTER_H

// Heap allocations made so far by the calling thread (malloc, calloc, realloc, the aligned forms), or -1
// where this process cannot count them. Linked into the benchmarks executable only: on glibc its
// allocation functions interpose the C library's for the whole process and forward to it.
long notes_allocations(void);

#endif
