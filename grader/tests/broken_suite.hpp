// The broken-lab suite (grader/tests/broken/): each case is a whole lab file as a student
// might hand it in, and its header says which verdict every check must give it. This is
// the expectation parser and the runner (labgrader --broken), which runs each expected
// check in a process of its own, exactly as the lab's own CTest test runs it, and compares.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "selftest.hpp"
#include "base/verdict.hpp"

namespace reduce_lab::grader::broken {

// The checks a lab is graded on, in the order the runner runs them.
extern const char* const kChecks[4];

// One line of a case's header:
//   // expect <gpu|emu|all> <check> <PASS|FAIL|SKIP> ["summary substring" ["message substring"]]
struct Expectation {
  std::string backend;  // gpu, emu or all
  std::string check;    // correctness, requests, speedup or races
  Status status = Status::fail;
  std::string summary;  // the table summary must contain it (empty: anything)
  std::string message;  // the full message must contain it (empty: not checked)
  int line = 0;         // where it is written, for messages
};

struct Case {
  std::string name;  // the file's stem: lab4_no_bounds_check
  int lab = 0;       // from the name: lab<N>_... or ok_lab<N>_...
  bool legal = false;  // ok_...: a legal alternative, which must pass everywhere
  std::vector<Expectation> expectations;
  // "// env NAME=VALUE" lines: settings the checks of this case run with (REDUCE_LAB_* only),
  // for a case that is meant to hit a time limit and need not wait for the default one.
  std::vector<std::pair<std::string, std::string>> environment;
};

class SpecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses the case in `text`, read from `path` (its file name gives the lab and the name).
// Throws SpecError with "file:line: what is wrong" for anything it does not understand.
Case parse_case(const std::string& path, const std::string& text);

// The expectations that apply on `backend` (gpu or emu), in the order of kChecks.
std::vector<Expectation> expectations_for(const Case& c, const std::string& backend);

// The verdicts the GPU's speed test of case `c` rests on (speed_gate.hpp), which a run on
// `backend` must leave in the case's results folder, expected or not, as (lab, check): on the
// GPU, correctness and races of the case's lab and of its baseline lab; on the emulator, their
// correctness, which the GPU's run reads from there. None when the GPU expects no speed verdict.
std::vector<std::pair<int, std::string>> speed_prerequisites(const Case& c, const std::string& backend);

// Whether `verdict` is what `expected` asks for; when not, `why` says what differs.
bool meets(const Expectation& expected, const Verdict& verdict, std::string* why);

// run_case(), what labgrader --broken runs, is declared in selftest.hpp.

}  // namespace reduce_lab::grader::broken
