// reduce-lab-check-spaces FILE: the emulator build's check of CUDA's execution spaces where
// nvcc is not available (execution_spaces.hpp). Prints each finding where nvcc would, in its
// form (FILE(LINE): error: ...), so the grader shows the first one as the lab's first compiler
// error, and exits 1 when there is one.
#include <fstream>
#include <iostream>
#include <sstream>

#include "execution_spaces.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: reduce-lab-check-spaces LAB.cu\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << argv[1] << ": error: cannot read the file\n";
    return 2;
  }
  std::ostringstream text;
  text << in.rdbuf();
  const auto findings = reduce_lab::spaces::check_execution_spaces(text.str());
  for (const auto& finding : findings) std::cerr << argv[1] << "(" << finding.line << "): error: " << finding.message << "\n";
  return findings.empty() ? 0 : 1;
}
