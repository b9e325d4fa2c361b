// The emulator's own fiber switch on x86-64 ELF (fiber_switch.h says why it is not Boost's).
//
// A context is the stack pointer of a fiber that stopped in reduce_emu_jump_fcontext: at it, the
// six registers the System V ABI has a callee keep (r12-r15, rbx, rbp), then the address the
// jump returns to. Jumping saves the caller's registers under its return address, takes the other
// stack, restores that context's registers and returns there; the context it left comes back in
// rax (and as the first argument, rdi, of a context's entry function), the data word in rdx (rsi).
//
// A new context (reduce_emu_make_fcontext) holds the entry function in rbx's slot and returns to a
// trampoline that calls it with the stack aligned as the ABI wants at a call (16 bytes). Entry
// functions never return (they jump away for good); if one did, ud2 stops the process.
#include "fiber_switch.h"

#if defined(REDUCE_EMU_OWN_SWITCH)
asm(R"(
  .text
  .globl reduce_emu_jump_fcontext
  .hidden reduce_emu_jump_fcontext
  .type reduce_emu_jump_fcontext, @function
  .p2align 4
reduce_emu_jump_fcontext:
  pushq %rbp
  pushq %rbx
  pushq %r15
  pushq %r14
  pushq %r13
  pushq %r12
  movq %rsp, %rax
  movq %rdi, %rsp
  popq %r12
  popq %r13
  popq %r14
  popq %r15
  popq %rbx
  popq %rbp
  movq %rsi, %rdx
  movq %rax, %rdi
  ret
  .size reduce_emu_jump_fcontext, .-reduce_emu_jump_fcontext

  .globl reduce_emu_make_fcontext
  .hidden reduce_emu_make_fcontext
  .type reduce_emu_make_fcontext, @function
  .p2align 4
reduce_emu_make_fcontext:
  movq %rdi, %rax
  andq $-16, %rax
  leaq -0x48(%rax), %rax
  movq %rdx, 0x20(%rax)
  movq $0, 0x28(%rax)
  leaq reduce_emu_fiber_trampoline(%rip), %rcx
  movq %rcx, 0x30(%rax)
  ret
  .size reduce_emu_make_fcontext, .-reduce_emu_make_fcontext

  .p2align 4
reduce_emu_fiber_trampoline:
  callq *%rbx
  ud2
)");
#endif
