// The recording callbacks of json_record.h.
#include "json_record.h"

// RecordedEvent.Kind's raw values.
enum { start_object, end_object, start_array, end_array, key, string, number, is_false, is_true, null };

static inline int record(void *ctx, int kind, const uint8_t *text, size_t count) {
    notes_json_position *position = (notes_json_position *)ctx;
    notes_json_record_at(position, kind, notes_json_token_end(position), text, count);
    return 1;
}

int notes_json_record_null(void *ctx) { return record(ctx, null, 0, 0); }
int notes_json_record_boolean(void *ctx, int value) { return record(ctx, value ? is_true : is_false, 0, 0); }
int notes_json_record_number(void *ctx, const char *text, size_t count) {
    return record(ctx, number, (const uint8_t *)text, count);
}
int notes_json_record_string(void *ctx, const unsigned char *text, size_t count) {
    return record(ctx, string, text, count);
}
int notes_json_record_start_map(void *ctx) { return record(ctx, start_object, 0, 0); }
int notes_json_record_key(void *ctx, const unsigned char *text, size_t count) { return record(ctx, key, text, count); }
int notes_json_record_end_map(void *ctx) { return record(ctx, end_object, 0, 0); }
int notes_json_record_start_array(void *ctx) { return record(ctx, start_array, 0, 0); }
int notes_json_record_end_array(void *ctx) { return record(ctx, end_array, 0, 0); }
