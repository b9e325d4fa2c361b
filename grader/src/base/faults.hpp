// What kind of failure ended a lab call or a test process, read from the text that reported
// it (the emulator's fault, a CUDA error, compute-sanitizer's report) or from how the process
// ended. The table then says "deadlock at 04_segmented.cu:27" or "out of bounds: n = 3"
// instead of "wrong" or "crashed", and the message names the idea that such a fault points to.
#pragma once

#include <string>

namespace reduce_lab::grader {

enum class FaultKind {
  none,
  deadlock,         // a barrier or warp collective some threads never reach (emulator)
  block_race,       // two blocks of a launch touch one word, unordered (emulator)
  time_limit,       // the emulator's or the grader's limit, or cudaErrorLaunchTimeout
  out_of_bounds,    // an access past the allocation (emulator, compute-sanitizer memcheck)
  illegal_address,  // the GPU's illegal or misaligned address, an unspecified launch failure
  around_global,    // device memory touched without Global<T> (emulator)
  crash,            // the process died of a signal
  failed,           // any other error the lab's call reported
};

struct Fault {
  FaultKind kind = FaultKind::none;
  std::string place;  // deadlock: FILE:LINE of the first waiting thread, when the report names one
};

// Classifies the error text of a failed lab call, or the last output of a process.
Fault classify_fault(const std::string& text);

// The table's summary: "deadlock at 04_segmented.cu:27", "time limit: n = 5",
// "out of bounds: float max n = 31" ... `where` is the case, "n = 31" or "float max n = 31".
std::string fault_summary(const Fault& fault, const std::string& where);

// "a deadlock", "an out-of-bounds access" ...: for sentences.
const char* fault_name(FaultKind kind);

// The idea a fault of this kind points to; empty for `failed` (the lab's own idea then).
const char* fault_hint(FaultKind kind);

// "SIGSEGV (segmentation fault)".
std::string signal_text(int signal_number);

}  // namespace reduce_lab::grader
