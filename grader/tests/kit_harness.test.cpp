// The harness's own parts, none of which need a device: references and tolerances, inputs,
// the compiler-error report, fault names, the grade table.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>
#include <fstream>
#include <memory>
#include <optional>
#include <vector>

#include "catch_compat.hpp"
#include "base/catalog.hpp"
#include "base/faults.hpp"
#include "base/files.hpp"
#include "kit.hpp"
#include "run/lab_runner.hpp"
#include "run/device.hpp"
#include "run/limits.hpp"
#include "run/modules.hpp"
#include "base/reference.hpp"
#include "run/records.hpp"
#include "base/settings.hpp"
#include "checks/speed_gate.hpp"
#include "checks/timed_traffic.hpp"
#include "run/supervisor.hpp"
#include "measure/timing.hpp"
#include "report/table.hpp"
#include "selftest.hpp"

using namespace reduce_lab;
using namespace reduce_lab::grader;

namespace {
template <class T>
HostArray array_of(std::initializer_list<T> values, DType dtype) {
  HostArray a;
  a.dtype = dtype;
  a.n = values.size();
  a.bytes.resize(values.size() * sizeof(T));
  std::memcpy(a.data(), values.begin(), a.bytes.size());
  return a;
}
}  // namespace

TEST_CASE("kit harness limits") {
  // Every limit inside a test comes from its budget, and each stops before the one around it,
  // so the innermost names what hung (docs/grading.md): a launch, a call, the test.
  for (bool emulator : {true, false})
    for (double budget : {60.0, 300.0, 600.0, 1800.0}) {
      INFO((emulator ? "emulator" : "GPU") << ", a budget of " << budget << " s");
      const Limits limits = derive_limits(budget, emulator);
      CHECK(limits.test == budget);
      CHECK(limits.supervisor == budget - 15);
      CHECK(limits.call < limits.supervisor);
      if (emulator) CHECK(limits.launch <= limits.call);
    }
  // CTest's default budget gives the documented limits.
  CHECK(derive_limits(600, false).call == 30);
  CHECK(derive_limits(600, true).call == 300);
  CHECK(derive_limits(600, true).launch == 60);
  // grade-all's default --timeout: 15 s a call on a GPU, 150 s on the emulator.
  CHECK(derive_limits(300, false).call == 15);
  CHECK(derive_limits(300, true).call == 150);
  // No budget known: the supervisor never stops the test; the others keep the default's.
  CHECK(derive_limits(0, true).supervisor == 0);
  CHECK(derive_limits(0, true).call == 300);
  // A picture (./lab show) is a small run: seconds, the whole command bounded too, and nested.
  CHECK(derive_picture_limits(0).supervisor == 30);
  CHECK(derive_picture_limits(0).call == 10);
  CHECK(derive_picture_limits(0).launch == 5);
  for (double budget : {0.0, 6.0, 30.0, 120.0}) {
    INFO("a picture's budget of " << budget << " s");
    const Limits limits = derive_picture_limits(budget);
    CHECK(limits.supervisor > 0);
    CHECK(limits.launch < limits.call);
    CHECK(limits.call < limits.supervisor);
  }
}

// Device memory on the backend's device (kit.device_buffers: on the GPU backend it needs a GPU).
TEST_CASE("kit device buffers") {
  SECTION("a freed buffer serves again only a buffer of exactly its size") {
    // memcheck finds a read past n only where the allocation ends at n (run/device.cpp).
    void* first = nullptr;
    {
      DeviceBuffer a(1237, sizeof(float));
      first = a.data();
    }
    DeviceBuffer smaller(1236, sizeof(float));  // a larger allocation would hide its end
    CHECK(smaller.data() != first);
    DeviceBuffer same(1237, sizeof(float));
    CHECK(same.data() == first);
    DeviceBuffer again(1237, sizeof(float));
    CHECK(again.data() != first);  // the one kept is in use
  }

  SECTION("a queued upload and one read back return the bytes given") {
    std::vector<float> values(3000), back(3000, 0.0f);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f;
    DeviceBuffer buffer(values.size(), sizeof(float));
    buffer.upload_queued(values.data(), values.size() * sizeof(float));
    values.assign(values.size(), -1.0f);  // the host's bytes may change at once
    float tail = 0;
    read_back({{buffer.data(), back.data(), back.size() * sizeof(float)},
               {static_cast<float*>(buffer.data()) + 2999, &tail, sizeof tail}},
              "reading the test's buffer back");
    for (std::size_t i = 0; i < back.size(); ++i) REQUIRE(back[i] == static_cast<float>(i) * 0.5f);
    CHECK(tail == 1499.5f);
  }
}

TEST_CASE("kit harness untimed contexts") {
  // Every graded check but the speed test runs its GPU work with one hardware queue a context
  // (run/device.hpp), so that hundreds of them start quickly on one GPU; the speed test times
  // the lab's streams as the student wrote them.
  for (const std::string& check : check_names()) {
    INFO(check);
    CHECK(untimed_check(check) == (check != "speedup"));
  }
  CHECK_FALSE(untimed_check("bench"));
}

