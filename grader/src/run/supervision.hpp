// A graded test runs in a child process that its parent watches (main.cpp), so that a test
// which crashes, hangs or is stopped still ends with a verdict that names what happened.
// What the parent needs to know then lives in one page both share: the case the child was
// running and whether it recorded a verdict. The page is an unlinked file whose descriptor
// survives fork and exec (compute-sanitizer runs the test as its own child), found through
// REDUCE_LAB_SUPERVISOR_FD; without it every call here does nothing.
#pragma once

#include <string>

namespace reduce_lab::grader::supervision {

// Parent, before fork: creates the page and exports its descriptor. False when it cannot.
bool create();

// Child: the case about to run, as summaries name it ("n = 2049", "float max n = 31").
void note_case(const std::string& label);
// Child: a verdict has been recorded for the test, so the parent must not replace it.
void note_verdict();
// Child, about to end itself (the watchdog): why, for the parent to turn into the test's
// verdict. The process that stops a lab does not judge it; the parent records what it says.
// False when there is no parent to tell (then the caller prints it).
bool note_stop(const std::string& summary, const std::string& message);

struct Snapshot {
  bool has_case = false;
  std::string label;
  bool verdict = false;
  bool stopped = false;  // note_stop() was called: stop_summary and stop_message say why
  std::string stop_summary, stop_message;
};
// Parent, after the child ended.
Snapshot read();

}  // namespace reduce_lab::grader::supervision
