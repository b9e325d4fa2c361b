#include "checks/profiler_names.hpp"

#include <cstdio>

#include "checks/book_models.hpp"
#include "checks/check_messages.hpp"

namespace reduce_lab::grader {

namespace {

struct Name {
  const char* nvprof;
  const char* ncu;
};

std::string ratio(double part, double whole, const char* pattern) {
  return whole > 0 ? format(pattern, part / whole) : std::string("-");
}

}  // namespace

std::string profiler_names_text(const Counters& c, unsigned long long warps) {
  const double ld = static_cast<double>(c.sectors[0]), st = static_cast<double>(c.sectors[1]);
  const double memory_instructions = static_cast<double>(c.instructions[0] + c.instructions[1] + c.instructions[2]);
  struct Row {
    Name name;
    std::string kit;
  };
  const Row rows[] = {
      {{"gld_transactions", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"},
       "load sectors " + std::to_string(c.sectors[0])},
      {{"gst_transactions", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"},
       "store sectors " + std::to_string(c.sectors[1])},
      {{"gld_transactions_per_request",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
       "load sectors / load instructions " + ratio(ld, static_cast<double>(c.instructions[0]), "%.2f") +
           " (Nsight Compute's requests are the kit's warp instructions; the kit's requests are 128-byte segments)"},
      {{"gld_efficiency", "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"},
       "bytes loaded / (32 x load sectors) " + ratio(100.0 * static_cast<double>(c.bytes[0]), 32 * ld, "%.2f%%")},
      {{"gst_efficiency", "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"},
       "bytes stored / (32 x store sectors) " + ratio(100.0 * static_cast<double>(c.bytes[1]), 32 * st, "%.2f%%")},
      {{"shared_load_transactions", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"},
       "shared load wavefronts " + std::to_string(c.shared_wavefronts[0])},
      {{"shared_store_transactions", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"},
       "shared store wavefronts " + std::to_string(c.shared_wavefronts[1])},
      {{"shared_load_transactions_per_request",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum / smsp__sass_inst_executed_op_shared_ld.sum"},
       "shared load wavefronts / shared load instructions " +
           ratio(static_cast<double>(c.shared_wavefronts[0]), static_cast<double>(c.shared_instructions[0]), "%.2f")},
      {{"inst_per_warp", "smsp__average_inst_executed_per_warp.ratio"},
       "not the same: the kit counts global-memory instructions only, " +
           ratio(memory_instructions, static_cast<double>(warps), "%.1f") + " a warp"},
      {{"warp_execution_efficiency", "smsp__thread_inst_executed_per_inst_executed.ratio / 32"},
       "not the same: the kit's SIMD efficiency is over global-memory instructions only, " +
           format("%.1f%%", 100 * simd_efficiency(c))},
      {{"achieved_occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"}, "not counted by the kit"},
  };
  std::string text = "the profilers' names (nvprof | Nsight Compute | the kit's figure of this pass):\n";
  for (const Row& row : rows)
    text += std::string("  ") + row.name.nvprof + " | " + row.name.ncu + " | " + row.kit + "\n";
  return text;
}

}  // namespace reduce_lab::grader