TEST_CASE("kit harness early traffic batch") {
  // kit.traffic_batch reports the run ./lab test made while the suite built, once, and profiles
  // again where that run did not end well or left no record.
  const std::filesystem::path dir = fresh_dir("early_traffic_batch");
  const std::string record = (dir / "early").string();
  const auto leave = [&](const std::string& status, const std::string& said) {
    write_text(record + ".status", status + "\n");
    write_text(record + ".log", said);
  };
  const auto gone = [&] {
    return !std::filesystem::exists(record + ".status") && !std::filesystem::exists(record + ".log");
  };
  leave("0", "Profiled 43 timed builds at 51 shapes (of 51) in 1 Nsight Compute run.\n");
  CHECK(traffic_batch::take_early_record(record) == std::optional<int>(0));
  CHECK(gone());
  // Taken once: the suite's next run (ctest -L broken) profiles again.
  CHECK_FALSE(traffic_batch::take_early_record(record).has_value());
  leave("77", "SKIPPED: ncu cannot read the counters here\n");
  CHECK(traffic_batch::take_early_record(record) == std::optional<int>(77));
  CHECK(gone());
  leave("1", "FAILED: a manifest line\n");
  CHECK_FALSE(traffic_batch::take_early_record(record).has_value());
  CHECK(gone());
  leave("124", "");  // stopped by its time limit
  CHECK_FALSE(traffic_batch::take_early_record(record).has_value());
  CHECK(gone());
}

