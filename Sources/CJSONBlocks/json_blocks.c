// The inline classifiers live in include/json_blocks.h; this file holds the wider x86-64 ones, compiled
// for their instruction sets alone and called only once notes_json_wide_classifier has found them, and
// JSONScanner's loop over whole blocks, compiled once for each classifier so that the classifier, the
// checks of escapes and sequences and the bit counts are one loop of the processor's own instructions.
#include "json_blocks.h"

// MARK: - The loop over whole blocks

// Bit i set where an odd number of the bits 0...i of `bits` are: with `bits` the quotes, the bytes inside a
// string (its opening quote included, its closing one not).
static inline uint64_t prefix_xor_shifts(uint64_t bits) {
    bits ^= bits << 1;
    bits ^= bits << 2;
    bits ^= bits << 4;
    bits ^= bits << 8;
    bits ^= bits << 16;
    bits ^= bits << 32;
    return bits;
}

static inline int64_t trailing_zeros(uint64_t bits) { return bits ? __builtin_ctzll(bits) : 64; }
static inline int64_t leading_zeros(uint64_t bits) { return bits ? __builtin_clzll(bits) : 64; }
static inline int64_t ones(uint64_t bits) { return __builtin_popcountll(bits); }

enum { between = 0, in_string = 1, bare = 2 };  // JSONScanner.Mode's raw values

// JSONScanner.scanBlocks, with the classifier, the UTF-8 masks and the prefix XOR given: each caller below
// passes its own, and this loop is inlined into it (the function pointers are constants there).
__attribute__((always_inline)) static inline int64_t scan_blocks(
    const uint8_t *bytes, int64_t count, int64_t start, int64_t max_token_bytes, int64_t max_depth,
    notes_json_scan_state *state, notes_json_block (*classify)(const uint8_t *),
    notes_json_utf8 (*utf8_check)(const uint8_t *), uint64_t (*prefix_xor)(uint64_t)) {
    int64_t mode = state->mode, depth = state->depth;
    int64_t i = start;
    // Bytes at the start of this block that belong to a sequence checked in the block before.
    int64_t skip = 0;
    // Where the current token's bytes begin (after the quote for a string); negative in an earlier buffer.
    int64_t token_begin = start - state->token_bytes;
    int carried = mode != between && state->token_start < 0;
    int previous_is_delimiter = start > 0 ? notes_json_ends_bare_token(bytes[start - 1]) : mode != bare;
    while (i + 64 <= count) {
        notes_json_block block = classify(bytes + i);
        uint64_t keep = ~UINT64_C(0) << skip;

        // Escapes, checked whole; what they cover is masked out. `string_only`: their starts and the
        // non-ASCII bytes, which only a string may hold.
        uint64_t escapes = block.backslash & keep, string_only = 0, escaped_quotes = 0;
        int64_t next_skip = 0;
        while (escapes != 0) {
            int64_t position = trailing_zeros(escapes);
            int64_t length = notes_json_escape_length(bytes, count, i + position);
            if (length == 0) goto done;
            if (bytes[i + position + 1] == '"') escaped_quotes |= UINT64_C(2) << position;
            string_only |= UINT64_C(1) << position;
            int64_t end = position + length;
            if (end >= 64) {
                next_skip = end - 64;
                break;
            }
            escapes &= ~UINT64_C(0) << end;
        }
        // Multi-byte sequences, by the block's UTF-8 masks; one that runs into the next block is checked
        // whole here, and its bytes there skipped.
        uint64_t high = block.high & keep;
        if (high != 0) {
            notes_json_utf8 utf8 = utf8_check(bytes + i);
            if (utf8.error & keep) goto done;
            if (utf8.open != 0) {
                int64_t position = trailing_zeros(utf8.open);
                int64_t length = notes_json_utf8_length(bytes, count, i + position);
                if (length == 0) goto done;
                next_skip = position + length - 64;
            }
            string_only |= high;
        }

        uint64_t quotes = block.quote & keep & ~escaped_quotes;
        uint64_t inside = prefix_xor(quotes);
        if (mode == in_string) inside = ~inside;
        uint64_t opening = quotes & inside, closing = quotes & ~inside;
        uint64_t bare_bytes = ~block.delimiter & ~inside, opens = block.open & ~inside;
        int clean = (string_only & ~inside) == 0 && block.control == 0 && (block.space & inside) == 0
                    && (opening & ~(block.delimiter << 1 | (uint64_t)previous_is_delimiter)) == 0
                    && depth + ones(opens) <= max_depth;
        if (!clean) goto done;

        // The token open at the start of the block: where it ends, and whether it stayed under the limit.
        int64_t ended = -1;
        if (mode == in_string && closing != 0) {
            ended = i + trailing_zeros(closing);
            if (ended - token_begin > max_token_bytes) goto done;
            ended += 1;
        } else if (mode == bare && ~bare_bytes != 0) {
            int64_t delimiter = i + trailing_zeros(~bare_bytes);
            if (delimiter - token_begin > max_token_bytes) goto done;
            ended = delimiter + 1;  // yajl needs the byte after a number: it goes with the token
        }
        // The token open at the end of the block.
        int64_t new_mode = between, new_begin = token_begin;
        if (inside >> 63) {
            new_mode = in_string;
            if (opening != 0) new_begin = i + 64 - leading_zeros(opening);
        } else if (bare_bytes >> 63) {
            new_mode = bare;
            int64_t run = leading_zeros(~bare_bytes);
            if (run < 64 || mode != bare) new_begin = i + 64 - run;
        }
        // (A sequence running into the next block counts here: the next block may never come.)
        if (new_mode != between && i + 64 + next_skip - new_begin > max_token_bytes) goto done;

        // The block is clean: take its state.
        if (carried && ended >= 0) {
            state->carried_token_end = ended;
            carried = 0;
        }
        depth += ones(opens) - ones(block.close & ~inside);
        mode = new_mode;
        token_begin = new_begin;
        previous_is_delimiter = block.delimiter >> 63 != 0;
        skip = next_skip;
        i += 64;
    }
done:;
    int64_t position = i + skip;
    state->mode = mode;
    state->depth = depth;
    if (mode != between) {
        state->token_bytes = position - token_begin;
        state->token_start = carried ? -1 : mode == in_string ? token_begin - 1 : token_begin;
    }
    return position;
}

