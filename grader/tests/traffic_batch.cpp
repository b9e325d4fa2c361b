// labgrader --traffic-batch and --profile-batch: the kit's suite measures the timed builds of all
// its labs and broken-lab cases in one Nsight Compute run, ahead of their traffic tests.
//
// Each traffic test compares its timed build's traffic, as ncu counts it, with the counted
// build's (checks/timed_traffic.hpp). Profiled one process at a time, the suite's 40-odd timed
// builds took ncu's turns for 85 s and more on an H200, about a second of each the profiled
// process's own (docs/instructors.md).
// Here one profiled process runs them all, each in a numbered range (measure/profile_part.hpp),
// and the counts go to each test in a file (measure/profiled_counts.hpp); a test whose file
// is missing, or names another module, still runs ncu itself. A build that fails or hangs under
// the profiler ends that process: the builds after it are profiled again in a new one, and the
// failed one is left to its own test, which then meets the failure and names it.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "base/catalog.hpp"
#include "base/files.hpp"
#include "base/settings.hpp"
#include "checks/timed_traffic.hpp"
#include "measure/hardware_counts.hpp"
#include "measure/profile_part.hpp"
#include "measure/profiled_counts.hpp"
#include "run/lab_runner.hpp"
#include "run/modules.hpp"
#include "selftest.hpp"

namespace reduce_lab::grader::traffic_batch {

namespace {

// One build at one shape: a line of the profiled process's list.
struct Part {
  std::size_t entry = 0;  // the manifest's line
  int lab = 0;
  std::string module_dir;
  Shape shape;
};

// A manifest line: ID, LAB, MODULE_DIR and OUT_FILE, separated by tabs.
struct Entry {
  std::string id;
  int lab = 0;
  std::string module_dir;
  std::string out_file;
  std::size_t shapes = 0;  // the shapes its traffic test compares (compared_shapes())
};

std::vector<std::string> tab_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
    fields.push_back(line.substr(start, tab - start));
  fields.push_back(line.substr(start));
  return fields;
}

// The line the profiled process prints for part `k` once its run has ended without a fault.
std::string ran_line(std::size_t k) { return "profiled part " + std::to_string(k) + ": ran"; }

// The lines of a shared run's output that are neither counts, nor ncu's notes of every run, nor
// a part that ran: why a part failed (its own line, the grader's story of a stop, ncu's errors).
std::string words_besides_counts(const std::string& output) {
  std::string said;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    const bool counts = !line.empty() && line[0] == '"';
    const bool note = line.rfind("==PROF==", 0) == 0 || line.find("uncontrolled GPU caches") != std::string::npos ||
                      line.find("unmodified GPU clocks") != std::string::npos;
    const bool ran = line.rfind("profiled part ", 0) == 0 && line.size() > 5 && line.substr(line.size() - 5) == ": ran";
    if (!line.empty() && !counts && !note && !ran) said += line + "\n";
  }
  if (said.size() > 4000) said = "...\n" + said.substr(said.size() - 4000);
  return said.empty() ? "(nothing)\n" : said;
}

}  // namespace

std::optional<int> take_early_record(const std::string& record) {
  bool found = false;
  const std::string status_text = read_text(record + ".status", &found);
  const std::string said = read_text(record + ".log");
  std::error_code ignored;
  std::filesystem::remove(record + ".status", ignored);
  std::filesystem::remove(record + ".log", ignored);
  if (!found) {
    std::printf("Not made while the suite built (no %s.status); made now.\n", record.c_str());
    std::fflush(stdout);
    return std::nullopt;
  }
  const int status = std::atoi(status_text.c_str());
  std::printf("Made while the suite built (./lab test: the target traffic_batch_early), exit status %d. It said:\n%s",
              status, said.empty() ? "(nothing)\n" : said.c_str());
  if (status == 0 || status == 77) return status;
  std::printf("Made again now.\n");
  std::fflush(stdout);  // before a run that may end the process
  return std::nullopt;
}

int profile(const std::string& list_path) {
  std::istringstream lines(read_text(list_path));
  std::map<std::string, HostArray> inputs;  // one draw per shape, as every traffic test draws it
  std::size_t k = 0;
  for (std::string line; std::getline(lines, line); ++k) {
    const std::vector<std::string> fields = tab_fields(line);
    if (fields.size() != 3) {
      std::printf("profiled part %zu: not DIR, LAB and SIZE: %s\n", k, line.c_str());
      return 2;
    }
    const int lab = std::atoi(fields[1].c_str());
    const Shape shape = parse_profile_size(fields[2]);
    const LoadedLab loaded = load_lab_from(fields[0], lab, Flavor::plain, lab_source_file_in(fields[0], lab));
    if (!loaded) {
      std::printf("profiled part %zu: %s\n", k, loaded.summary.c_str());
      continue;  // nothing ran: the next part may still run
    }
    auto input = inputs.find(fields[2]);
    if (input == inputs.end())
      input = inputs.emplace(fields[2], make_matrix(Pattern::uniform, DType::f32, shape)).first;
    LabRunner runner(loaded.info, DType::f32, Op::sum);
    RunOutcome outcome;
    {
      const ProfilePart part(static_cast<unsigned>(k));
      outcome = runner.reduce(input->second);
    }
    if (!outcome.ran) {
      // A fault may leave the device unusable for every later part: the parent starts again
      // after this one.
      std::printf("profiled part %zu: %s\n", k, outcome.error.c_str());
      return 1;
    }
    std::printf("%s\n", ran_line(k).c_str());
    std::fflush(stdout);
  }
  return 0;
}

