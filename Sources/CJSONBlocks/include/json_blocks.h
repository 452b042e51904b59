#ifndef NOTES_JSON_BLOCKS_H
#define NOTES_JSON_BLOCKS_H

// Classifies 64 bytes of JSON text at once into bit masks (bit i for byte i), for JSONScanner's fast
// path. SSE2 on x86-64 (its baseline), NEON on arm64 (vaddv is AArch64 only), plain C elsewhere; all three
// give the same masks. On x86-64 a processor with AVX-512BW or AVX2 takes one of the wider classifiers of
// json_blocks.c instead (notes_json_wide_classifier), which give the same masks again.

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON) && defined(__aarch64__)
#include <arm_neon.h>
#endif

typedef struct {
    uint64_t quote;      // "
    uint64_t backslash;  // '\'
    uint64_t high;       // 0x80 or more
    uint64_t control;    // below 0x20, except tab, line feed and carriage return
    uint64_t space;      // tab, line feed, carriage return: whitespace, but not inside a string
    uint64_t delimiter;  // ends a number or literal: 0x20 or less, , : " [ ] { }
    uint64_t open;       // [ {
    uint64_t close;      // ] }
} notes_json_block;

#if defined(__SSE2__)
static inline uint64_t notes_json_mask16(__m128i match, int shift) {
    return (uint64_t)(uint16_t)_mm_movemask_epi8(match) << shift;
}
#elif defined(__ARM_NEON) && defined(__aarch64__)
static inline uint64_t notes_json_mask16(uint8x16_t match, int shift) {
    // One bit per byte: keep a different bit of each lane, then add the lanes of each half.
    static const uint8_t weights[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    uint8x16_t bits = vandq_u8(match, vld1q_u8(weights));
    uint64_t low = vaddv_u8(vget_low_u8(bits));
    uint64_t high = vaddv_u8(vget_high_u8(bits));
    return (low | high << 8) << shift;
}
#endif

// The plain C classifier: what the SIMD paths must match (the tests compare them).
static inline notes_json_block notes_json_classify_portable(const uint8_t *bytes) {
    notes_json_block block = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 64; i++) {
        uint8_t byte = bytes[i], folded = byte | 0x20;
        uint64_t bit = (uint64_t)1 << i;
        if (byte == '"') block.quote |= bit;
        if (byte == '\\') block.backslash |= bit;
        if (byte >= 0x80) block.high |= bit;
        int is_space = byte == '\t' || byte == '\n' || byte == '\r';
        if (byte < 0x20 && !is_space) block.control |= bit;
        if (is_space) block.space |= bit;
        if (folded == '{') block.open |= bit;
        if (folded == '}') block.close |= bit;
        if (byte <= 0x20 || byte == '"' || byte == ',' || byte == ':' || folded == '{' || folded == '}')
            block.delimiter |= bit;
    }
    return block;
}

static inline notes_json_block notes_json_classify(const uint8_t *bytes) {
    notes_json_block block = {0, 0, 0, 0, 0, 0, 0, 0};
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    const __m128i tab = _mm_set1_epi8('\t'), line_feed = _mm_set1_epi8('\n'), carriage = _mm_set1_epi8('\r');
    const __m128i below_space = _mm_set1_epi8(0x1F), space = _mm_set1_epi8(0x20), fold = _mm_set1_epi8(0x20);
    const __m128i comma = _mm_set1_epi8(','), colon = _mm_set1_epi8(':');
    const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
    for (int part = 0; part < 4; part++) {
        __m128i text = _mm_loadu_si128((const __m128i *)(bytes + 16 * part));
        int shift = 16 * part;
        __m128i is_quote = _mm_cmpeq_epi8(text, quote);
        block.quote |= notes_json_mask16(is_quote, shift);
        block.backslash |= notes_json_mask16(_mm_cmpeq_epi8(text, backslash), shift);
        block.high |= (uint64_t)(uint16_t)_mm_movemask_epi8(text) << shift;
        __m128i is_space = _mm_or_si128(_mm_cmpeq_epi8(text, tab),
                                        _mm_or_si128(_mm_cmpeq_epi8(text, line_feed), _mm_cmpeq_epi8(text, carriage)));
        __m128i is_control = _mm_andnot_si128(is_space, _mm_cmpeq_epi8(_mm_min_epu8(text, below_space), text));
        block.control |= notes_json_mask16(is_control, shift);
        block.space |= notes_json_mask16(is_space, shift);
        __m128i folded = _mm_or_si128(text, fold);  // [ and { fold to {, ] and } to }
        __m128i is_open = _mm_cmpeq_epi8(folded, open), is_close = _mm_cmpeq_epi8(folded, close);
        block.open |= notes_json_mask16(is_open, shift);
        block.close |= notes_json_mask16(is_close, shift);
        __m128i delimiter = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(text, space), text), is_quote),
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(text, comma), _mm_cmpeq_epi8(text, colon)),
                         _mm_or_si128(is_open, is_close)));
        block.delimiter |= notes_json_mask16(delimiter, shift);
    }
