// "One kernel for every build" (design §13): what the speed test refuses to time, and what it
// must never refuse.
#include <filesystem>
#include <algorithm>
#include <regex>
#include <sstream>
#include <string>

#include "base/build_tells.hpp"
#include "catch_compat.hpp"
#include "measure/kernel_trace.hpp"
#include "kit.hpp"

using namespace reduce_lab::grader;

namespace {

std::vector<std::filesystem::path> files_in(const std::string& folder, const std::string& extension) {
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::is_directory(folder)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder))
    if (entry.is_regular_file() && (extension.empty() || entry.path().extension() == extension))
      files.push_back(entry.path());
  return files;
}

}  // namespace

TEST_CASE("kit build_tells") {
  SECTION("no legal lab file is refused: every stub, solution and legal case of the broken-lab suite") {
    int read = 0;
    for (const char* folder : {"/labs", "/solutions", "/grader/tests/broken"}) {
      for (const auto& path : files_in(source_root() + folder, ".cu")) {
        const std::string name = path.filename().string();
        // The cases written to be refused for telling the builds apart.
        if (name == "lab6_kernel_reads_build_macro.cu") continue;
        INFO(path.string());
        const auto tells = find_build_tells(read_text(path));
        CHECK(tells.empty());
        if (!tells.empty()) FAIL_CHECK("line " << tells.front().line << ": " << tells.front().name);
        ++read;
      }
    }
    CHECK(read >= 21);
  }

  SECTION("what tells the builds apart is found, with its line; comments and strings are not code") {
    const std::string lab =
        "// REDUCE_LAB_COUNTING in a comment, /* and */ REDUCE_LAB_EMU in another\n"  // 1
        "const char* s = \"REDUCE_LAB_IS_COUNTING\";\n"                                // 2
        "#if defined(REDUCE_LAB_COUNTING) || \\\n"                                   // 3
        "    defined(__syncthreads)\n"                                                // 4
        "#endif\n"                                                                    // 5
        "#ifdef threadIdx\n"                                                          // 6
        "#endif\n"                                                                    // 7
        "int x = REDUCE_LAB_IS_COUNTING;\n"                                           // 8
        "using namespace ::reduce_lab::detail;\n"                                     // 9
        "__syncthreads(); float y = 1e5f; int z = 1'000;\n"                          // 10
        "REDUCE_LAB_TODO(); reduce_emu::launch();\n"                                  // 11
        "/* a block comment\n#ifdef REDUCE_LAB_COUNTING\n*/\n";                       // 12-14
    const auto tells = find_build_tells(lab);
    std::vector<std::string> found;
    for (const BuildTell& t : tells) found.push_back(std::to_string(t.line) + " " + t.name);
    CHECK(found == std::vector<std::string>{"3 REDUCE_LAB_COUNTING", "4 __syncthreads", "6 threadIdx",
                                            "8 REDUCE_LAB_IS_COUNTING", "9 reduce_lab::detail", "11 reduce_emu"});
    REQUIRE(!tells.empty());
    CHECK(tells.front().text == "#if defined(REDUCE_LAB_COUNTING) || \\");
  }

  SECTION("every macro the kit's headers define is known: build-specific, or the kit's own prefix") {
    // A header that starts defining a new macro in one build only must add it to
    // build_dependent_macros(), or a lab could test it unseen.
    const std::regex define("^\\s*#\\s*define\\s+([A-Za-z_][A-Za-z0-9_]*)");
    int defines = 0;
    for (const char* folder : {"/grader/include", "/grader/emu/include"}) {
      for (const auto& path : files_in(source_root() + folder, "")) {
        std::istringstream lines(read_text(path));
        std::string line;
        while (std::getline(lines, line)) {
          std::smatch match;
          if (!std::regex_search(line, match, define)) continue;
          const std::string name = match[1];
          ++defines;
          INFO(path.string() << ": #define " << name);
          const bool kit_prefix = name.rfind("REDUCE_LAB_", 0) == 0 || name.rfind("REDUCE_EMU", 0) == 0;
          const auto& known = build_dependent_macros();
          CHECK((kit_prefix || std::find(known.begin(), known.end(), name) != known.end()));
        }
      }
    }
    CHECK(defines >= 20);
  }

  SECTION("kernel names compare without their parameter lists, whose types differ between the builds") {
    CHECK(kernel_name_without_parameters("_Z27CoarsenedSumReductionKernelPKfPfj") == "CoarsenedSumReductionKernel");
    CHECK(kernel_name_without_parameters(
              "void TemplatedReductionKernel<float, reduce_lab::Sum, 512u>(reduce_lab::Global<float const>, "
              "reduce_lab::Global<float>, unsigned long long)") == "TemplatedReductionKernel<float, reduce_lab::Sum, 512u>");
    CHECK(kernel_name_without_parameters("void TemplatedReductionKernel<float, reduce_lab::Sum, 512u>(float const*, "
                                         "float*, unsigned long long)") ==
          "TemplatedReductionKernel<float, reduce_lab::Sum, 512u>");
  }
}
