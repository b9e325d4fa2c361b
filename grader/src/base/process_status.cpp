#include "base/process_status.hpp"

#include <time.h>
#include <unistd.h>

#include <sstream>
#include <string>

#include "base/files.hpp"

namespace reduce_lab::grader {

std::optional<ProcessStatus> process_status(pid_t pid) {
  // "PID (COMMAND) STATE PPID ...": the command, in parentheses, may hold spaces and ')'.
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t after_name = stat.rfind(')');
  if (after_name == std::string::npos) return std::nullopt;
  std::istringstream rest(stat.substr(after_name + 1));
  ProcessStatus status;
  std::string state;
  if (!(rest >> state >> status.parent) || state.empty()) return std::nullopt;
  status.state = state[0];
  // Fields 5 to 21 lie between the parent (field 4) and the start time (field 22).
  std::string skipped;
  for (int field = 5; field <= 21 && (rest >> skipped); ++field) {
  }
  if (!(rest >> status.start_ticks)) return std::nullopt;
  return status;
}

std::optional<double> process_age(pid_t pid) {
  const std::optional<ProcessStatus> status = process_status(pid);
  timespec boot{};
  if (!status || clock_gettime(CLOCK_BOOTTIME, &boot) != 0) return std::nullopt;
  const double ticks_per_second = static_cast<double>(sysconf(_SC_CLK_TCK));
  return static_cast<double>(boot.tv_sec) + boot.tv_nsec / 1e9 -
         static_cast<double>(status->start_ticks) / ticks_per_second;
}

}  // namespace reduce_lab::grader
