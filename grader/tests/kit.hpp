// The kit's own tests' helpers (compiled into self-test builds only): where the sources are,
// files and folders, and headless Chromium. grade.hpp brings what the lab tests use too: the
// checks, the plans and grade().
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "base/files.hpp"
#include "grade.hpp"
#include "selftest.hpp"

namespace reduce_lab::grader {

// The kit's source folder the tests read (REDUCE_LAB_SOURCE_ROOT, else the working folder).
std::string source_root();

// read_text(), a whole file as text, is in files.hpp.

// A new, empty folder under the system's temporary folder, named for `name` and this process,
// removed when the process ends (kept with REDUCE_LAB_KEEP_TEST_DIRS=1).
std::filesystem::path fresh_dir(const std::string& name);

// find_chromium(), the browser render_in_chromium() starts, is in selftest.hpp.

// Renders SVGs as a browser does: headless Chromium parses each of `charts` (name -> SVG text),
// puts it in a page in `dir` and lays it out, and calls `measure`'s JavaScript function
// measure(svg, view) on it (view: its viewBox); what that returns comes back per name (through
// the page's text, as base64 of JSON, which --dump-dom prints unescaped), or {"error": ...} for
// an SVG that does not parse. The staircase and the pictures of ./lab show use it.
nlohmann::json render_in_chromium(const std::filesystem::path& dir, const nlohmann::json& charts, const char* measure);

}  // namespace reduce_lab::grader