TEST_CASE("kit harness") {
  SECTION("references are exact where rounding cannot occur") {
    const Reference ints = reference(array_of<int>({2147483647, 1}, DType::i32), Op::sum);
    CHECK(ints.exact);
    CHECK(ints.value == -2147483648.0);  // int sums wrap, as on the device
    const Reference whole = reference(array_of<float>({1, -1, 1, 1}, DType::f32), Op::sum);
    CHECK(whole.exact);
    CHECK(tolerance(whole, DType::f32, 4) == 0);
    const Reference fractional = reference(array_of<float>({0.1f, 0.2f}, DType::f32), Op::sum);
    CHECK_FALSE(fractional.exact);
    CHECK(tolerance(fractional, DType::f32, 2) > 0);
    CHECK(reference(array_of<float>({-5, -3, -9}, DType::f32), Op::max).value == -3);
    CHECK(reference(array_of<double>({-5, -3, -9}, DType::f64), Op::min).value == -9);
  }
  SECTION("a NaN or a dropped element never passes") {
    const HostArray input = make_input(Pattern::integers, DType::f32, 1000);
    const Reference ref = reference(input, Op::sum);
    CHECK(compare(ref.value, ref, DType::f32, input.n).ok);
    CHECK_FALSE(compare(NAN, ref, DType::f32, input.n).ok);
    CHECK_FALSE(compare(ref.value + 1, ref, DType::f32, input.n).ok);
  }
  SECTION("a matrix's check names its first wrong row, and a changed row's own reference stands for it") {
    HostArray matrix = make_matrix(Pattern::integers, DType::f32, {4, 3});
    const std::vector<Reference> rows = row_references(matrix, Op::sum);
    std::vector<double> values;
    for (const Reference& row : rows) values.push_back(row.value);
    CHECK_FALSE(first_wrong_row(values, rows, DType::f32, 3));
    values[2] += 1;
    values[3] = NAN;
    const auto wrong = first_wrong_row(values, rows, DType::f32, 3);
    REQUIRE(wrong);
    CHECK_THAT(*wrong, Catch::StartsWith("row 2: got "));
    Reference changed = rows[2];
    changed.value += 1;
    CHECK_THAT(first_wrong_row(values, rows, DType::f32, 3, 2, &changed).value_or(""),
               Catch::StartsWith("row 3: got NaN"));
    // The correctness check says how many rows are wrong as well as which is first.
    const WrongRows counted = wrong_rows(values, rows, DType::f32, 3);
    CHECK(counted.count == 2);
    CHECK(counted.first == 2);
    CHECK_THAT(counted.first_comparison.text, Catch::StartsWith("got "));
    CHECK(wrong_rows(values, rows, DType::f32, 3, 2, &changed).count == 1);
  }
  SECTION("millions of rows, checked on several threads, count every wrong row and name the first") {
    // Past the rows a single thread checks, wrong rows in different threads' parts: the first
    // in order is named, however the parts finish, and a changed row is judged by its own reference.
    const Shape shape{(std::size_t{1} << 20) + 3, 2};
    const HostArray matrix = make_matrix(Pattern::uniform, DType::f32, shape);
    const std::vector<Reference> rows = row_references(matrix, Op::sum);
    std::vector<double> values;
    for (const Reference& row : rows) values.push_back(row.value);
    CHECK(wrong_rows(values, rows, DType::f32, 2).count == 0);
    const std::size_t late = shape.rows - 1, middle = shape.rows / 2 + 5, early = 7;
    values[late] = NAN;
    values[middle] += 1;
    const WrongRows two = wrong_rows(values, rows, DType::f32, 2);
    CHECK(two.count == 2);
    CHECK(two.first == middle);
    values[early] += 1;
    Reference changed = rows[middle];
    changed.value += 1;
    const WrongRows judged = wrong_rows(values, rows, DType::f32, 2, middle, &changed);
    CHECK(judged.count == 2);
    CHECK(judged.first == early);
    CHECK_THAT(first_wrong_row(values, rows, DType::f32, 2).value_or(""),
               Catch::StartsWith("row " + std::to_string(early) + ": got "));
    values.pop_back();
    CHECK_THROWS(wrong_rows(values, rows, DType::f32, 2));
  }
  SECTION("the tolerance grows with log2(n) and sum|x|, not with a constant") {
    const HostArray input = make_input(Pattern::uniform, DType::f32, 1 << 16);
    const Reference ref = reference(input, Op::sum);
    CHECK(tolerance(ref, DType::f32, input.n) == Approx(2.0 * 16 * 1.1920929e-7 * ref.sum_abs));
  }
  SECTION("inputs are reproducible from the seed and cancel where they should") {
    const HostArray a = make_input(Pattern::uniform, DType::f32, 4096);
    const HostArray b = make_input(Pattern::uniform, DType::f32, 4096);
    CHECK(a.bytes == b.bytes);
    const HostArray cancel = make_input(Pattern::cancellation, DType::f64, 4096);
    CHECK(std::fabs(reference(cancel, Op::sum).value) < 1e-12);
    const HostArray large = make_input(Pattern::large, DType::i32, 4096);
    const Reference wrapped = reference(large, Op::sum);
    CHECK(wrapped.exact);
    CHECK(wrapped.value >= -2147483648.0);
    CHECK(wrapped.value <= 2147483647.0);
    const HostArray negative = make_input(Pattern::all_negative, DType::i32, 4096);
    CHECK(reference(negative, Op::max).value < 0);
  }
  SECTION("a speed test's input is drawn in chunks on threads, yet it is the seed's alone") {
    // Three chunks and a part: each chunk has a generator of its own, so no chunk repeats
    // another's values, and two draws are identical whatever the threads did.
    const std::size_t n = (std::size_t{3} << 20) + 77;
    const HostArray a = make_input(Pattern::uniform, DType::f32, n);
    const HostArray b = make_input(Pattern::uniform, DType::f32, n);
    CHECK(a.bytes == b.bytes);
    const float* x = static_cast<const float*>(a.data());
    for (std::size_t chunk = 1; chunk <= 3; ++chunk) {
      INFO("chunk " << chunk);
      CHECK(std::memcmp(x, x + (chunk << 20), 64 * sizeof(float)) != 0);
    }
    float low = 1, high = -1;
    for (std::size_t i = 0; i < n; ++i) low = std::min(low, x[i]), high = std::max(high, x[i]);
    CHECK(low >= -1.0f);
    CHECK(low < -0.999f);
    CHECK(high < 1.0f);
    CHECK(high > 0.999f);
    CHECK(make_input(Pattern::uniform, DType::f32, n, 1).bytes != a.bytes);
  }
  SECTION("a lab that does not compile is reported with its first compiler error") {
    const std::string nvcc_log =
        "labs/03_shared_memory.cu(21): warning #177-D: variable \"x\" was declared but never referenced\n"
        "labs/03_shared_memory.cu(24): error: identifier \"stride\" is undefined\n"
        "1 error detected in the compilation of \"labs/03_shared_memory.cu\".\n";
    CHECK(first_compiler_error(nvcc_log) == "labs/03_shared_memory.cu(24): error: identifier \"stride\" is undefined");
    const auto dir = fresh_dir("modules");
    const std::string stem = (dir / module_file_stem(3, Flavor::plain)).string();
    std::ofstream(stem + ".log") << nvcc_log;
    std::ofstream(stem + ".status") << "2\n";
    std::ofstream(stem + ".so") << "stale module from an earlier build";
    set_environment("REDUCE_LAB_MODULE_DIR", dir);
    const LoadedLab loaded = load_lab(3, Flavor::plain);
    CHECK_FALSE(loaded);
    CHECK(loaded.problem.find("does not compile") != std::string::npos);
    CHECK(loaded.problem.find("identifier \"stride\" is undefined") != std::string::npos);
    const LoadedLab missing = load_lab(5, Flavor::plain);
    CHECK_FALSE(missing);
    CHECK(missing.problem.find("has not been built") != std::string::npos);
  }
  SECTION("a lab stopped at the time limit is not run again in the same grade, until it is rebuilt") {
    const auto modules = fresh_dir("stopped-modules");
    const auto results = fresh_dir("stopped-results");
    const auto module = modules / (module_file_stem(1, Flavor::plain) + ".so");
    std::ofstream(module) << "a build of lab 1";
    set_environment("REDUCE_LAB_MODULE_DIR", modules);
    set_environment("REDUCE_LAB_RESULTS_DIR", results);
    // A test of lab 1 that arms the limit for one reduction, in a supervised process of its
    // own: the exit status and the verdict its supervisor records are what CTest and the table see.
    auto run_test = [] {
      const pid_t pid = fork();
      if (pid == 0) {
        set_current_test(1, "speedup");
        std::_Exit(supervise(1, [] {
          { Watchdog watchdog(1, std::size_t{1} << 26, "n = 67108864"); }
          return 0;
        }));
      }
      int status = 0;
      waitpid(pid, &status, 0);
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    };
    auto stopped_at_limit = [&results] {
      const auto recorded = read_result((results / "lab1.speedup").string());
      return recorded && recorded->summary.rfind("time limit", 0) == 0;
    };
    CHECK(run_test() == 0);
    CHECK_FALSE(stopped_at_limit());
    std::filesystem::create_directories(results / "stopped");
    std::ofstream(results / "stopped" / "lab1") << module_fingerprint(1) << "\nn = 1000\n";
    CHECK(run_test() == kTimeLimitExit);
    const auto recorded = read_result((results / "lab1.speedup").string());
    REQUIRE(recorded);
    CHECK(recorded->status == "FAIL");
    CHECK(recorded->summary == "time limit: n = 67108864");
    CHECK(recorded->message.find("in an earlier test of this grade, on n = 1000") != std::string::npos);
    CHECK(recorded->message.find("not waited for again") != std::string::npos);
    // After a fix the lab is rebuilt, and runs again.
    std::filesystem::remove(results / "lab1.speedup");
    std::filesystem::remove(results / "lab1.speedup.json");
    std::ofstream(module) << "a new build of lab 1, after a fix";
    CHECK(run_test() == 0);
    CHECK_FALSE(stopped_at_limit());
    set_environment("REDUCE_LAB_RESULTS_DIR", std::nullopt);
  }
  SECTION("the grade table fails when any recorded test failed") {
    const auto dir = fresh_dir("results");
    set_environment("REDUCE_LAB_RESULTS_DIR", dir);
    record(1, "correctness", pass("40 cases ok", ""));
    record(1, "speedup", skip("skipped", "no GPU"));
    CHECK(print_table(dir.string(), "test"));
    std::ifstream recorded(dir / "lab1.speedup");
    std::string status, summary, message;
    std::getline(recorded, status);
    std::getline(recorded, summary);
    std::getline(recorded, message);
    CHECK(status == "SKIP");
    CHECK(summary == "skipped");
    CHECK(message == "no GPU");  // after the table's two lines: for grade-all's report.json
    record(2, "correctness", fail("not implemented yet", ""));
    CHECK_FALSE(print_table(dir.string(), "test"));
  }
  SECTION("the emulator's results merge into the GPU's table, and a cell passes only when both pass") {
    const auto dir = fresh_dir("merged");
    set_environment("REDUCE_LAB_RESULTS_DIR", dir);
    record(4, "correctness", pass("48 cases ok", ""));
    record(4, "requests", pass("512 atomics, 10 barriers @2^20", ""));
    std::ofstream(dir / "lab4.correctness.emu") << "PASS\n48 cases ok\n";
    const RecordedResult gpu_ok{"PASS", "48 cases ok"}, emu_ok{"PASS", "48 cases ok"};
    const RecordedResult emu_deadlock{"FAIL", "deadlock at 04_segmented.cu:27"};
    const RecordedResult emu_skipped{"SKIP", "skipped"};
    CHECK(table_cell(&gpu_ok, &emu_ok).status == "PASS");
    CHECK(table_cell(&gpu_ok, &emu_ok).summary == "gpu 48 ok, emu 48 ok");
    CHECK(table_cell(&gpu_ok, &emu_deadlock).status == "FAIL");
    CHECK(table_cell(&gpu_ok, &emu_deadlock).summary == "gpu ok, emu deadlock at 04_segmented.cu:27");
    CHECK(table_cell(&gpu_ok, &emu_skipped).status == "PASS");
    CHECK(table_cell(&gpu_ok, nullptr).summary == "48 cases ok");
    const RecordedResult todo{"FAIL", "not implemented yet"};
    CHECK(table_cell(&todo, &todo).summary == "not implemented yet (gpu and emu)");
    CHECK(print_table(dir.string(), "test"));
    // The GPU passes but the emulator, stricter about barriers, finds a deadlock: the lab fails.
    std::ofstream(dir / "lab4.correctness.emu") << "FAIL\ndeadlock at 04_segmented.cu:27\n";
    CHECK_FALSE(print_table(dir.string(), "test"));
  }
  SECTION("faults are named from the text that reported them") {
    const Fault deadlock = classify_fault(
        "emulator: deadlock in block (0,0,0) of kernel K: every thread of a block must reach the same "
        "__syncthreads()\n  threads 0-511: wait at __syncthreads() at 04_segmented.cu:27\n  threads 512-1023: "
        "have exited\n  emulator seed 0x1f (launch 0)");
    CHECK(deadlock.kind == FaultKind::deadlock);
    CHECK(fault_summary(deadlock, "n = 2") == "deadlock at 04_segmented.cu:27");
    // The first wait that names a file and line, on its own line: not a later line's "at".
    CHECK(classify_fault("emulator: deadlock in block (0,0,0)\n  threads 0-31: wait in __syncwarp(0xffffffff) at "
                         "(unknown)\n  threads 32-63: wait at __syncthreads() at 06_warp_unrolled.cu:41 (a)")
              .place == "06_warp_unrolled.cu:41");
    CHECK(classify_fault("emulator: deadlock\n  threads 0-1: wait at __syncthreads()\n  at x.cu:3").place.empty());
    const Fault time = classify_fault("emulator: the kernel ran past the emulator's time limit of 60 s");
    CHECK(fault_summary(time, "n = 5") == "time limit: n = 5");
    CHECK(classify_fault("emulator: out-of-bounds global load: element 72 of an allocation of 2 elements").kind ==
          FaultKind::out_of_bounds);
    CHECK(classify_fault("========= Invalid __global__ read of size 4 bytes\n=========     Address 0x7f is out of "
                         "bounds").kind == FaultKind::out_of_bounds);
    CHECK(classify_fault("running the lab's kernels: cudaErrorIllegalAddress (an illegal memory access)").kind ==
          FaultKind::illegal_address);
    CHECK(classify_fault("cudaErrorMisalignedAddress (misaligned address)").kind == FaultKind::illegal_address);
    CHECK(classify_fault("cudaErrorLaunchTimeout (the launch timed out)").kind == FaultKind::time_limit);
    const Fault around = classify_fault("emulator: a device pointer used around Global<T>: raw access");
    CHECK(fault_summary(around, "float max n = 31") == "access around Global: float max n = 31");
    CHECK(fault_summary(classify_fault("emulator: segmentation fault in kernel K"), "n = 3") == "crash: n = 3");
    CHECK(classify_fault("the host code reduced 8 values to 0").kind == FaultKind::failed);
    // The race message names its accesses ("stores to element 0 ..."): the kind still reads as a race.
    const Fault blocks = classify_fault(
        "emulator: race between blocks: thread (0,0,0) of block (1,0,0) stores to element 0 of an allocation of "
        "1 4-byte elements, which thread (0,0,0) of block (0,0,0) stored to in the same launch; the access was not "
        "performed\n  in kernel K, block (1,0,0), thread (0,0,0)");
    CHECK(blocks.kind == FaultKind::block_race);
    CHECK(fault_summary(blocks, "n = 4096") == "race between blocks: n = 4096");
    CHECK(std::string(fault_hint(FaultKind::block_race)).find("atomicAdd") != std::string::npos);
    CHECK(std::string(fault_hint(FaultKind::block_race)).find("docs/04-segmented.md") != std::string::npos);
  }
  SECTION("a lab's key is labN, N a lab of this kit written without zeros in front") {
    CHECK(lab_key_number("lab1") == 1);
    CHECK(lab_key_number("lab" + std::to_string(lab_count())) == lab_count());
    CHECK(lab_key_number("lab" + std::to_string(lab_count() + 1)) == 0);
    for (const char* key : {"lab", "lab0", "lab01", "Lab1", "lab1 ", "lab1x", "lab-1", "lab99999999999", ""})
      CHECK(lab_key_number(key) == 0);
  }
  SECTION("inputs say what they hold for their type") {
    CHECK(std::string(pattern_name(Pattern::large, DType::i32)).find("wraps") != std::string::npos);
    CHECK(std::string(pattern_name(Pattern::large, DType::f32)).find("2^30") == std::string::npos);
    CHECK(std::string(pattern_name(Pattern::large, DType::i32, Op::max)).find("wraps") == std::string::npos);
    const HostArray first = make_input(Pattern::uniform, DType::f32, 1000, 0);
    const HostArray second = make_input(Pattern::uniform, DType::f32, 1000, 1);
    CHECK(first.bytes != second.bytes);  // the speed test's inputs differ in contents
    CHECK(shape_text({3, 100003}) == "3 x 100003");  // not "2^1+1 x 100003"
    CHECK(shape_text({257, 32}) == "257 x 32");
    CHECK(shape_text({(std::size_t{1} << 20) + 1, 2}) == "2^20+1 x 2");
    CHECK(shape_text({1, std::size_t{1} << 28}) == "1 x 2^28");
    CHECK(case_count(correctness_plan(7, PlanFor::gpu)) == 9 * case_count(correctness_plan(4, PlanFor::gpu)));
    // The emulator runs lab 7's largest size in one type and op only (plans.hpp).
    CHECK(case_count(correctness_plan(7, PlanFor::emulator)) == case_count(correctness_plan(7, PlanFor::gpu)) - 8);
  }
}

