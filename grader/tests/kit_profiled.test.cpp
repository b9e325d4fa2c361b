// Nsight Compute's report read into parts, and the counts a shared run hands a traffic test
// (measure/hardware_counts.hpp, measure/profiled_counts.hpp). No device: the report is written
// here as ncu writes it (--csv --print-units base), columns as on an H200.
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "catch_compat.hpp"
#include "base/files.hpp"
#include "base/settings.hpp"
#include "measure/hardware_counts.hpp"
#include "measure/ncu_turn.hpp"
#include "measure/profile_part.hpp"
#include "measure/profiled_counts.hpp"
#include "run/modules.hpp"

using namespace reduce_lab;
using namespace reduce_lab::grader;

namespace {

const char* const kHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";

// The same with --nvtx: two columns of the ranges around each kernel, after the host's name.
const char* const kRangesHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\","
    "\"thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg\","
    "\"Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg\",\"Kernel Name\",\"Context\","
    "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\","
    "\"Metric Value\"\n";

// One row of the report: kernel `kernel` launched with `grid` blocks, metric `metric` = `value`.
std::string row(const std::string& kernel, int grid, const std::string& metric, const std::string& value) {
  return "\"1\",\"4242\",\"labgrader\",\"127.0.0.1\",\"" + kernel + "\",\"1\",\"7\",\"(1024, 1, 1)\",\"(" +
         std::to_string(grid) + ", 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"" + metric +
         "\",\"sector\",\"" + value + "\"\n";
}

const std::string kLoadSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
const std::string kLoads = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
const std::string kStoreSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";

// A row of the report with ranges: the kernel ran in part `part`'s range, as an H200's ncu
// writes the push/pop stack (the thread, then each range's domain, name and attributes).
std::string in_part(int part, const std::string& kernel, const std::string& metric, const std::string& value) {
  return "\"1\",\"4242\",\"labgrader\",\"127.0.0.1\",\"4242  \"\"<default domain>:" + std::string(kProfilePartPrefix) +
         std::to_string(part) + ":none:none:none:none:none:none\"\" \",\"\",\"" + kernel +
         "\",\"1\",\"7\",\"(1024, 1, 1)\",\"(64, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"" + metric +
         "\",\"sector\",\"" + value + "\"\n";
}

}  // namespace

