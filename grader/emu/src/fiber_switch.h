// Switching between fibers: Boost.Context's fcontext interface (make_fcontext sets up a context
// on a stack; jump_fcontext saves the caller's, enters another and returns, with the context it
// left, when something jumps back). Not part of the emulator's interface.
//
// On x86-64 ELF (Linux) the emulator has its own two routines with that interface
// (fiber_switch.cpp); elsewhere, and with REDUCE_EMU_BOOST_SWITCH, Boost's. Boost's x86-64 jump
// enters the other context with an indirect jmp, so the `call` that began it is never matched by
// a `ret`: the CPU's return predictor is then one entry off, and the next returns of the fiber it
// entered (out of the sync call, out of __syncthreads) are mispredicted, two a switch. Ours
// returns with `ret`; every fiber of a block leaves and resumes at the same call site, so that
// return is predicted, and so are those after it. It also leaves out the floating-point control
// words (MXCSR, x87), which Boost saves and restores at every switch: nothing the emulator runs
// changes them (device code cannot call fesetround), and its fibers share their worker thread's.
// Lab 4's correctness test, two cores: 2.51 s of CPU against Boost's 3.76 s (its 100 million
// switches are most of its time).
#pragma once

#include <cstddef>

#if defined(__x86_64__) && defined(__ELF__) && !defined(REDUCE_EMU_BOOST_SWITCH)
#define REDUCE_EMU_OWN_SWITCH 1

namespace reduce_emu {
namespace detail {
namespace fiber {

using fcontext_t = void*;
struct transfer_t {
  fcontext_t fctx;  // the context the jump came from (to jump back to)
  void* data;
};

extern "C" transfer_t reduce_emu_jump_fcontext(fcontext_t to, void* data) __attribute__((visibility("hidden")));
extern "C" fcontext_t reduce_emu_make_fcontext(void* stack_top, std::size_t size, void (*entry)(transfer_t))
    __attribute__((visibility("hidden")));

inline transfer_t jump_fcontext(fcontext_t to, void* data) { return reduce_emu_jump_fcontext(to, data); }
inline fcontext_t make_fcontext(void* stack_top, std::size_t size, void (*entry)(transfer_t)) {
  return reduce_emu_make_fcontext(stack_top, size, entry);
}

}  // namespace fiber
}  // namespace detail
}  // namespace reduce_emu

#else
#include <boost/context/detail/fcontext.hpp>

namespace reduce_emu {
namespace detail {
namespace fiber {
using boost::context::detail::fcontext_t;
using boost::context::detail::jump_fcontext;
using boost::context::detail::make_fcontext;
using boost::context::detail::transfer_t;
}  // namespace fiber
}  // namespace detail
}  // namespace reduce_emu
#endif
