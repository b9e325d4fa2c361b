// The supervising parent of a graded test (main.cpp): it runs the test in a child process and,
// when the child ends without recording a verdict (a signal, the watchdog's or the emulator's
// exit, the test's time limit coming near), records one from how it ended, so the table says
// "crash: n = 2049" or "time limit: n = 5" rather than nothing. It is the one place where the
// end of a process becomes a verdict; the lab runner and the emulator only stop and say why.
#pragma once

#include <functional>
#include <string>

namespace reduce_lab::grader {

// Runs `test` in a child process and waits for it, stopping it a little before the test's
// budget runs out (limits.hpp). Returns the exit status for CTest (77: skipped). `lab` is the
// graded lab (0: a kit test, whose own failures Catch2 reports).
int supervise(int lab, const std::function<int()>& test);

// The lines of a tool's report that say what and where (compute-sanitizer's, or a child's last
// output), without banners and blank lines, indented: at most 12.
std::string report_excerpt(const std::string& report);

// The exit status CTest reads as "skipped".
constexpr int kSkipped = 77;

}  // namespace reduce_lab::grader
