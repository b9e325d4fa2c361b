// The labs, as grader/labs.json declares them: where their source and docs live, what the book
// calls them, what they are timed against and must reach, and what their checks run. The
// manifest is compiled into the grader (its text, read here with nlohmann/json), so a grader
// always knows exactly the labs whose tests were compiled into it. CMake, ./lab and the
// Python tools read the same file; docs/instructors.md ("Adding a lab") describes its fields.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <reduce_lab/abi.h>

namespace reduce_lab::grader {

struct LabInfo {
  int number = 0;
  std::string name;     // as in CTest and the table: "shared-memory"
  std::string stem;     // file stem: labs/<stem>.cu, solutions/<stem>.cu
  std::string doc;      // docs/<page>.md
  std::string figure;   // the book figure the kernel implements
  std::string revisit;  // the idea a failure points back to, when nothing more precise does
  // How the grader drives it (abi.h): multipass labs are the book's single-block kernels, n a
  // power of two, their requests equal to the book kernel's model; single and generic labs
  // reduce any n in one call and are held to traffic bounds (generic: every type and op); row
  // labs reduce each row of any m x n matrix, every type and op.
  LabKind kind = LabKind::single;
  int baseline = 0;     // the lab it is timed against; 0: the sequential CPU loop of Fig. 10.1
  // Default gates; CMake's REDUCE_LAB_MIN_SPEEDUP_LAB<N> (and _MIN_BANDWIDTH_) override them.
  double min_speedup = 0;
  std::optional<double> min_bandwidth;  // fraction of the copy bandwidth; only where the lesson is bandwidth
  // Plan parameters. Multipass labs: the book kernel whose model their requests must equal.
  std::string book_model;
  // Single and generic labs: elements one block covers (0: one atomic per block launched) and the
  // most barriers a block may execute (0: not graded).
  std::size_t elements_per_block = 0;
  unsigned max_barriers_per_block = 0;
  // Labs graded in several variants of one kernel (lab 9: the tree's fan-in K), each passed to
  // the module as Call::variant; {0} for a lab without (the module's only form). Where the
  // variants are fan-ins, a block may execute one barrier per step of its tree,
  // ceil(log_K(block size)) (labs.json: "max_barriers_per_block": "ceil(log_K(block size))").
  std::string variant_name;  // "K"; empty for a lab without variants
  std::vector<unsigned> variants{0};
  // Block sizes the variants also run in besides the module's own (labs.json's variants
  // "block_sizes": lab 9's 512, 256 and 128 threads beside its 1024): some correctness cases and
  // ./lab bench pass the size to the module with the variant (with_block_size). Empty: none.
  std::vector<unsigned> block_sizes;
  bool barriers_per_fan_in_step = false;
  // A lab whose speed test times its own choice of a parameter against a sweep of it, at each of
  // `sizes` (lab 10: the coarsening factor, labs.json's plan "sweep"); the module runs its choice
  // at Call::variant 0 and a forced value at any other. `device_filling`: the sweep also runs the
  // value that makes one wave of blocks fill the device. The choice's speed must reach the lab's
  // min_speedup of the sweep's fastest at every size. Empty `values`: no sweep.
  struct Sweep {
    std::string name;  // "COARSE_FACTOR"
    std::vector<unsigned> values;
    bool device_filling = false;
    std::vector<std::size_t> sizes;
  } sweep;
  // An order lab (12): its variants are trees of earlier labs, run with Sum (graded for
  // correctness) and with Order (abi.h); `keeps_order` lists the trees whose result must keep
  // the input's order, and every other tree must not. Its requests and speed are not graded.
  bool order_probe = false;
  std::vector<unsigned> keeps_order;
  // The tree's shared-memory wavefronts at most a conflict-free convergent tree's (shared_checks.hpp).
  bool shared_tree_bound = false;
  std::vector<DType> dtypes{DType::f32};
  std::vector<Op> ops{Op::sum};
  // Checks the lab does not have, and why (labs.json's "not_graded": lab 12's requests and speed).
  // CMake skips their tests with that reason; ./lab bench leaves a lab without a speed test out.
  std::vector<std::pair<std::string, std::string>> not_graded;
  // Default points per check; grader/points.json overrides them lab by lab.
  std::vector<std::pair<std::string, double>> points;
};

// Every lab, in order of number (1, 2, ... with no gap). Throws std::runtime_error naming the
// field when the manifest compiled in is malformed (the kit's own suite loads it first).
const std::vector<LabInfo>& labs();
int lab_count();
bool is_lab(int number);
// N of a key "labN" (N without leading zeros, as report.json, points.json and test names write
// it); 0 for any other text, including a number that is not a lab of this kit.
int lab_key_number(std::string_view key);

// Throws std::out_of_range for a number that is not a lab.
const LabInfo& lab_info(int number);

// The graded checks of every lab, in the table's order: correctness, requests, speedup, races.
const std::vector<std::string>& check_names();

// Whether lab `number` has the check (not among its "not_graded").
bool has_check(int number, const std::string& check);

// "lab 3 (shared-memory)"
std::string lab_title(int number);

// "3 shared-memory", padded with blanks to the first column of a table of labs (the grade's
// table, the staircase, the calibration): wide enough for every lab of the manifest and a blank,
// so a long name ("11 neighbored-less") never runs into the next column. `text` pads another
// row's title ("lab", "CUB") to the same width.
std::string lab_row_title(int number);
std::string lab_row_title(const std::string& text);

// How a case names a variant of lab `number`: "K = 4", "K = 4, 512 threads a block"; empty for
// variant 0 or a lab without.
std::string variant_text(int number, unsigned variant);

// A variant run in blocks of `block_size` threads (Call::variant's bits above 16, module.cuh), and
// its two parts back: the variant itself and the block size (0: the module's own).
unsigned with_block_size(unsigned variant, unsigned block_size);
// The block size of a variant without block-size bits (module.cuh: REDUCE_LAB_FAN_IN's 1024).
constexpr unsigned kVariantOwnBlockSize = 1024;
unsigned variant_value(unsigned variant);
unsigned variant_block_size(unsigned variant);

// Where the lab being graded lives, for messages: "labs/03_shared_memory.cu".
std::string lab_source(int number);

// The manifest's text as compiled in, and the parser behind labs(), for a test to feed it others.
const char* manifest_text();
std::vector<LabInfo> parse_manifest(const std::string& text, std::vector<std::string>* checks = nullptr);

}  // namespace reduce_lab::grader