#elif defined(__ARM_NEON) && defined(__aarch64__)
    for (int part = 0; part < 4; part++) {
        uint8x16_t text = vld1q_u8(bytes + 16 * part);
        int shift = 16 * part;
        uint8x16_t is_quote = vceqq_u8(text, vdupq_n_u8('"'));
        block.quote |= notes_json_mask16(is_quote, shift);
        block.backslash |= notes_json_mask16(vceqq_u8(text, vdupq_n_u8('\\')), shift);
        block.high |= notes_json_mask16(vcgeq_u8(text, vdupq_n_u8(0x80)), shift);
        uint8x16_t is_space = vorrq_u8(vceqq_u8(text, vdupq_n_u8('\t')),
                                       vorrq_u8(vceqq_u8(text, vdupq_n_u8('\n')), vceqq_u8(text, vdupq_n_u8('\r'))));
        block.control |= notes_json_mask16(vbicq_u8(vcltq_u8(text, vdupq_n_u8(0x20)), is_space), shift);
        block.space |= notes_json_mask16(is_space, shift);
        uint8x16_t folded = vorrq_u8(text, vdupq_n_u8(0x20));
        uint8x16_t is_open = vceqq_u8(folded, vdupq_n_u8('{')), is_close = vceqq_u8(folded, vdupq_n_u8('}'));
        block.open |= notes_json_mask16(is_open, shift);
        block.close |= notes_json_mask16(is_close, shift);
        uint8x16_t delimiter = vorrq_u8(
            vorrq_u8(vcleq_u8(text, vdupq_n_u8(0x20)), is_quote),
            vorrq_u8(vorrq_u8(vceqq_u8(text, vdupq_n_u8(',')), vceqq_u8(text, vdupq_n_u8(':'))),
                     vorrq_u8(is_open, is_close)));
        block.delimiter |= notes_json_mask16(delimiter, shift);
    }
#else
    block = notes_json_classify_portable(bytes);
#endif
    return block;
}

// UTF-8 in one block (RFC 3629), as bit masks: `error` has bits where the block's own bytes break the
// rules (a byte that is never UTF-8, a continuation byte no lead byte of the block asks for, a lead byte
// not followed by its continuations, an overlong form, a surrogate, a code point past U+10FFFF); `open` has
// the bit of a lead byte whose sequence runs past the block's end, checked only as far as the block goes.
// A block is a prefix of valid UTF-8 exactly when `error` is 0; continuation bytes at its start that
// finish a sequence of the block before are errors here, for the caller to mask out.
typedef struct {
    uint64_t error;
    uint64_t open;
} notes_json_utf8;