TEST_CASE("kit harness profiled counts") {
  SECTION("a report without ranges is one part; the kit's fill kernel is not the lab's") {
    const std::string report = std::string("==PROF== Connected to process 4242\n") + kHeader +
                               row("void detail::fill_kernel<float>(T1 *, T1, unsigned long long)", 1, kStoreSectors, "1") +
                               row("SimpleSumReductionKernel(float *, float *)", 32768, kLoadSectors, "67,108,863") +
                               row("SimpleSumReductionKernel(float *, float *)", 32768, kLoads, "14,654,457") +
                               row("SimpleSumReductionKernel(float *, float *)", 16, kLoadSectors, "1") +
                               "==PROF== Disconnected from process 4242\n";
    const ProfiledRun run = parse_profiled_output(report);
    REQUIRE(run.parts.size() == 1);
    CHECK(run.parts[0].measured);
    CHECK(run.parts[0].sectors[0] == 67108864ull);
    CHECK(run.parts[0].instructions[0] == 14654457ull);
    CHECK(run.parts[0].sectors[1] == 0ull);
  }
  SECTION("ranges part the report; a part with a count ncu could not read is not measured") {
    const std::string report = std::string(kRangesHeader) + in_part(0, "LabA(float *)", kLoadSectors, "100") +
                               in_part(0, "LabA(float *)", kLoads, "25") + in_part(1, "LabB(float *)", kLoadSectors, "nan") +
                               in_part(1, "LabB(float *)", kLoads, "7") + in_part(3, "LabD(float *)", kLoadSectors, "300") +
                               in_part(3, "LabD(float *)", kLoads, "60") + in_part(3, "LabD(float *)", kLoadSectors, "12");
    const ProfiledRun run = parse_profiled_output(report);
    REQUIRE(run.parts.size() == 4);
    CHECK(run.parts[0].measured);
    CHECK(run.parts[0].sectors[0] == 100ull);
    CHECK(run.parts[0].instructions[0] == 25ull);
    CHECK_FALSE(run.parts[1].measured);
    CHECK(run.parts[1].why_not.find("nan") != std::string::npos);
    CHECK_FALSE(run.parts[2].measured);  // none of its kernels came: the process ended before it
    CHECK(run.parts[3].measured);
    CHECK(run.parts[3].sectors[0] == 312ull);  // both of its kernels
    CHECK(run.parts[3].instructions[0] == 60ull);
  }
  SECTION("a size argument reads back as the shape it was written from") {
    for (const Shape shape : {Shape{1, 67108864}, Shape{9586980, 7}}) {
      const Shape back = parse_profile_size(profile_size(shape));
      CHECK(back.rows == shape.rows);
      CHECK(back.columns == shape.columns);
    }
  }
  SECTION("the profiled program gets each argument as one word, whatever its characters") {
    std::string pattern = settings().temp_dir + "/reduce_lab_profiled.XXXXXX";
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    const std::string dir = pattern;
    // A stand-in for ncu: it writes the profiled program's last two arguments, one a line, and
    // reports one kernel as ncu would.
    const std::string fake = dir + "/ncu";
    write_text(fake, "#!/bin/bash\nargs=(\"$@\"); n=${#args[@]}\nprintf '%s\\n' \"${args[n-2]}\" \"${args[n-1]}\" > \"" +
                         dir + "/arguments\"\nprintf '%s' '" + kHeader + row("LabA(float *)", 64, kLoadSectors, "1,024") +
                         "'\n");
    std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
    set_environment("REDUCE_LAB_NCU", fake);
    const std::string awkward = dir + "/a list's path";
    const ProfiledRun run = profile_self({"--profile-batch", awkward});
    set_environment("REDUCE_LAB_NCU", std::nullopt);
    CHECK(run.why_not.empty());
    CHECK(read_text(dir + "/arguments") == "--profile-batch\n" + awkward + "\n");
    REQUIRE(run.parts.size() == 1);
    CHECK(run.parts[0].sectors[0] == 1024ull);
    std::filesystem::remove_all(dir);
  }
  SECTION("a traffic test takes counts only of its module as it is, and only once") {
    std::string pattern = settings().temp_dir + "/reduce_lab_profiled.XXXXXX";
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    const std::string dir = pattern;
    const std::string module = module_file(dir, 4, Flavor::plain);
    const std::string file = dir + "/lab4.json";
    write_text(module, "the timed build's bytes");
    set_environment("REDUCE_LAB_MODULE_DIR", dir);
    set_environment("REDUCE_LAB_PROFILED_COUNTS", file);
    HardwareCounts counts;
    counts.measured = true;
    counts.sectors[0] = 8388608;
    counts.instructions[0] = 2097152;
    const Shape shape{1, 67108864};

    write_profiled_counts(file, module, {{shape, counts}});
    std::map<std::string, HardwareCounts> taken = take_profiled_counts(4);
    REQUIRE(taken.count(profile_size(shape)) == 1);
    CHECK(taken.at(profile_size(shape)).sectors[0] == 8388608ull);
    CHECK(taken.at(profile_size(shape)).instructions[0] == 2097152ull);
    CHECK_FALSE(std::filesystem::exists(file));
    CHECK(take_profiled_counts(4).empty());  // taken once

    write_text(file, "{\"module\": \"" + file_digest(module) + "\", \"shapes\": [{\"shape\": \"67108864\"}]}");
    CHECK(take_profiled_counts(4).empty());  // not what write_profiled_counts() writes: nothing taken

    write_profiled_counts(file, module, {{shape, counts}});
    write_text(module, "the timed build's bytes, built again from another lab file");
    CHECK(take_profiled_counts(4).empty());  // another module: the test profiles its own
    CHECK_FALSE(std::filesystem::exists(file));

    set_environment("REDUCE_LAB_PROFILED_COUNTS", std::nullopt);
    set_environment("REDUCE_LAB_MODULE_DIR", std::nullopt);
    std::filesystem::remove_all(dir);
  }
}

// The traffic tests run side by side (cmake/ReduceLab.cmake): only one grader process on the
// machine may start ncu at a time, and the others wait before theirs starts, not inside it.
TEST_CASE("kit harness profiled counts: one ncu at a time") {
  const std::string dir = (std::filesystem::temp_directory_path() / "reduce-lab-ncu-turn-test").string();
  std::filesystem::create_directories(dir);
  const char* tmpdir = std::getenv("TMPDIR");
  const std::optional<std::string> saved = tmpdir != nullptr ? std::optional<std::string>(tmpdir) : std::nullopt;
  set_environment("TMPDIR", dir);
  CHECK(NcuTurn::lock_path() == dir + "/reduce-lab-ncu.lock");
  CHECK_FALSE(NcuTurn::taken_elsewhere());
  {
    const NcuTurn turn;
    CHECK(turn.held());
    CHECK(NcuTurn::taken_elsewhere());  // a second holder (another process's open file) would wait
  }
  CHECK_FALSE(NcuTurn::taken_elsewhere());  // ended with its holder
  set_environment("TMPDIR", saved);
  std::filesystem::remove_all(dir);
}