static int64_t scan_narrow(const uint8_t *bytes, int64_t count, int64_t start, int64_t max_token_bytes,
                           int64_t max_depth, notes_json_scan_state *state) {
    return scan_blocks(bytes, count, start, max_token_bytes, max_depth, state, notes_json_classify,
                       notes_json_utf8_check, prefix_xor_shifts);
}

// The wide loops: x86-64, with compilers that take per-function target attributes and have <cpuid.h>.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NOTES_JSON_WIDE_LOOPS 1
#else
#define NOTES_JSON_WIDE_LOOPS 0
#endif

#if NOTES_JSON_WIDE_LOOPS
#include <cpuid.h>
#include <immintrin.h>

int notes_json_wide_classifier(void) {
    static int level = -1;
    int known = __atomic_load_n(&level, __ATOMIC_RELAXED);
    if (known >= 0) return known;
    int found = 0;
    unsigned int eax, ebx, ecx, edx;
    // The operating system must save the vector registers (XCR0): YMM for AVX2, ZMM and masks for AVX-512.
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_OSXSAVE)) {
        unsigned int leaf1 = ecx;
        unsigned int low, high;
        __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
        int ymm = (low & 0x6) == 0x6, zmm = (low & 0xE6) == 0xE6;
        if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
            // The block loops compiled for AVX2 or AVX-512 count and find bits with POPCNT, LZCNT and BMI1,
            // and take the prefix XOR with PCLMULQDQ in its VEX form (AVX): every processor with AVX2 has
            // them, but ask.
            unsigned int extended = 0, unused;
            if (__get_cpuid(0x80000001, &unused, &unused, &extended, &unused) == 0) extended = 0;
            int companions = (leaf1 & bit_AVX) && (leaf1 & bit_POPCNT) && (leaf1 & bit_PCLMUL) && (ebx & bit_BMI)
                             && (extended & bit_LZCNT);
            if (companions && ymm && (ebx & bit_AVX2)) found = 1;
            if (companions && zmm && (ebx & bit_AVX512F) && (ebx & bit_AVX512BW)) found = 2;
        }
    }
    __atomic_store_n(&level, found, __ATOMIC_RELAXED);  // the same answer on every thread: a race asks twice
    return found;
}

