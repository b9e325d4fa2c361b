// Shared-memory accesses (design §11): every element access of a counted __shared__ array
// (reduce_lab/shared.cuh calls count_shared_access) is logged beside the global ones, keyed by
// its call site, and grouped into the same warp instructions when the warp converges
// (counting.cpp); each grouped shared instruction then costs the wavefronts BankTally counts.

#include "internal.h"

#include <reduce_lab/bank_tally.h>

__thread unsigned char reduce_emu_shared_observed __attribute__((tls_model("initial-exec"))) = 0;

namespace reduce_emu {
namespace detail {

void count_shared_instruction(const Instruction& instruction, reduce_lab::Counters& totals) {
  reduce_lab::BankTally tally;
  for (unsigned i = 0; i < instruction.count; ++i)
    tally.add(instruction.lanes[i], instruction.addresses[i], instruction.bytes);
  tally.flush(static_cast<reduce_lab::Access>(instruction.kind - kSharedKindBase), totals);
}

void add_shared_totals(const reduce_lab::Counters& totals, reduce_lab::Counters* out) {
  for (int k = 0; k < reduce_lab::kAccessKinds; ++k) {
    __atomic_fetch_add(&out->shared_instructions[k], totals.shared_instructions[k], __ATOMIC_RELAXED);
    __atomic_fetch_add(&out->shared_wavefronts[k], totals.shared_wavefronts[k], __ATOMIC_RELAXED);
    __atomic_fetch_add(&out->shared_conflicts[k], totals.shared_conflicts[k], __ATOMIC_RELAXED);
    __atomic_fetch_add(&out->shared_active_lanes[k], totals.shared_active_lanes[k], __ATOMIC_RELAXED);
    __atomic_fetch_add(&out->shared_bytes[k], totals.shared_bytes[k], __ATOMIC_RELAXED);
  }
}

}  // namespace detail
}  // namespace reduce_emu

namespace reduce_emu {

void count_shared_access(reduce_lab::Access kind, const volatile void* address, unsigned bytes) {
  using namespace detail;
  Thread* thread = current_thread;
  if (thread == nullptr) return;  // host code: a __shared__ variable outside any kernel
  Runner& runner = *thread->runner;
  if (!runner.counting) return;
  runner.log_access(*thread, static_cast<reduce_lab::Access>(kSharedKindBase + static_cast<unsigned>(kind)),
                    reinterpret_cast<std::uintptr_t>(address), bytes, __builtin_return_address(0),
                    const_cast<const void*>(address));
}

}  // namespace reduce_emu
