// The emulator build's check of CUDA's execution spaces (docs/emulator.md): the kit's own
// checker flags what nvcc rejects and nothing that nvcc accepts, in every lab file the kit
// has; the path a lab takes without nvcc (REDUCE_LAB_EMU_SPACES_CHECK=kit) ends in the
// grader's "does not compile" with the checker's words; and where the suite was built with
// nvcc, its words come first.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "catch_compat.hpp"
#include "execution_spaces.hpp"
#include "kit.hpp"
#include "run/modules.hpp"
#include "base/settings.hpp"

using namespace reduce_lab::grader;
using reduce_lab::spaces::check_execution_spaces;

namespace {

namespace fs = std::filesystem;

std::string findings_of(const std::string& text) {
  std::string all;
  for (const auto& f : check_execution_spaces(text)) all += std::to_string(f.line) + ": " + f.message + "\n";
  return all;
}

std::string host_call(const std::string& caller, const std::string& callee) {
  return caller + " calls " + callee +
         ", a host function: mark it __device__ (or __host__ __device__), as nvcc requires (docs/emulator.md)";
}

// Legal CUDA that nvcc 13 accepts (checked with nvcc --cuda when this test was written): every
// way a lab reaches a device function, and host functions a kernel must not be blamed for.
const std::string kLegal = R"(#include <reduce_lab/lab.cuh>
#define DEVICE_INLINE __device__ __forceinline__
namespace detail {
__device__ __forceinline__ float twice(float x) { return 2 * x; }
template <typename T> __device__ T half(T x) { return x / 2; }
}  // namespace detail
static __device__ float add3(float a, float b, float c) { return a + b + c; }
template <typename T> struct Max { __device__ T operator()(T a, T b) const { return a > b ? a : b; } };
struct Plus { __host__ __device__ float operator()(float a, float b) const { return a + b; } };
struct Holder { float v; float get() const { return v; } };
__host__ __device__ constexpr unsigned log2c(unsigned n) { return n <= 1 ? 0 : 1 + log2c(n / 2); }
unsigned blocks_for(unsigned n) { return (n + 2047) / 2048; }
float scale(float x) { return x * 0.5f; }
__host__ __device__ float both(float x) { return x + 1; }
DEVICE_INLINE float through_macro(float x) { return x; }
__host__ __device__ float host_too(float x) { return scale(x); }  /* nvcc: a warning, not an error */
__device__ auto dtrailing(float x) -> decltype(x) { return x; }
template <typename Op> __device__ float apply(Op op, float a, float b) { return op(a, b); }
__global__ void __launch_bounds__(1024) K(Global<const float> input, Global<float> output, unsigned n) {
    __shared__ float s[1 << log2c(1024)];
    unsigned t = threadIdx.x;
    auto scale = [](float x) { return x * 2; };  // a lambda hides the host function
    float v = t < n ? input[t] : 0.0f;
    v = scale(v) + detail::twice(v) + detail::half<float>(v) + add3(v, v, v);
    v = Max<float>()(v, 1.0f) + Plus()(v, v) + Plus{}(v, v) + both(v) + dtrailing(v);
    Max<float> m;
    v = m(v, 2.0f) + apply(Plus(), v, v) + ::add3(v, v, v) + through_macro(v);
    const char* text = "scale(v) in a string";
    s[t] = v + (text != nullptr);  // scale(v) in a comment
    __syncthreads();
    if (t == 0) atomicAdd(output, s[0]);
}
void run(Global<const float> input, Global<float> output, unsigned n) {
    reduce_lab::fill(output, scale(0.0f) + both(0.0f));
    Holder h{1};
    (void)h.get();
    launch(K, blocks_for(n), 1024, input, output, n);
}
REDUCE_LAB_SINGLE(4, "segmented", run)
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("kit spaces") {
  SECTION("legal CUDA is never flagged") { CHECK(findings_of(kLegal).empty()); }

  SECTION("each call nvcc rejects is named, with its line") {
    struct Mutation {
      const char* what;
      std::string from, to, expected;
    };
    const std::vector<Mutation> mutations = {
        {"a helper without __device__", "static __device__ float add3", "static float add3",
         "24: " + host_call("K", "add3") + "\n27: " + host_call("K", "add3") + "\n"},
        {"a namespace's helper", "__device__ __forceinline__ float twice", "__forceinline__ float twice",
         "24: " + host_call("K", "twice") + "\n"},
        {"a template without __device__", "template <typename T> __device__ T half", "template <typename T> T half",
         "24: " + host_call("K", "half") + "\n"},
        {"a constexpr function (nvcc rejects it without --expt-relaxed-constexpr)",
         "__host__ __device__ constexpr unsigned log2c", "constexpr unsigned log2c",
         "20: " + host_call("K", "log2c") + "\n"},
        {"a functor's operator() without __device__", "struct Max { __device__ T operator()", "struct Max { T operator()",
         "25: " + host_call("K", "Max::operator()") + "\n27: " + host_call("K", "Max::operator()") + "\n"},
        {"a functor called as a temporary", "struct Plus { __host__ __device__ float", "struct Plus { float",
         "25: " + host_call("K", "Plus::operator()") + "\n"},
        {"a host function no lambda hides", "    auto scale = [](float x) { return x * 2; };  // a lambda hides the host function\n",
         "    \n", "24: " + host_call("K", "scale") + "\n"},
        {"a __device__ function called from host code", "scale(0.0f) + both(0.0f)", "scale(0.0f) + dtrailing(0.0f)",
         "34: run calls dtrailing, a __device__ function, from host code: mark it __host__ __device__ if the host "
         "needs it too, as nvcc requires (docs/emulator.md)\n"},
        {"a macro that no longer says __device__", "#define DEVICE_INLINE __device__ __forceinline__",
         "#define DEVICE_INLINE __forceinline__", "27: " + host_call("K", "through_macro") + "\n"},
        {"a kernel that returns a value", "__global__ void __launch_bounds__(1024) K",
         "__global__ float __launch_bounds__(1024) K",
         "19: K is a __global__ function that returns float: a kernel returns void and writes its results to "
         "memory, as nvcc requires (docs/emulator.md)\n"},
    };
    for (const Mutation& m : mutations) {
      INFO(m.what);
      CHECK(findings_of(replaced(kLegal, m.from, m.to)) == m.expected);
    }
  }

  SECTION("the kit's labs: only the cases that nvcc rejects for a call across spaces") {
    // What the checker must say about each broken case; every other file must pass.
    const std::map<std::string, std::string> expected = {
        {"lab4_helper_without_device.cu",
         "28: " + host_call("SegmentedSumReductionKernel", "load_or_zero") + "\n29: " +
             host_call("SegmentedSumReductionKernel", "load_or_zero") + "\n"},
        {"lab5_device_helper_called_from_host.cu",
         "51: coarsened_sum calls blocks_for, a __device__ function, from host code: mark it __host__ __device__ if "
         "the host needs it too, as nvcc requires (docs/emulator.md)\n"},
    };
    int files = 0, flagged = 0;
    for (const char* folder : {"solutions", "labs", "grader/tests/broken"}) {
      if (!fs::is_directory(source_root() + "/" + folder)) continue;  // a student handout has no solutions
      for (const auto& entry : fs::directory_iterator(source_root() + "/" + folder)) {
        if (entry.path().extension() != ".cu") continue;
        const std::string name = entry.path().filename().string();
        INFO(folder << "/" << name);
        const auto it = expected.find(name);
        const std::string want = std::string(folder) == "grader/tests/broken" && it != expected.end() ? it->second : "";
        CHECK(findings_of(read_text(entry.path())) == want);
        ++files;
        flagged += !want.empty();
      }
    }
    CHECK(files >= 7);
    if (fs::is_directory(source_root() + "/grader/tests/broken")) CHECK(flagged == int(expected.size()));
  }

  SECTION("without nvcc, a lab the checker flags does not compile, in the checker's words") {
    // The build's own path (REDUCE_LAB_EMU_SPACES_CHECK=kit): capture-build-log runs the checker
    // beside the compiler (here one that succeeds), and the grader reads what it kept.
    const char* tool = std::getenv("REDUCE_LAB_CHECK_SPACES");
    REQUIRE(tool != nullptr);
    const fs::path dir = fresh_dir("kit-spaces");
    const std::string source = (dir / "04_segmented.cu").string();
    std::ofstream(source) << replaced(kLegal, "static __device__ float add3", "static float add3");
    const std::string stem = (dir / module_file_stem(4, Flavor::plain)).string();
    const std::string command = "'" + source_root() + "/tools/capture-build-log' --also 2 '" + tool + "' '" + source +
                                "' '" + stem + "' true 2>/dev/null";
    CHECK(std::system(command.c_str()) != 0);
    set_environment("REDUCE_LAB_MODULE_DIR", dir);
    const LoadedLab lab = load_lab(4, Flavor::plain);
    CHECK_FALSE(lab);
    CHECK_THAT(lab.problem, Catch::Contains("does not compile"));
    CHECK_THAT(lab.problem, Catch::Contains("First compiler error:\n  " + source + "(24): error: " + host_call("K", "add3")));
    fs::remove_all(dir);
  }

  SECTION("with nvcc, nvcc's own words come first") {
    const char* check = std::getenv("REDUCE_LAB_SPACES_CHECK");
    const char* built = std::getenv("REDUCE_LAB_BROKEN_BUILD_DIR");
    if (check == nullptr || std::string(check) != "nvcc" || built == nullptr ||
        !fs::exists(source_root() + "/grader/tests/broken/lab4_helper_without_device.cu")) {
      SUCCEED("this build checks without nvcc (or builds no broken-lab modules)");
      return;
    }
    const std::string log = read_text(std::string(built) + "/lab4_helper_without_device/lab04.emu.log");
    REQUIRE_FALSE(log.empty());
    CHECK_THAT(first_compiler_error(log),
               Catch::Contains("lab4_helper_without_device.cu(28): error: calling a __host__ "
                                         "function(\"load_or_zero(const float *, unsigned int, unsigned int)\") from "
                                         "a __global__ function(\"SegmentedSumReductionKernel\") is not allowed"));
  }
}
