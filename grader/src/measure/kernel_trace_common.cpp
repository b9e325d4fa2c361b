#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "measure/kernel_trace.hpp"

namespace reduce_lab::grader {

std::string kernel_name_without_parameters(const std::string& name) {
  std::string demangled = name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  if (status == 0 && text) demangled = text.get();
  // The parameter list is the first '(' outside template brackets, after the name; a return
  // type ("void ") in front of the name is dropped too.
  int depth = 0;
  std::size_t open = std::string::npos;
  for (std::size_t i = 0; i < demangled.size(); ++i) {
    const char c = demangled[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (c == '(' && depth == 0) {
      open = i;
      break;
    }
  }
  std::string result = demangled.substr(0, open);
  if (result.rfind("void ", 0) == 0) result = result.substr(5);
  return result;
}

std::string KernelLaunch::text() const {
  auto dims = [](const unsigned d[3]) {
    std::string t = std::to_string(d[0]);
    if (d[1] != 1 || d[2] != 1) t += "x" + std::to_string(d[1]);
    if (d[2] != 1) t += "x" + std::to_string(d[2]);
    return t;
  };
  std::string t = name + " <<<" + dims(grid) + ", " + dims(block);
  if (dynamic_shared) t += ", " + std::to_string(dynamic_shared) + " bytes";
  return t + ">>>";
}

bool KernelLaunch::operator==(const KernelLaunch& o) const {
  for (int k = 0; k < 3; ++k)
    if (grid[k] != o.grid[k] || block[k] != o.block[k]) return false;
  return name == o.name && dynamic_shared == o.dynamic_shared;
}

}  // namespace reduce_lab::grader