int run(const std::string& manifest_path) {
  if (!settings().traffic_batch_early.empty()) {
    if (const std::optional<int> status = take_early_record(settings().traffic_batch_early)) return *status;
  }
  std::vector<Entry> entries;
  {
    std::istringstream lines(read_text(manifest_path));
    for (std::string line; std::getline(lines, line);) {
      const std::vector<std::string> fields = tab_fields(line);
      if (fields.size() != 4) {
        std::printf("FAILED: %s: not ID, LAB, MODULE_DIR and OUT_FILE: %s\n", manifest_path.c_str(), line.c_str());
        return 1;
      }
      entries.push_back({fields[0], std::atoi(fields[1].c_str()), fields[2], fields[3], 0});
    }
  }
  // No test may read counts of an earlier run, whatever happens below.
  std::error_code ignored;
  for (const Entry& e : entries) std::filesystem::remove(e.out_file, ignored);
  std::vector<Part> pending;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!has_check(entries[i].lab, "speedup")) continue;  // no speed test reads its traffic
    const std::vector<Shape> shapes = compared_shapes(entries[i].lab);
    entries[i].shapes = shapes.size();
    for (const Shape& shape : shapes) pending.push_back({i, entries[i].lab, entries[i].module_dir, shape});
  }
  const std::size_t parts = pending.size();
  std::map<std::size_t, std::vector<std::pair<Shape, HardwareCounts>>> measured;  // by entry
  const std::string list_path = manifest_path + ".parts";
  int processes = 0;
  while (!pending.empty()) {
    std::string list;
    for (const Part& p : pending)
      list += p.module_dir + "\t" + std::to_string(p.lab) + "\t" + profile_size(p.shape) + "\n";
    write_text(list_path, list);
    ++processes;
    const ProfiledRun run = profile_self({"--profile-batch", list_path});
    if (!run.why_not.empty()) {
      if (!measured.empty()) {
        // What an earlier process measured is still handed over; the rest profile their own.
        std::printf("Not profiled ahead (%s): %zu builds at their shapes; their traffic tests profile their own.\n",
                    run.why_not.c_str(), pending.size());
        break;
      }
      std::printf("SKIPPED: not profiled ahead (%s); each traffic test profiles its own build\n", run.why_not.c_str());
      return 77;
    }
    std::size_t k = 0;
    for (; k < pending.size(); ++k) {
      const bool ran = run.output.find(ran_line(k) + "\n") != std::string::npos;
      if (!ran || k >= run.parts.size() || !run.parts[k].measured) break;
      measured[pending[k].entry].push_back({pending[k].shape, run.parts[k]});
    }
    if (k == pending.size()) break;
    // Part k did not run to its end, or ncu reported none of its kernels: its own test measures
    // it (and meets whatever stopped it here); the parts after it start again in a new process.
    const Entry& failed = entries[pending[k].entry];
    std::printf("%s (lab %d, %s) was not profiled here (the profiled process's exit status: %d); its traffic "
                "test profiles it.\n",
                failed.id.c_str(), failed.lab, profile_size(pending[k].shape).c_str(), run.exit_status);
    std::printf("What the profiled process and ncu said, besides the counts:\n%s", words_besides_counts(run.output).c_str());
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(k) + 1);
  }
  std::filesystem::remove(list_path, ignored);
  std::size_t written = 0, shapes = 0;
  for (const auto& [entry, counts] : measured) {
    const Entry& e = entries[entry];
    if (counts.size() != e.shapes) continue;  // every shape or none
    write_profiled_counts(e.out_file, module_file(e.module_dir, e.lab, Flavor::plain), counts);
    ++written;
    shapes += counts.size();
  }
  std::printf("Profiled %zu timed builds at %zu shapes (of %zu) in %d Nsight Compute run%s, ahead of their traffic "
              "tests.\n",
              written, shapes, parts, processes, processes == 1 ? "" : "s");
  return 0;
}

}  // namespace reduce_lab::grader::traffic_batch
