// The contract between the grader and one compiled lab module (a shared object per lab and
// build flavour). Plain types only: the grader is compiled once, each lab several times
// (gpu, gpu-counted, emu), and a broken lab must never stop the grader from loading.
#pragma once

namespace reduce_lab {

constexpr int kAbiVersion = 7;

// Kinds of global-memory access the counters tell apart (design §4).
enum class Access : int { load = 0, store = 1, atomic = 2 };
constexpr int kAccessKinds = 3;

// What the counting builds add up while a lab runs. A request is one distinct 128-byte
// segment touched by one warp-level memory instruction; a sector the same at 32 bytes.
struct Counters {
  unsigned long long instructions[kAccessKinds];  // warp-level memory instructions
  unsigned long long requests[kAccessKinds];      // 128-byte segments, summed over instructions
  unsigned long long sectors[kAccessKinds];       // 32-byte sectors, summed over instructions
  unsigned long long active_lanes[kAccessKinds];  // lanes that took part in those instructions
  unsigned long long bytes[kAccessKinds];         // bytes those lanes accessed
  unsigned long long barrier_warps;               // __syncthreads, counted once per arriving warp
  // Sectors an instruction may share with the instructions beside it: where its lanes read one
  // contiguous run of distinct addresses, the partly covered sectors at the run's two ends
  // (run_seams.h). Every byte loaded once in such runs costs at most ceil(bytes / 32) + these.
  unsigned long long seam_sectors[kAccessKinds];

  // Shared memory (design §11), by the same kinds. A wavefront is one pass of the 32 banks
  // (4 bytes each) serving part of a warp instruction; conflicts are the wavefronts beyond
  // the instruction's ideal (one per 32-, 16- or 8-lane phase of a 4-, 8- or 16-byte access).
  unsigned long long shared_instructions[kAccessKinds];
  unsigned long long shared_wavefronts[kAccessKinds];
  unsigned long long shared_conflicts[kAccessKinds];
  unsigned long long shared_active_lanes[kAccessKinds];
  unsigned long long shared_bytes[kAccessKinds];
};

enum class DType : int { f32 = 0, f64 = 1, i32 = 2 };
// order: lab 12's probe of the order of operations, on int only (order_probe.h).
enum class Op : int { sum = 0, max = 1, min = 2, order = 3 };
constexpr int kDTypes = 3;
constexpr int kOps = 4;

// How the grader drives a lab.
enum class LabKind : int {
  multipass = 0,  // labs 1-3: one call reduces each 2*blockDim segment; the grader repeats passes
  single = 1,     // labs 4-6: one call reduces any n to output[0] (float sum)
  generic = 2,    // lab 7: as single, for every (type, op) the module supports
  rows = 3,       // lab 8: output[r] = the reduction of row r of a rows x n matrix, every (type, op)
};

// Host-side record of what launch() started during one call.
struct LaunchStats {
  unsigned long long launches;
  unsigned long long blocks;
  unsigned long long warps;
};

// One call from the grader into a lab module.
struct Call {
  DType dtype;
  Op op;
  void* input;                   // device memory; multipass labs overwrite it
  unsigned long long n;          // elements in input; for a row lab, in each row of it
  unsigned long long rows;       // row labs: rows of the row-major matrix in input, outputs to write
  void* output;                  // device memory
  unsigned long long output_capacity;
  Counters* device_counters;     // counting builds add here (device memory); null otherwise
  int synchronize;               // wait for the kernels and check their errors before returning
  unsigned variant;              // labs with variants (lab 9's fan-in K, lab 12's tree): which one; 0 the
                                 // module's first. Lab 9: the block size in the bits above 16 (module.cuh)

  // Filled in by the module.
  unsigned long long outputs_written;  // multipass: values this pass produced
  LaunchStats launches;
  int todo;                            // the kernel still executed REDUCE_LAB_TODO()
  unsigned variant_used;               // the variant it ran: for variant 0, the module's own choice
                                       // (lab 10: the coarsening factor its host code chose for n)
  char error[2048];                    // set when run() returns non-zero
};

struct ModuleInfo {
  int abi_version;
  int lab;                // 1, 2, ...
  const char* name;       // "simple", "convergent", ...
  LabKind kind;
  int counting;           // 1 when accesses are counted (gpu-counted and emu builds)
  const char* backend;    // "gpu", "gpu-counted" or "emu"
  int (*supports)(DType, Op);
  int (*run)(Call*);      // 0 on success; otherwise Call::error says why
};

}  // namespace reduce_lab

extern "C" const reduce_lab::ModuleInfo* reduce_lab_module(void);
