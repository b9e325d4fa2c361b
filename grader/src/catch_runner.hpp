// Catch2's session behind one function, so that main.cpp does not include Catch2 at all.
#pragma once

namespace reduce_lab::grader {

// Runs the Catch2 test cases that argv selects (Catch2's own command line); returns its status.
int run_catch_session(int argc, char** argv);

}  // namespace reduce_lab::grader
