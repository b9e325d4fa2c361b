#include "base/faults.hpp"

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstring>

namespace reduce_lab::grader {

namespace {

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

bool contains_any(const std::string& text, std::initializer_list<const char*> parts) {
  for (const char* part : parts)
    if (contains(text, part)) return true;
  return false;
}

// "file:line" right after " at " at position `at`, if the text there is one: a file name without
// spaces, parentheses or colons, a colon, digits.
std::string place_at(const std::string& text, std::size_t at) {
  const std::size_t begin = at + 4;
  std::size_t colon = begin;
  while (colon < text.size() && !std::isspace(static_cast<unsigned char>(text[colon])) && text[colon] != '(' &&
         text[colon] != ')' && text[colon] != ':')
    ++colon;
  if (colon == begin || colon >= text.size() || text[colon] != ':') return "";
  std::size_t end = colon + 1;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  return end > colon + 1 ? text.substr(begin, end - begin) : "";
}

// The first place a deadlock report names after a wait ("wait at __syncthreads() at
// 04_segmented.cu:27" or "wait in __syncwarp(...) at ..."): the file and line, on the wait's line.
std::string first_wait_place(const std::string& text) {
  for (std::size_t wait = text.find("wait "); wait != std::string::npos; wait = text.find("wait ", wait + 1)) {
    if (text.compare(wait + 5, 3, "at ") != 0 && text.compare(wait + 5, 3, "in ") != 0) continue;
    const std::size_t line_end = std::min(text.find('\n', wait), text.size());
    for (std::size_t at = text.find(" at ", wait + 8); at != std::string::npos && at < line_end;
         at = text.find(" at ", at + 1)) {
      const std::string place = place_at(text, at);
      if (!place.empty()) return place;
    }
  }
  return "";
}

}  // namespace

Fault classify_fault(const std::string& text) {
  Fault fault;
  if (text.empty()) return fault;
  if (contains(text, "emulator: deadlock")) {
    fault.kind = FaultKind::deadlock;
    // "threads 0-511: wait at __syncthreads() at 04_segmented.cu:27": the first place named.
    fault.place = first_wait_place(text);
    return fault;
  }
  // Checked before the others: the race message names the accesses it found, and an access
  // around Global<T> may also end as an address fault.
  if (contains(text, "emulator: race between blocks")) {
    fault.kind = FaultKind::block_race;
  } else if (contains(text, "around Global")) {
    fault.kind = FaultKind::around_global;
  } else if (contains(text, "is misaligned")) {  // memcheck's word for an unaligned access
    fault.kind = FaultKind::illegal_address;
  } else if (contains_any(text, {"out-of-bounds", "Invalid __global__ read", "Invalid __global__ write",
                                 "Invalid __global__ atomic", "is out of bounds"})) {
    fault.kind = FaultKind::out_of_bounds;
  } else if (contains_any(text, {"time limit", "cudaErrorLaunchTimeout", "did not finish within"})) {
    fault.kind = FaultKind::time_limit;
  } else if (contains_any(text, {"cudaErrorIllegalAddress", "cudaErrorMisalignedAddress", "cudaErrorIllegalInstruction",
                                 "cudaErrorInvalidAddressSpace", "cudaErrorInvalidPc", "cudaErrorHardwareStackError",
                                 "cudaErrorLaunchFailure", "not inside any live cudaMalloc allocation",
                                 "Invalid __shared__"})) {
    fault.kind = FaultKind::illegal_address;
  } else if (contains_any(text, {"segmentation fault", "bus error", "killed by SIG",
                                 // The emulator's word for host code dereferencing device memory,
                                 // which on a GPU ends the process with SIGSEGV: the same fault.
                                 "host code accessed device memory"})) {
    fault.kind = FaultKind::crash;
  } else {
    fault.kind = FaultKind::failed;
  }
  return fault;
}

std::string fault_summary(const Fault& fault, const std::string& where) {
  switch (fault.kind) {
    case FaultKind::none: return "ok";
    case FaultKind::deadlock: return fault.place.empty() ? "deadlock: " + where : "deadlock at " + fault.place;
    case FaultKind::block_race: return "race between blocks: " + where;
    case FaultKind::time_limit: return "time limit: " + where;
    case FaultKind::out_of_bounds: return "out of bounds: " + where;
    case FaultKind::illegal_address: return "illegal address: " + where;
    case FaultKind::around_global: return "access around Global: " + where;
    case FaultKind::crash: return "crash: " + where;
    case FaultKind::failed: return "failed: " + where;
  }
  return "failed: " + where;
}

const char* fault_name(FaultKind kind) {
  switch (kind) {
    case FaultKind::none: return "no fault";
    case FaultKind::deadlock: return "a deadlock";
    case FaultKind::block_race: return "a race between blocks";
    case FaultKind::time_limit: return "a time limit";
    case FaultKind::out_of_bounds: return "an out-of-bounds access";
    case FaultKind::illegal_address: return "an illegal address";
    case FaultKind::around_global: return "an access around Global<T>";
    case FaultKind::crash: return "a crash";
    case FaultKind::failed: return "an error";
  }
  return "an error";
}

const char* fault_hint(FaultKind kind) {
  switch (kind) {
    case FaultKind::deadlock:
      return "a __syncthreads() inside a branch or a loop that not every thread of the block reaches (an if on "
             "threadIdx, an early return, a loop whose trip count differs between threads): every thread of a "
             "block must reach every barrier.";
    case FaultKind::block_race:
      return "blocks of one launch run in no set order and at the same time, so each block combines its result "
             "into the output with one atomicAdd (not a store, not output[0] += ..., whose read and write another "
             "block's can fall between); a block reads another block's stores only after that block's "
             "__threadfence() and an atomic its own atomic observes (docs/04-segmented.md).";
    case FaultKind::time_limit:
      return "a loop whose condition never changes (a stride that never reaches its end, an index that is never "
             "advanced), or a thread waiting for another one without a barrier.";
    case FaultKind::out_of_bounds:
      return "bounds: every read input[i] needs i < n (use the op's identity for the missing elements), and only "
             "the outputs the lab owns may be written.";
    case FaultKind::illegal_address:
      return "the index arithmetic: an index far past the input (a segment or stride that is too large, an "
             "unsigned value that wrapped below 0), or an access that is not aligned to its size.";
    case FaultKind::around_global:
      return "device memory is read and written only through Global<T> (input[i], output[0], atomicAdd(output, "
             "v)); a raw pointer taken from it is neither checked nor counted.";
    case FaultKind::crash:
      return "a crash of the whole process: an access through a raw pointer, or a large local array in a "
             "kernel (the emulator's threads have small stacks).";
    case FaultKind::none:
    case FaultKind::failed: return "";
  }
  return "";
}

std::string signal_text(int signal_number) {
  const char* name = nullptr;
  switch (signal_number) {
    case SIGSEGV: name = "SIGSEGV"; break;
    case SIGABRT: name = "SIGABRT"; break;
    case SIGBUS: name = "SIGBUS"; break;
    case SIGFPE: name = "SIGFPE"; break;
    case SIGILL: name = "SIGILL"; break;
    case SIGKILL: name = "SIGKILL"; break;
    case SIGTERM: name = "SIGTERM"; break;
    case SIGINT: name = "SIGINT"; break;
  }
  const std::string description = strsignal(signal_number);
  return (name ? std::string(name) : "signal " + std::to_string(signal_number)) + " (" + description + ")";
}

}  // namespace reduce_lab::grader
