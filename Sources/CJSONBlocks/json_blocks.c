// The inline classifiers live in include/json_blocks.h; this file holds the wider x86-64 ones, compiled
// for their instruction sets alone and called only once notes_json_wide_classifier has found them, and
// the inline ones out of line (the narrow ones).
#include "json_blocks.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
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
        unsigned int low, high;
        __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
        int ymm = (low & 0x6) == 0x6, zmm = (low & 0xE6) == 0xE6;
        if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
            if (ymm && (ebx & bit_AVX2)) found = 1;
            if (zmm && (ebx & bit_AVX512F) && (ebx & bit_AVX512BW)) found = 2;
        }
    }
    __atomic_store_n(&level, found, __ATOMIC_RELAXED);  // the same answer on every thread: a race asks twice
    return found;
}

__attribute__((target("avx512f,avx512bw")))
notes_json_block notes_json_classify_avx512(const uint8_t *bytes) {
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

__attribute__((target("avx2")))
notes_json_block notes_json_classify_avx2(const uint8_t *bytes) {
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

__attribute__((target("avx512f,avx512bw")))
notes_json_utf8 notes_json_utf8_avx512(const uint8_t *bytes) {
    __m512i text = _mm512_loadu_si512((const void *)bytes);
    uint64_t plane[8];
    for (int k = 0; k < 8; k++) plane[k] = _mm512_test_epi8_mask(text, _mm512_set1_epi8((char)(1 << k)));
    return notes_json_utf8_from_planes(plane);
}

__attribute__((target("avx2")))
notes_json_utf8 notes_json_utf8_avx2(const uint8_t *bytes) {
    uint64_t plane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int part = 0; part < 2; part++) {
        __m256i text = _mm256_loadu_si256((const __m256i *)(bytes + 32 * part));
        int shift = 32 * part;
        // As in notes_json_utf8_check: bit k of each byte moved to its top, where movemask reads it.
        for (int k = 0; k < 8; k++) plane[k] |= notes_json_mask32(_mm256_slli_epi16(text, 7 - k), shift);
    }
    return notes_json_utf8_from_planes(plane);
}

#else

int notes_json_wide_classifier(void) { return 0; }
notes_json_block notes_json_classify_avx512(const uint8_t *bytes) { return notes_json_classify(bytes); }
notes_json_block notes_json_classify_avx2(const uint8_t *bytes) { return notes_json_classify(bytes); }
notes_json_utf8 notes_json_utf8_avx512(const uint8_t *bytes) { return notes_json_utf8_check(bytes); }
notes_json_utf8 notes_json_utf8_avx2(const uint8_t *bytes) { return notes_json_utf8_check(bytes); }

#endif

notes_json_block notes_json_classify_narrow(const uint8_t *bytes) { return notes_json_classify(bytes); }
notes_json_utf8 notes_json_utf8_narrow(const uint8_t *bytes) { return notes_json_utf8_check(bytes); }
