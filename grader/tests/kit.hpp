// What every lab test file uses: the checks, the plans each lab is graded with, and grade(),
// which records a verdict for the table, prints it once, and fails the test case when the
// verdict does. The plans live here once: the lab tests, the count dump and the docs test (which
// checks every figure the docs state about them) all read these objects.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "checks.hpp"

namespace reduce_lab::grader {

void grade(int lab, const char* test, const Verdict& verdict);
// True once grade() has printed a failed verdict in this process.
bool graded_failure();

// Labs 1-3 (multipass, n a power of two): every power of two from 2 to 2^20 with random
// inputs, and the other patterns at a few sizes.
CorrectnessPlan power_of_two_plan();

// Labs 4-7 (any n): the odd sizes of design §2 and the powers of two, random inputs, and
// the other patterns (all-negative too, for max) at a few of them.
CorrectnessPlan any_size_plan();

// Sizes at which labs 4-7 are counted: one element, a partial warp, a partial block,
// many blocks with a ragged end.
std::vector<std::size_t> traffic_sizes();

// The plan of each lab's tests (labN.correctness, labN.requests, labN.races).
CorrectnessPlan correctness_plan(int lab);
std::vector<std::size_t> book_request_sizes();  // labs 1-3: one pass counted at each
TrafficPlan traffic_plan(int lab);               // labs 4-7
// What the races test runs under compute-sanitizer: sizes of one and many blocks, and for
// labs 4-7 small odd ones, where a read past n is past the end of the allocation.
CorrectnessPlan races_plan(int lab);

// The kit's source folder the tests read (REDUCE_LAB_SOURCE_ROOT, else the working folder).
std::string source_root();

// A whole file as text; empty when it cannot be read.
std::string read_text(const std::filesystem::path& path);

// A new, empty folder under the system's temporary folder, named for `name` and this process.
std::filesystem::path fresh_dir(const std::string& name);

// The headless browser the staircase test renders SVG in: REDUCE_LAB_CHROMIUM, else chromium,
// chromium-browser or google-chrome on the PATH; empty when there is none.
std::string find_chromium();

// Renders SVGs as a browser does: headless Chromium parses each of `charts` (name -> SVG text),
// puts it in a page in `dir` and lays it out, and calls `measure`'s JavaScript function
// measure(svg, view) on it (view: its viewBox); what that returns comes back per name (through
// the page's text, as base64 of JSON, which --dump-dom prints unescaped), or {"error": ...} for
// an SVG that does not parse. The staircase and the pictures of ./lab show use it.
nlohmann::json render_in_chromium(const std::filesystem::path& dir, const nlohmann::json& charts, const char* measure);

}  // namespace reduce_lab::grader