__attribute__((target("avx512f,avx512bw"))) static inline notes_json_block classify_avx512(const uint8_t *bytes) {
    notes_json_block block;
    __m512i text = _mm512_loadu_si512((const void *)bytes);
    __mmask64 quote = _mm512_cmpeq_epi8_mask(text, _mm512_set1_epi8('"'));
    __mmask64 space = _mm512_cmpeq_epi8_mask(text, _mm512_set1_epi8('\t'))
        | _mm512_cmpeq_epi8_mask(text, _mm512_set1_epi8('\n'))
        | _mm512_cmpeq_epi8_mask(text, _mm512_set1_epi8('\r'));
    __m512i folded = _mm512_or_si512(text, _mm512_set1_epi8(0x20));  // [ and { fold to {, ] and } to }
    __mmask64 open = _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('{'));
    __mmask64 close = _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('}'));
    block.quote = quote;
    block.backslash = _mm512_cmpeq_epi8_mask(text, _mm512_set1_epi8('\\'));
    block.high = _mm512_movepi8_mask(text);
    block.control = _mm512_cmplt_epu8_mask(text, _mm512_set1_epi8(0x20)) & ~space;
    block.space = space;
    block.open = open;
    block.close = close;
    block.delimiter = _mm512_cmple_epu8_mask(text, _mm512_set1_epi8(0x20)) | quote
        | _mm512_cmpeq_epi8_mask(text, _mm512_set1_epi8(',')) | _mm512_cmpeq_epi8_mask(text, _mm512_set1_epi8(':'))
        | open | close;
    return block;
}

__attribute__((target("avx2")))
static inline uint64_t notes_json_mask32(__m256i match, int shift) {
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(match) << shift;
}

__attribute__((target("avx2"))) static inline notes_json_block classify_avx2(const uint8_t *bytes) {
    notes_json_block block = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int part = 0; part < 2; part++) {
        __m256i text = _mm256_loadu_si256((const __m256i *)(bytes + 32 * part));
        int shift = 32 * part;
        __m256i is_quote = _mm256_cmpeq_epi8(text, _mm256_set1_epi8('"'));
        __m256i is_space = _mm256_or_si256(
            _mm256_cmpeq_epi8(text, _mm256_set1_epi8('\t')),
            _mm256_or_si256(_mm256_cmpeq_epi8(text, _mm256_set1_epi8('\n')),
                            _mm256_cmpeq_epi8(text, _mm256_set1_epi8('\r'))));
        // min(text, c) == text: text <= c, unsigned.
        __m256i at_most_space = _mm256_cmpeq_epi8(_mm256_min_epu8(text, _mm256_set1_epi8(0x20)), text);
        __m256i below_space = _mm256_cmpeq_epi8(_mm256_min_epu8(text, _mm256_set1_epi8(0x1F)), text);
        __m256i folded = _mm256_or_si256(text, _mm256_set1_epi8(0x20));
        __m256i is_open = _mm256_cmpeq_epi8(folded, _mm256_set1_epi8('{'));
        __m256i is_close = _mm256_cmpeq_epi8(folded, _mm256_set1_epi8('}'));
        block.quote |= notes_json_mask32(is_quote, shift);
        block.backslash |= notes_json_mask32(_mm256_cmpeq_epi8(text, _mm256_set1_epi8('\\')), shift);
        block.high |= notes_json_mask32(text, shift);
        block.control |= notes_json_mask32(_mm256_andnot_si256(is_space, below_space), shift);
        block.space |= notes_json_mask32(is_space, shift);
        block.open |= notes_json_mask32(is_open, shift);
        block.close |= notes_json_mask32(is_close, shift);
        __m256i delimiter = _mm256_or_si256(
            _mm256_or_si256(at_most_space, is_quote),
            _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(text, _mm256_set1_epi8(',')),
                                            _mm256_cmpeq_epi8(text, _mm256_set1_epi8(':'))),
                            _mm256_or_si256(is_open, is_close)));
        block.delimiter |= notes_json_mask32(delimiter, shift);
    }
    return block;
}

