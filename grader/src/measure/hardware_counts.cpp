#include "measure/hardware_counts.hpp"

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>
#include <vector>

#include "base/files.hpp"
#include "base/settings.hpp"
#include "measure/ncu_turn.hpp"
#include "measure/profile_part.hpp"

namespace reduce_lab::grader {

namespace {

// ncu's metric for each kit counter (requests are warp-level instructions in ncu's terms;
// an atomic whose result is unused is a reduction, "red").
struct Metric {
  const char* name;
  int kind;
  bool sectors;
};
const Metric kMetrics[] = {
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0, true},
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 1, true},
    {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 0, false},
    {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 1, false},
    {"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", 2, false},
    {"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", 2, false},
};

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool in_quotes = false;
  for (char c : line) {
    if (c == '"') {
      in_quotes = !in_quotes;
    } else if (c == ',' && !in_quotes) {
      fields.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(field);
  return fields;
}

// The kit's own kernel that sets an output (reduce_lab::fill, reduce_lab/launch.cuh): not the
// lab's traffic, so ncu does not profile it and its report's rows of it are not read.
constexpr const char* kFillKernel = "fill_kernel";

}  // namespace

ProfiledRun profile_self(const std::vector<std::string>& arguments) {
  ProfiledRun run;
  const std::string ncu = settings().ncu;
  if (ncu.empty()) {
    run.why_not = "Nsight Compute (ncu) was not found with the CUDA toolkit";
    return run;
  }
  const std::string self = own_executable();
  if (self.empty()) {
    run.why_not = "the grader could not find its own executable";
    return run;
  }
  std::string metrics;
  for (const Metric& m : kMetrics) metrics += std::string(metrics.empty() ? "" : ",") + m.name;
  std::string profiled = quoted(self);
  for (const std::string& argument : arguments) profiled += " " + quoted(argument);
  // The counters are instructions and sectors requested, not hits or durations: neither the
  // caches' contents between replay passes nor the clocks change them, so ncu neither flushes
  // the caches nor locks the clocks (lab 4 at 2^26 on an H200, ncu run alone: 2.5-2.6 s instead
  // of 3.4-3.6 s; within the GPU suite the speed tests' ncu phase showed no clear difference).
  // The profiled process keeps no results folder: a call of it slowed by the profiler (whose
  // replays, and whose wait for another process's profiling, its time limit also counts) must not
  // leave a note that stops the lab's later tests in this grade as if it had hung (lab_runner.cpp).
  // Only the lab's own kernels are profiled: those inside a part's range (measure/profile_part.hpp)
  // but for the kit's fill kernel.
  const std::string filters = " --nvtx --nvtx-include " + quoted(std::string("regex:") + kProfilePartPrefix + "/") +
                              " --kernel-name " + quoted(std::string("regex:^(?!") + kFillKernel + ")");
  const std::string command = "env -u REDUCE_LAB_RESULTS_DIR " + quoted(ncu) +
                              " --cache-control none --clock-control none --csv --print-units base" + filters +
                              " --metrics " + metrics + " " + profiled + " 2>&1";
  std::string output;
  int status = 0;
  {
    const NcuTurn turn;  // held until ncu has ended: no other grader's ncu waits inside its lab
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) {
      run.why_not = "ncu could not be started";
      return run;
    }
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
    status = pclose(pipe);
  }
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (output.find("ERR_NVGPUCTRPERM") != std::string::npos) {
    run.why_not = "this machine does not let users read the GPU's performance counters (ERR_NVGPUCTRPERM)";
    return run;
  }
  ProfiledRun parsed = parse_profiled_output(output);
  parsed.output = std::move(output);
  parsed.exit_status = run.exit_status;
  return parsed;
}

