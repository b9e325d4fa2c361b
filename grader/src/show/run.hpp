// One small run of a lab on the emulator with the record on: what a picture is drawn from.
// Emulator builds only (the record is the emulator's).
#pragma once

#include <cstddef>
#include <string>

#include <reduce_lab/abi.h>

#include "show/layout.hpp"

namespace reduce_lab::grader::show {

// The size a lab is drawn at unless asked otherwise: the book's figures (16 elements, one block
// of 8 threads) for the labs whose kernels are the book's single-block trees; for the others
// 4096, a 1024-thread block's segment coarsened twice (labs 5-6; lab 4 takes two blocks); a
// row lab's matrix of 4 rows of 10 (n elements make 4 rows of n / 4).
std::size_t default_size(const ModuleInfo& module);

// Why `n` cannot be drawn for this lab (empty when it can): the multipass labs reduce whole
// segments, so n is a power of two; a row lab's n fills 4 rows; and the picture is for small runs.
std::string size_problem(const ModuleInfo& module, std::size_t n);

// The variant a lab with variants is drawn in (catalog.hpp): the first after its baseline one,
// lab 9's K = 4, whose steps add four values each; 0 for a lab without.
unsigned drawn_variant(const ModuleInfo& module);

struct RecordedRun {
  Picture picture;
  std::string variant;  // "K = 4" where the lab has variants (drawn_variant); empty otherwise
  bool ran = false;   // the pass ended without a fault
  std::string error;  // its fault otherwise, as the grader reports it
  double value = 0;   // output[0] after the one pass (multipass: the block-0 partial sum)
  bool todo = false;  // the kernel still runs REDUCE_LAB_TODO(): not started, nothing to draw
};

// Runs one pass (one call) of `module` on n float inputs 1, 2, 3, 1, 2, 3, ... (exact sums), summed,
// in `variant` (0: its drawn variant), under a fixed thread order so a picture is the same every
// time.
RecordedRun record_run(const ModuleInfo& module, std::size_t n, unsigned variant = 0);

// Why `variant` cannot be drawn for this lab (empty when it can): it must be one of its variants.
std::string variant_problem(const ModuleInfo& module, unsigned variant);

}  // namespace reduce_lab::grader::show