__attribute__((target("avx512f,avx512bw"))) static inline notes_json_utf8 utf8_avx512(const uint8_t *bytes) {
    __m512i text = _mm512_loadu_si512((const void *)bytes);
    uint64_t plane[8];
    for (int k = 0; k < 8; k++) plane[k] = _mm512_test_epi8_mask(text, _mm512_set1_epi8((char)(1 << k)));
    return notes_json_utf8_from_planes(plane);
}

__attribute__((target("avx2"))) static inline notes_json_utf8 utf8_avx2(const uint8_t *bytes) {
    uint64_t plane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int part = 0; part < 2; part++) {
        __m256i text = _mm256_loadu_si256((const __m256i *)(bytes + 32 * part));
        int shift = 32 * part;
        // As in notes_json_utf8_check: bit k of each byte moved to its top, where movemask reads it.
        for (int k = 0; k < 8; k++) plane[k] |= notes_json_mask32(_mm256_slli_epi16(text, 7 - k), shift);
    }
    return notes_json_utf8_from_planes(plane);
}

__attribute__((target("pclmul"))) static inline uint64_t prefix_xor_clmul(uint64_t bits) {
    // A carry-less multiplication by all ones: bit i is the XOR of bits 0...i.
    return (uint64_t)_mm_cvtsi128_si64(_mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)bits), _mm_set1_epi8((char)0xFF), 0));
}

__attribute__((target("avx2,popcnt,lzcnt,bmi,pclmul"))) static int64_t scan_avx2(
    const uint8_t *bytes, int64_t count, int64_t start, int64_t max_token_bytes, int64_t max_depth,
    notes_json_scan_state *state) {
    return scan_blocks(bytes, count, start, max_token_bytes, max_depth, state, classify_avx2, utf8_avx2,
                       prefix_xor_clmul);
}

__attribute__((target("avx512f,avx512bw,avx2,popcnt,lzcnt,bmi,pclmul"))) static int64_t scan_avx512(
    const uint8_t *bytes, int64_t count, int64_t start, int64_t max_token_bytes, int64_t max_depth,
    notes_json_scan_state *state) {
    return scan_blocks(bytes, count, start, max_token_bytes, max_depth, state, classify_avx512, utf8_avx512,
                       prefix_xor_clmul);
}

notes_json_block notes_json_classify_avx512(const uint8_t *bytes) { return classify_avx512(bytes); }
notes_json_block notes_json_classify_avx2(const uint8_t *bytes) { return classify_avx2(bytes); }
notes_json_utf8 notes_json_utf8_avx512(const uint8_t *bytes) { return utf8_avx512(bytes); }
notes_json_utf8 notes_json_utf8_avx2(const uint8_t *bytes) { return utf8_avx2(bytes); }

#else

int notes_json_wide_classifier(void) { return 0; }
notes_json_block notes_json_classify_avx512(const uint8_t *bytes) { return notes_json_classify(bytes); }
notes_json_block notes_json_classify_avx2(const uint8_t *bytes) { return notes_json_classify(bytes); }
notes_json_utf8 notes_json_utf8_avx512(const uint8_t *bytes) { return notes_json_utf8_check(bytes); }
notes_json_utf8 notes_json_utf8_avx2(const uint8_t *bytes) { return notes_json_utf8_check(bytes); }

#endif

int64_t notes_json_scan_blocks(const uint8_t *bytes, int64_t count, int64_t start, int64_t max_token_bytes,
                               int64_t max_depth, int classifier, notes_json_scan_state *state) {
#if NOTES_JSON_WIDE_LOOPS
    if (classifier == 2) return scan_avx512(bytes, count, start, max_token_bytes, max_depth, state);
    if (classifier == 1) return scan_avx2(bytes, count, start, max_token_bytes, max_depth, state);
#endif
    (void)classifier;  // always 0 elsewhere
    return scan_narrow(bytes, count, start, max_token_bytes, max_depth, state);
}