TEST_CASE("kit harness duels") {
  // A duel the lab loses is run again, three at most (duels_until): the lab's samples follow a
  // script, one time per duel, against a baseline of 2 ms; the minimum ratio is 1.5.
  constexpr int kSamples = 20;
  auto duels_for = [](std::vector<double> lab_ms) {
    auto calls = std::make_shared<int>(0);
    const Contender baseline{"baseline", [] {}, [] { return 2.0; }};
    const Contender lab{"lab", [] {}, [calls, lab_ms] {
                          const auto duel = static_cast<std::size_t>((*calls)++ / (kWarmups + kSamples));
                          return lab_ms.at(duel);
                        }};
    return duels_until(baseline, lab, 1.5, kSamples);
  };
  auto ratios = [](const std::vector<Duel>& duels) {
    std::vector<double> r;
    for (const Duel& d : duels) r.push_back(d.ratio());
    return r;
  };
  CHECK(ratios(duels_for({1.0})) == std::vector<double>{2.0});               // won at once: one duel
  CHECK(ratios(duels_for({2.0, 1.0})) == std::vector<double>{1.0, 2.0});     // lost, then won
  CHECK(ratios(duels_for({2.0, 2.0, 1.0})) == std::vector<double>{1.0, 1.0, 2.0});
  // Lost three times: no fourth duel (its script would throw), and the last decides.
  CHECK(ratios(duels_for({2.0, 2.0, 2.0})) == std::vector<double>{1.0, 1.0, 1.0});
  CHECK(duels_for({2.0, 2.0, 2.0}).back().b_ms.size() == kSamples);
}

