#ifndef NOTES_JSON_RECORD_H
#define NOTES_JSON_RECORD_H

// The recording side of a pipelined parse: yajl's callbacks on the parsing thread write one record per
// event into the block being parsed, here in C, where a call through a Swift closure cost twice as many
// instructions per event. Nothing here calls yajl: the parser's Swift side (Yajl.swift) hands over the
// function that says how far yajl has read, and puts these callbacks in the handle's table.

#include <stddef.h>
#include <stdint.h>

// One recorded event, laid out as NotesJSON's `RecordedEvent`: the document offset just past the token,
// where its bytes are (an offset into the block's input, or the complement of one into its arena), and the
// kind (`RecordedEvent.Kind`'s raw value) in the top byte over the byte count.
typedef struct {
    int64_t end;
    int64_t location;
    uint64_t packed;
} notes_json_record;

// yajl's `ctx` for every callback of a handle: where the buffer being parsed lies in the document, the
// block being recorded, and (for the callbacks that deliver events instead) the Swift object they go to.
typedef struct notes_json_position notes_json_position;
struct notes_json_position {
    // Document offset of the buffer's first byte; while `completing`, the document's length.
    int64_t base;
    int32_t completing;
    // The yajl handle, and `yajl_get_bytes_consumed`.
    void *handle;
    size_t (*consumed)(void *handle);
    // The block being recorded: its records, their count and room, its input.
    notes_json_record *records;
    int64_t count;
    int64_t capacity;
    const uint8_t *input;
    int64_t input_count;
    // The block, for the two slow paths (in Swift): more room for records (updating `records` and
    // `capacity`), and a copy of bytes outside the input into the block's arena (their offset there).
    void *owner;
    void (*grow)(notes_json_position *position);
    int64_t (*copy)(notes_json_position *position, const uint8_t *bytes, size_t count);
    // The Swift object the delivering callbacks give events to.
    void *context;
};

// The document offset just past the token yajl is calling back for (`consumed` counts from the start of
// the buffer being parsed); the document's length while yajl completes it. Only inside a callback.
static inline int64_t notes_json_token_end(const notes_json_position *position) {
    return position->completing ? position->base : position->base + (int64_t)position->consumed(position->handle);
}

// Records an event of `kind` ending at `end`, with its bytes if any.
static inline void notes_json_record_at(
    notes_json_position *position, int kind, int64_t end, const uint8_t *text, size_t count) {
    if (position->count == position->capacity) position->grow(position);
    int64_t location = 0;
    if (count > 0) {
        uintptr_t start = (uintptr_t)position->input, at = (uintptr_t)text;
        if (at >= start && at + count <= start + (uintptr_t)position->input_count) {
            location = (int64_t)(at - start);
        } else {
            location = ~position->copy(position, text, count);
        }
    }
    notes_json_record *record = position->records + position->count++;
    record->end = end;
    record->location = location;
    record->packed = (uint64_t)kind << 56 | (uint64_t)count;
}

// The recording callbacks, with yajl's signatures: each event becomes a record with the offset just past
// its token; recording never stops the parse.
int notes_json_record_null(void *ctx);
int notes_json_record_boolean(void *ctx, int value);
int notes_json_record_number(void *ctx, const char *text, size_t count);
int notes_json_record_string(void *ctx, const unsigned char *text, size_t count);
int notes_json_record_start_map(void *ctx);
int notes_json_record_key(void *ctx, const unsigned char *text, size_t count);
int notes_json_record_end_map(void *ctx);
int notes_json_record_start_array(void *ctx);
int notes_json_record_end_array(void *ctx);

#endif
