// What every lab test file uses: the checks, the plans each lab is graded with (plans.hpp), and
// grade(), which records a verdict for the table, prints it once, and fails the test case when
// the verdict does.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "correctness_check.hpp"
#include "count_checks.hpp"
#include "speed_check.hpp"
#include "plans.hpp"

namespace reduce_lab::grader {

void grade(int lab, const char* test, const Verdict& verdict);
// True once grade() has printed a failed verdict in this process.
bool graded_failure();

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