TEST_CASE("kit harness speed gate") {
  // The speed test times a lab only on this grade's passing verdicts of the very file its timed
  // build was compiled from (speed_gate.hpp): each verdict carries a copy of the file it judged.
  namespace fs = std::filesystem;
  const fs::path modules = fresh_dir("gate-modules"), results = fresh_dir("gate-results");
  const fs::path emulator = fresh_dir("gate-emulator"), sources = fresh_dir("gate-sources");
  const fs::path lab_file = sources / "03_shared_memory.cu";
  const fs::path compiled = modules / (module_file_stem(3, Flavor::plain) + ".source.cu");
  auto write = [](const fs::path& path, const std::string& text) { std::ofstream(path) << text; };
  auto build = [&](const std::string& text) {  // what the build does: the file and its module's copy
    write(lab_file, text);
    write(compiled, text);
  };
  write(modules / "lab03.source", lab_file.string() + "\n");
  build("version 1 of lab 3\n");
  set_environment("REDUCE_LAB_MODULE_DIR", modules.string());
  set_environment("REDUCE_LAB_EMU_RESULTS_DIR", emulator.string());
  set_environment("REDUCE_LAB_EMU_REQUIRED", "1");
  set_environment("REDUCE_LAB_EMU_NOT_RUN", std::nullopt);
  auto record_in = [](const fs::path& dir, const std::string& test, const Verdict& verdict) {
    set_environment("REDUCE_LAB_RESULTS_DIR", dir.string());
    record(3, test, verdict);
  };
  // This grade's three verdicts of lab 3 as they stand: the GPU's correctness and races, the emulator's correctness.
  auto verdicts = [&](const Verdict& correctness, const Verdict& races, const Verdict& emulated) {
    record_in(results, "correctness", correctness);
    record_in(results, "races", races);
    record_in(emulator, "correctness", emulated);
  };
  const Verdict correct = pass("40 cases ok", ""), no_race = pass("no race", "");
  const Verdict deadlock = fail("deadlock at 03_shared_memory.cu:22", "");
  auto gpu_gate = [&results](std::string* alone = nullptr) {
    set_environment("REDUCE_LAB_RESULTS_DIR", results.string());
    std::string ignored;
    return verdict_refusal(3, "gpu", alone ? alone : &ignored);
  };

  SECTION("before its verdicts: refused, naming each missing one and where it was looked for") {
    const auto refusal = gpu_gate();
    REQUIRE(refusal);
    CHECK(refusal->summary == "no verdict yet");
    CHECK_THAT(refusal->message, Catch::Contains("lab3.correctness (correctness test on the GPU): not found in " +
                                                 (results / "lab3.correctness").string()));
    CHECK_THAT(refusal->message, Catch::Contains("lab3.races (races test (compute-sanitizer))"));
    CHECK_THAT(refusal->message,
               Catch::Contains("lab3.correctness (correctness test on the CPU emulator): not found in " +
                               (emulator / "lab3.correctness").string() + " or " +
                               (results / "lab3.correctness.emu").string()));
    CHECK_THAT(refusal->message, Catch::Contains("./lab grade 3"));
    // A correctness test that was skipped judged nothing either.
    verdicts(skip("skipped", "no GPU"), skip("skipped", "compute-sanitizer was not found with the CUDA toolkit"),
             correct);
    const auto skipped = gpu_gate();
    REQUIRE(skipped);
    CHECK(skipped->summary == "no verdict yet");
    CHECK_THAT(skipped->message, Catch::Contains("skipped (skipped), so it judged nothing"));
    CHECK_THAT(skipped->message, !Catch::Contains("lab3.races"));  // a skipped races test is enough
  }
  SECTION("after passing verdicts of the file as it is: allowed; each verdict keeps the file it judged") {
    verdicts(correct, no_race, correct);
    CHECK(read_text((results / "lab3.correctness.source").string()) == "version 1 of lab 3\n");
    std::string alone = "unset";
    CHECK_FALSE(gpu_gate(&alone));
    CHECK(alone == "unset");  // the emulator's verdict was there: nothing rests on the GPU alone
    // The emulator's verdict copied into the GPU grade's folder serves as well.
    for (const char* part : {"", ".json", ".source"})
      fs::copy_file(emulator / ("lab3.correctness" + std::string(part)),
                    results / ("lab3.correctness.emu" + std::string(part)));
    fs::remove_all(emulator);
    CHECK_FALSE(gpu_gate());
    // On the emulator's own backend, its correctness and the races record are what count.
    set_environment("REDUCE_LAB_RESULTS_DIR", results.string());
    std::string ignored;
    CHECK_FALSE(verdict_refusal(3, "emu", &ignored));
  }
  SECTION("with verdicts of another version of the file: refused, naming them") {
    verdicts(correct, no_race, deadlock);
    build("version 2 of lab 3: the barrier moved out of the if\n");  // rebuilt after those verdicts
    const auto refusal = gpu_gate();
    REQUIRE(refusal);
    CHECK(refusal->summary == "verdict of another version");
    CHECK_THAT(refusal->message, Catch::Contains("lab3.correctness (correctness test on the CPU emulator): " +
                                                 (emulator / "lab3.correctness").string()));
    CHECK_THAT(refusal->message, Catch::Contains("lab3.races (races test (compute-sanitizer)): " +
                                                 (results / "lab3.races").string()));
    CHECK_THAT(refusal->message, Catch::Contains("compared byte for byte"));
    // A verdict whose copy is missing says nothing of the file either.
    fs::remove(results / "lab3.correctness.source");
    record_in(results, "races", no_race);
    record_in(emulator, "correctness", correct);
    const auto no_copy = gpu_gate();
    REQUIRE(no_copy);
    CHECK(no_copy->summary == "verdict of another version");
    CHECK_THAT(no_copy->message, Catch::Contains((results / "lab3.correctness").string()));
  }
  SECTION("with a failed verdict of the file: refused as not correct yet, naming the test") {
    verdicts(correct, no_race, deadlock);
    const auto refusal = gpu_gate();
    REQUIRE(refusal);
    CHECK(refusal->summary == "not correct yet");
    CHECK_THAT(refusal->message,
               Catch::Contains("correctness test on the CPU emulator failed: deadlock at 03_shared_memory.cu:22"));
    // Every failed verdict is named, the emulator's before the races test's.
    record_in(results, "races", fail("race (racecheck)", ""));
    const auto both = gpu_gate();
    REQUIRE(both);
    CHECK(both->summary == "not correct yet");
    CHECK_THAT(both->message, Catch::Contains("correctness test on the CPU emulator failed: deadlock at "
                                              "03_shared_memory.cu:22\n" + lab_title(3) +
                                              "'s races test (compute-sanitizer) failed: race (racecheck)\n"));
    CHECK_THAT(both->message, Catch::Contains("(lab3.correctness, lab3.races in the table)"));
  }
  SECTION("a file changed after its build is not timed, whatever its verdicts") {
    verdicts(correct, no_race, correct);
    write(lab_file, "version 2, saved after the build\n");
    const auto refusal = gpu_gate();
    REQUIRE(refusal);
    CHECK(refusal->summary == "file changed since its build");
    fs::remove(compiled);  // and a build that kept no copy of its file times nothing
    const auto no_copy = gpu_gate();
    REQUIRE(no_copy);
    CHECK(no_copy->summary == "no verdict yet");
    CHECK_THAT(no_copy->message, Catch::Contains(compiled.string()));
  }
  SECTION("where the emulator cannot be built, its missing verdict leaves the figure to the GPU alone") {
    set_environment("REDUCE_LAB_EMU_REQUIRED", std::nullopt);
    set_environment("REDUCE_LAB_EMU_NOT_RUN", "Boost.Context missing");
    record_in(results, "correctness", correct);
    record_in(results, "races", no_race);
    std::string alone;
    CHECK_FALSE(gpu_gate(&alone));
    CHECK(alone == "the CPU emulator's correctness was not run, Boost.Context missing");
    // An emulator verdict that is there still counts.
    record_in(emulator, "correctness", deadlock);
    const auto refusal = gpu_gate();
    REQUIRE(refusal);
    CHECK(refusal->summary == "not correct yet");
  }
  SECTION("the timed build's traffic, as the traffic test recorded it: read like a verdict") {
    set_environment("REDUCE_LAB_RESULTS_DIR", results.string());
    auto traffic = [](bool emulator_judged, std::string* note) {
      return recorded_traffic_refusal(3, emulator_judged, note);
    };
    std::string note;
    const auto missing = traffic(true, &note);  // before the traffic test ran
    REQUIRE(missing);
    CHECK(missing->summary == "no verdict yet");
    CHECK_THAT(missing->message, Catch::Contains("lab3.traffic") && Catch::Contains("./lab grade 3"));
    record_in(results, kTimedTrafficRecord, pass("equal", "Its global-memory traffic equals the counted build's."));
    CHECK_FALSE(traffic(true, &note));
    CHECK(note == "Its global-memory traffic equals the counted build's.");
    build("version 2 of lab 3\n");  // rebuilt after it
    const auto stale = traffic(true, &note);
    REQUIRE(stale);
    CHECK(stale->summary == "verdict of another version");
    // Other traffic: a difference between the builds' code where the emulator judged the file,
    // undefined behaviour where nothing did.
    const std::string differs = "lab 3's timed build moved other global-memory traffic than its counted build";
    record_in(results, kTimedTrafficRecord, fail("timed traffic differs", differs, {{"outcome", "differs"}}));
    const auto judged = traffic(true, &note);
    REQUIRE(judged);
    CHECK(judged->summary == "timed code differs from counted");
    CHECK_THAT(judged->message, Catch::StartsWith(differs));
    const auto alone = traffic(false, &note);
    REQUIRE(alone);
    CHECK(alone->summary == "timed run differs from counted run");
    CHECK_THAT(alone->message, Catch::Contains("undefined behaviour") && Catch::Contains("./lab grade --emu 3"));
    // A comparison stopped midway, and a counted build that failed at the timed size.
    record_in(results, kTimedTrafficRecord, fail("not measured", "did not finish", {{"outcome", "unfinished"}}));
    const auto unfinished = traffic(true, &note);
    REQUIRE(unfinished);
    CHECK(unfinished->summary == "timed traffic not measured");
    record_in(results, kTimedTrafficRecord, fail("counted build failed", "failed at n = 2^26", {{"outcome", "counted_failed"}}));
    const auto counted = traffic(true, &note);
    REQUIRE(counted);
    CHECK(counted->summary == "not correct yet");
    // Not compared (no ncu): nothing refused, and the note says why.
    record_in(results, kTimedTrafficRecord, skip("not compared", "not compared: no ncu."));
    note = "The timed build launched the counted build's kernels at n = 2^26.";  // what it follows
    CHECK_FALSE(traffic(true, &note));
    CHECK(note == "The timed build launched the counted build's kernels at n = 2^26. not compared: no ncu.");
  }
  SECTION("the build keeps the bytes each module was compiled from") {
    // The plain build's compiler launcher copies the lab file; a counting build's rewrite step
    // writes the copy of what it rewrote.
    const std::string stem = (modules / module_file_stem(3, Flavor::plain)).string();
    const std::string launch = "'" + source_root() + "/tools/capture-build-log' --source '" + lab_file.string() +
                               "' '" + stem + "' true 2>/dev/null";
    write(lab_file, "version 3\n");
    CHECK(std::system(launch.c_str()) == 0);
    CHECK(read_text(stem + ".source.cu") == "version 3\n");
    fs::remove(lab_file);  // a file it cannot read leaves no copy, not an earlier one
    std::system(launch.c_str());
    CHECK_FALSE(fs::exists(stem + ".source.cu"));
    write(lab_file, "__shared__ float s[4]; // a; semicolon\n");
    const std::string rewrite = "cmake '-DINPUT=" + lab_file.string() + "' '-DOUTPUT=" + stem +
                                ".cpp' -DBACKEND=emu '-DSOURCE_COPY=" + stem + ".source.cu' -P '" + source_root() +
                                "/cmake/counting_rewrite.cmake'";
    CHECK(std::system(rewrite.c_str()) == 0);
    CHECK(read_text(stem + ".source.cu") == "__shared__ float s[4]; // a; semicolon\n");
  }
  set_environment("REDUCE_LAB_RESULTS_DIR", std::nullopt);
  set_environment("REDUCE_LAB_EMU_RESULTS_DIR", std::nullopt);
  set_environment("REDUCE_LAB_EMU_REQUIRED", std::nullopt);
  set_environment("REDUCE_LAB_EMU_NOT_RUN", std::nullopt);
}