// From the block's bit planes: bit i of plane[k] is bit k of byte i.
static inline notes_json_utf8 notes_json_utf8_from_planes(const uint64_t plane[8]) {
    uint64_t b7 = plane[7], b6 = plane[6], b5 = plane[5], b4 = plane[4];
    uint64_t b3 = plane[3], b2 = plane[2], b1 = plane[1], b0 = plane[0];
    uint64_t continuation = b7 & ~b6;                             // 80..BF
    uint64_t lead = b7 & b6;                                      // C0..FF
    uint64_t lead2 = lead & ~b5;                                  // C0..DF
    uint64_t lead3 = lead & b5 & ~b4;                             // E0..EF
    uint64_t lead4 = lead & b5 & b4 & ~b3 & ~(b2 & (b1 | b0));    // F0..F4
    uint64_t never = (lead2 & ~(b4 | b3 | b2 | b1))               // C0, C1: overlong always
                     | (lead & b5 & b4 & ~lead4);                 // F5..FF
    uint64_t wanted = (lead2 | lead3 | lead4) << 1 | (lead3 | lead4) << 2 | lead4 << 3;
    uint64_t low_nibble_zero = ~(b3 | b2 | b1 | b0);
    // The second byte's range narrows after four lead bytes.
    uint64_t e0 = lead3 & low_nibble_zero, ed = lead3 & b3 & b2 & ~b1 & b0;
    uint64_t f0 = lead4 & low_nibble_zero, f4 = lead4 & b2;
    uint64_t below_a0 = continuation & ~b5, below_90 = below_a0 & ~b4;
    notes_json_utf8 result;
    result.error = never | (wanted ^ continuation)
                   | (e0 << 1 & below_a0)                       // E0 80..9F: overlong
                   | (ed << 1 & continuation & b5)              // ED A0..BF: a surrogate
                   | (f0 << 1 & below_90)                       // F0 80..8F: overlong
                   | (f4 << 1 & continuation & ~below_90);      // F4 90..BF: past U+10FFFF
    result.open = ((lead2 | lead3 | lead4) & (UINT64_C(1) << 63)) | ((lead3 | lead4) & (UINT64_C(3) << 62))
                  | (lead4 & (UINT64_C(7) << 61));
    return result;
}

// The plain C reading of the planes: what the SIMD paths must match.
static inline notes_json_utf8 notes_json_utf8_portable(const uint8_t *bytes) {
    uint64_t plane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 64; i++) {
        for (int k = 0; k < 8; k++) plane[k] |= (uint64_t)((bytes[i] >> k) & 1) << i;
    }
    return notes_json_utf8_from_planes(plane);
}

static inline notes_json_utf8 notes_json_utf8_check(const uint8_t *bytes) {
#if defined(__SSE2__)
    uint64_t plane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int part = 0; part < 4; part++) {
        __m128i text = _mm_loadu_si128((const __m128i *)(bytes + 16 * part));
        int shift = 16 * part;
        // Shifting 16-bit lanes left by 7 - k puts bit k of each byte at its top (the bits that cross from
        // the lane's low byte land below the high byte's top bit), where movemask reads it.
        for (int k = 0; k < 8; k++) plane[k] |= notes_json_mask16(_mm_slli_epi16(text, 7 - k), shift);
    }
    return notes_json_utf8_from_planes(plane);
#elif defined(__ARM_NEON) && defined(__aarch64__)
    uint64_t plane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int part = 0; part < 4; part++) {
        uint8x16_t text = vld1q_u8(bytes + 16 * part);
        for (int k = 0; k < 8; k++) {
            plane[k] |= notes_json_mask16(vtstq_u8(text, vdupq_n_u8((uint8_t)(1 << k))), 16 * part);
        }
    }
    return notes_json_utf8_from_planes(plane);
#else
    return notes_json_utf8_portable(bytes);
#endif
}

// MARK: - Strict text, one piece at a time (the block loop's and JSONScanner's byte-by-byte path's)

// The value of a hex digit, or -1.
static inline int notes_json_hex_digit(uint8_t byte) {
    if (byte >= '0' && byte <= '9') return byte - '0';
    uint8_t folded = byte | 0x20;
    if (folded >= 'a' && folded <= 'f') return folded - 'a' + 10;
    return -1;
}

// The code unit of the `\uXXXX` escape at `i`, or -1 when a digit is not hex or the text ends.
static inline int32_t notes_json_code_unit(const uint8_t *bytes, int64_t count, int64_t i) {
    if (i + 6 > count) return -1;
    int32_t unit = 0;
    for (int k = 2; k < 6; k++) {
        int digit = notes_json_hex_digit(bytes[i + k]);
        if (digit < 0) return -1;
        unit = unit << 4 | digit;
    }
    return unit;
}