ProfiledRun parse_profiled_output(const std::string& output) {
  ProfiledRun run;
  std::istringstream lines(output);
  std::string line;
  int kernel_column = -1, range_column = -1, metric_column = -1, value_column = -1;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '"') continue;
    const std::vector<std::string> fields = csv_fields(line);
    if (kernel_column < 0) {
      for (int i = 0; i < static_cast<int>(fields.size()); ++i) {
        if (fields[i] == "Kernel Name") kernel_column = i;
        // With --nvtx, the push/pop ranges around the kernel (its header names their fields).
        if (fields[i].find("Push/Pop_Range") != std::string::npos) range_column = i;
        if (fields[i] == "Metric Name") metric_column = i;
        if (fields[i] == "Metric Value") value_column = i;
      }
      continue;
    }
    if (metric_column < 0 || value_column < 0 || kernel_column < 0) break;
    const int needed = std::max(kernel_column, std::max(metric_column, value_column));
    if (static_cast<int>(fields.size()) <= needed) continue;
    const std::string& kernel = fields[kernel_column];
    // The part is the number of the kernel's range (measure/profile_part.hpp); a report without
    // ranges is one part.
    std::size_t current = 0;
    if (range_column >= 0 && range_column < static_cast<int>(fields.size())) {
      const std::size_t at = fields[range_column].find(kProfilePartPrefix);
      if (at == std::string::npos) continue;  // not in a part: not the lab's
      current = std::strtoul(fields[range_column].c_str() + at + std::strlen(kProfilePartPrefix), nullptr, 10);
    }
    if (kernel.find(kFillKernel) != std::string::npos) continue;
    // A count is digits with thousands separators ("8,388,608"); anything else ("nan", when ncu
    // could not collect the kernel's counters) leaves the part unmeasured, never counted as 0.
    std::string digits;
    bool a_count = !fields[value_column].empty();
    for (char c : fields[value_column]) {
      if (c >= '0' && c <= '9') digits += c;
      else if (c != ',') a_count = false;
    }
    for (const Metric& m : kMetrics) {
      if (fields[metric_column] != m.name) continue;
      if (run.parts.size() <= current) run.parts.resize(current + 1);
      HardwareCounts& part = run.parts[current];
      if (!a_count) part.why_not = "ncu reported " + fields[metric_column] + " of " + kernel + " as \"" + fields[value_column] + "\"";
      const unsigned long long value = a_count ? std::strtoull(digits.c_str(), nullptr, 10) : 0;
      (m.sectors ? part.sectors : part.instructions)[m.kind] += value;
      part.measured = true;
    }
  }
  for (HardwareCounts& part : run.parts)
    if (!part.why_not.empty()) part.measured = false;
  return run;
}

HardwareCounts timed_build_counts(int lab, Shape shape) {
  ProfiledRun run = profile_self({"--profile-all", std::to_string(lab), profile_size(shape)});
  HardwareCounts counts;
  if (!run.why_not.empty()) {
    counts.why_not = run.why_not;
  } else if (run.parts.empty() || !run.parts.front().measured) {
    counts.why_not = !run.parts.empty() && !run.parts.front().why_not.empty()
                         ? run.parts.front().why_not
                         : "ncu reported no counters (exit status " + std::to_string(run.exit_status) + ")";
  } else {
    counts = run.parts.front();
  }
  return counts;
}

std::optional<std::string> traffic_difference(const HardwareCounts& timed, const Counters& counted) {
  static const char* const kinds[kAccessKinds] = {"load", "store", "atomic"};
  // The compiler may merge or drop a load the counting build keeps; 2% is far below what
  // another kernel body changes (a vectorised loop has a quarter of the instructions).
  auto differ = [](unsigned long long a, unsigned long long b) {
    const double larger = static_cast<double>(std::max(a, b));
    return larger > 0 && std::fabs(static_cast<double>(a) - static_cast<double>(b)) > 0.02 * larger + 1;
  };
  for (int k = 0; k < kAccessKinds; ++k) {
    if (k != 2 && differ(timed.sectors[k], counted.sectors[k]))
      return std::string(kinds[k]) + " sectors: " + std::to_string(timed.sectors[k]) + " timed, " +
             std::to_string(counted.sectors[k]) + " counted";
    if (differ(timed.instructions[k], counted.instructions[k]))
      return std::string(kinds[k]) + " instructions (warp level): " + std::to_string(timed.instructions[k]) +
             " timed, " + std::to_string(counted.instructions[k]) + " counted";
  }
  return std::nullopt;
}

}  // namespace reduce_lab::grader
