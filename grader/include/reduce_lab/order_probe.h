// Lab 12's operator: an associative operator that is not commutative, built so that its result
// says what order a tree combined the input in. Element i of the input stands for position i;
// a value stands for the sequence of positions it was combined from, in operand order (a then
// b for order(a, b): string concatenation of the positions), kept as four facts about that
// sequence: its smallest and largest position, whether it runs lo, lo + 1, ..., hi (in order),
// and whether it runs hi, hi - 1, ..., lo (mirrored). Each fact of a concatenation follows from
// the facts of its two parts, so the operator is associative, as a reduction needs, and the
// result does not depend on how a tree groups the sequence, only on the sequence itself:
// a reduction of n elements keeps order when its result is "0 .. n-1, in order".
// Plain C++ so that the grader, the emulator and the GPU all compute it from this one text.
#pragma once

#if defined(__CUDACC__)
#define REDUCE_LAB_ORDER_PROBE_FN __host__ __device__ inline
#else
#define REDUCE_LAB_ORDER_PROBE_FN inline
#endif

namespace reduce_lab::order_probe {

// An int's bits: hi in bits 0-14, lo in bits 15-29, in order bit 30, mirrored bit 31.
constexpr unsigned kPositionBits = 15;
constexpr unsigned kPositionMask = (1u << kPositionBits) - 1;
constexpr unsigned kInOrder = 1u << 30;
constexpr unsigned kMirrored = 1u << 31;
// Positions 0 .. 32767: lab 12 probes at most 2^15 elements.
constexpr unsigned long long kMaxElements = 1ull << kPositionBits;
// The identity (a missing element, the empty sequence): lo 32767 above hi 0, which no sequence has.
constexpr unsigned kIdentityBits = kInOrder | kMirrored | kPositionMask << kPositionBits;

REDUCE_LAB_ORDER_PROBE_FN unsigned low(unsigned v) { return v >> kPositionBits & kPositionMask; }
REDUCE_LAB_ORDER_PROBE_FN unsigned high(unsigned v) { return v & kPositionMask; }
REDUCE_LAB_ORDER_PROBE_FN unsigned element(unsigned position) {
  return kInOrder | kMirrored | position << kPositionBits | position;
}

// The value of sequence a followed by sequence b.
REDUCE_LAB_ORDER_PROBE_FN unsigned combine(unsigned a, unsigned b) {
  if (a == kIdentityBits) return b;
  if (b == kIdentityBits) return a;
  const unsigned lo = low(a) < low(b) ? low(a) : low(b);
  const unsigned hi = high(a) > high(b) ? high(a) : high(b);
  const bool in_order = (a & kInOrder) && (b & kInOrder) && high(a) + 1 == low(b);
  const bool mirrored = (a & kMirrored) && (b & kMirrored) && high(b) + 1 == low(a);
  return (in_order ? kInOrder : 0u) | (mirrored ? kMirrored : 0u) | lo << kPositionBits | hi;
}

}  // namespace reduce_lab::order_probe