// The length of the valid escape at `i` (a backslash): 2, 6 for `\uXXXX`, or 12 for a surrogate pair; 0
// when it is invalid, a lone surrogate (RFC 8259), or cut by the end of the text.
__attribute__((always_inline)) static inline int64_t notes_json_escape_length(
    const uint8_t *bytes, int64_t count, int64_t i) {
    if (i + 1 >= count) return 0;
    switch (bytes[i + 1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        return 2;
    case 'u': {
        int32_t unit = notes_json_code_unit(bytes, count, i);
        if (unit < 0 || (unit >= 0xDC00 && unit <= 0xDFFF)) return 0;
        if (unit < 0xD800 || unit > 0xDBFF) return 6;
        if (!(i + 7 < count && bytes[i + 6] == '\\' && bytes[i + 7] == 'u')) return 0;
        int32_t low = notes_json_code_unit(bytes, count, i + 6);
        return low >= 0xDC00 && low <= 0xDFFF ? 12 : 0;
    }
    default:
        return 0;
    }
}

// What a lead byte of a multi-byte UTF-8 sequence asks of the bytes after it (RFC 3629, table 3-7 of
// Unicode): its continuation bytes (0 when it cannot lead one), and the range of the first in `low` and
// `high`.
static inline int notes_json_utf8_lead(uint8_t lead, uint8_t *low, uint8_t *high) {
    *low = 0x80;
    *high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) return 1;
    if (lead >= 0xE0 && lead <= 0xEF) {
        if (lead == 0xE0) *low = 0xA0;
        if (lead == 0xED) *high = 0x9F;
        return 2;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        if (lead == 0xF0) *low = 0x90;
        if (lead == 0xF4) *high = 0x8F;
        return 3;
    }
    return 0;
}

// The length of the valid UTF-8 sequence whose lead byte is at `i`, or 0 when it is invalid or cut by the
// end of the text.
__attribute__((always_inline)) static inline int64_t notes_json_utf8_length(
    const uint8_t *bytes, int64_t count, int64_t i) {
    uint8_t low, high;
    int64_t length = notes_json_utf8_lead(bytes[i], &low, &high) + 1;
    if (length == 1 || i + length > count) return 0;
    if (bytes[i + 1] < low || bytes[i + 1] > high) return 0;
    for (int64_t k = 2; k < length; k++) {
        if ((bytes[i + k] & 0xC0) != 0x80) return 0;
    }
    return length;
}

// Whether `byte` ends a number or literal.
static inline int notes_json_ends_bare_token(uint8_t byte) {
    uint8_t folded = byte | 0x20;  // [ and { fold to {, ] and } to }
    return byte <= 0x20 || byte == ',' || byte == ':' || byte == '"' || folded == '{' || folded == '}';
}

// The widest classifier this processor and its operating system can run: 2 for AVX-512BW, 1 for AVX2, 0
// for none (the inline classifier above); 1 and 2 also ask for AVX, POPCNT, LZCNT, BMI1 and PCLMULQDQ,
// which the block loops built for them use. Asked once (cpuid, xgetbv); always 0 off x86-64.
int notes_json_wide_classifier(void);

// The same masks as notes_json_classify, from 64-byte (AVX-512BW) or two 32-byte (AVX2) vectors. Call
// only what notes_json_wide_classifier says the processor has.
notes_json_block notes_json_classify_avx512(const uint8_t *bytes);
notes_json_block notes_json_classify_avx2(const uint8_t *bytes);
notes_json_utf8 notes_json_utf8_avx512(const uint8_t *bytes);
notes_json_utf8 notes_json_utf8_avx2(const uint8_t *bytes);

// What JSONScanner's loop over whole blocks reads and leaves: its mode (JSONScanner.Mode's raw value), the
// bytes of the token open so far, where that token began (-1: in an earlier buffer), the nesting depth,
// and, when a token begun in an earlier buffer ends in a clean block, the index just past it (else left
// as it was). `token_bytes` and `token_start` are written only when a token is open at the end.
typedef struct {
    int64_t mode;
    int64_t token_bytes;
    int64_t token_start;
    int64_t depth;
    int64_t carried_token_end;
} notes_json_scan_state;

// JSONScanner.scanBlocks: scans the whole 64-byte blocks of `bytes[start..<count]` for as long as each is
// clean, with the classifier notes_json_wide_classifier gave, and returns where byte-by-byte scanning goes
// on (see JSONScanner.swift).
int64_t notes_json_scan_blocks(const uint8_t *bytes, int64_t count, int64_t start, int64_t max_token_bytes,
                               int64_t max_depth, int classifier, notes_json_scan_state *state);

#endif
