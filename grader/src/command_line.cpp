#include "command_line.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "base/settings.hpp"

namespace reduce_lab::grader {

namespace {

std::string first_line_of_command(const std::string& command) {
  std::string text;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[256];
    if (std::fgets(buffer, sizeof buffer, pipe)) text = buffer;
    pclose(pipe);
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

Options parse_options(int argc, char** argv, int first, const std::map<std::string, int>& allowed, const char* usage) {
  Options options;
  for (int i = first; i < argc; ++i) {
    const std::string name = argv[i];
    const auto known = allowed.find(name);
    if (known == allowed.end()) throw UsageError("unknown option '" + name + "'\nusage: " + usage);
    if (i + known->second >= argc)
      throw UsageError(name + " needs " + std::to_string(known->second) + " value(s)\nusage: " + usage);
    std::vector<std::string>& values = options[name];
    for (int k = 0; k < known->second; ++k) values.push_back(argv[++i]);
  }
  return options;
}

std::string option(const Options& options, const std::string& name, const std::string& fallback) {
  const auto it = options.find(name);
  return it == options.end() || it->second.empty() ? fallback : it->second.front();
}

double number_option(const Options& options, const std::string& name, double fallback) {
  const std::string text = option(options, name);
  if (text.empty()) return fallback;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') throw UsageError(name + " takes a number, not '" + text + "'");
  return value;
}

std::string grader_source_root() {
#if defined(REDUCE_LAB_SOURCE_ROOT_DIR)
  return REDUCE_LAB_SOURCE_ROOT_DIR;
#else
  return ".";
#endif
}

std::string kit_version() {
  if (!settings().kit_version.empty()) return settings().kit_version;
  const std::string root = grader_source_root();
  std::ifstream handed_out(root + "/.kit-version");  // a handout or an autograder copy
  std::string version;
  if (handed_out && std::getline(handed_out, version) && !version.empty()) return version;
  version = first_line_of_command("git -C '" + root + "' describe --always --dirty 2>/dev/null");
  return version.empty() ? "unknown" : version;
}

}  // namespace reduce_lab::grader
