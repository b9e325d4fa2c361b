#include "base/build_tells.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace reduce_lab::grader {

const std::vector<std::string>& build_dependent_macros() {
  // Counting builds: the counted barriers (counting_prelude.cuh, reduce_emu/emu.h).
  // Emulator: the CUDA built-ins and qualifiers it spells as macros (reduce_emu/runtime.h,
  // emu.h). Every build: the kit's own switches (module.cuh, global.cuh).
  static const std::vector<std::string> names = {
      "__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or", "__barrier_sync",
      "threadIdx", "blockIdx", "blockDim", "gridDim", "__global__", "__device__", "__host__", "__constant__",
      "__managed__", "__shared__", "__forceinline__", "__restrict__", "__launch_bounds__", "__align__",
      "cudaStreamLegacy", "cudaStreamPerThread"};
  return names;
}

const std::vector<std::string>& public_kit_macros() {
  static const std::vector<std::string> names = {"REDUCE_LAB_TODO", "REDUCE_LAB_MULTIPASS", "REDUCE_LAB_SINGLE",
                                                 "REDUCE_LAB_GENERIC", "REDUCE_LAB_ROWS", "REDUCE_LAB_FAN_IN",
                                                 "REDUCE_LAB_CHOSEN_FACTOR", "REDUCE_LAB_ORDER"};
  return names;
}

namespace {

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The source with comments and string/character literals blanked, newlines kept, so line
// numbers stay those of the file.
std::string code_only(const std::string& source) {
  std::string out;
  out.reserve(source.size());
  enum { code, line_comment, block_comment, string_literal, char_literal } state = code;
  for (std::size_t i = 0; i < source.size(); ++i) {
    const char c = source[i];
    const char next = i + 1 < source.size() ? source[i + 1] : '\0';
    switch (state) {
      case code:
        if (c == '/' && next == '/') {
          state = line_comment;
          out += "  ";
          ++i;
        } else if (c == '/' && next == '*') {
          state = block_comment;
          out += "  ";
          ++i;
        } else if (c == '"') {
          state = string_literal;
          out += ' ';
        } else if (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(source[i - 1])))) {
          state = char_literal;  // not a digit separator (1'000)
          out += ' ';
        } else {
          out += c;
        }
        break;
      case line_comment:
        if (c == '\n') {
          state = code;
          out += '\n';
        } else {
          out += ' ';
        }
        break;
      case block_comment:
        if (c == '*' && next == '/') {
          state = code;
          out += "  ";
          ++i;
        } else {
          out += c == '\n' ? '\n' : ' ';
        }
        break;
      case string_literal:
      case char_literal:
        if (c == '\\' && next != '\0') {
          out += ' ';
          out += next == '\n' ? '\n' : ' ';
          ++i;
        } else if ((state == string_literal && c == '"') || (state == char_literal && c == '\'')) {
          state = code;
          out += ' ';
        } else {
          out += c == '\n' ? '\n' : ' ';
          if (c == '\n') state = code;  // an unterminated literal ends at its line
        }
        break;
    }
  }
  return out;
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::vector<BuildTell> find_build_tells(const std::string& source) {
  const std::string code = code_only(source);
  std::vector<std::string> original_lines, code_lines;
  {
    std::istringstream a(source), b(code);
    std::string line;
    while (std::getline(a, line)) original_lines.push_back(line);
    while (std::getline(b, line)) code_lines.push_back(line);
  }
  std::vector<BuildTell> tells;
  bool continued_condition = false;  // a #if whose condition goes on after a backslash
  for (std::size_t number = 0; number < code_lines.size(); ++number) {
    const std::string& line = code_lines[number];
    const std::string start = trimmed(line);
    bool condition = continued_condition;
    if (!start.empty() && start[0] == '#') {
      std::string directive = trimmed(start.substr(1));
      std::size_t end = 0;
      while (end < directive.size() && is_identifier_char(directive[end])) ++end;
      directive = directive.substr(0, end);
      condition = directive == "if" || directive == "ifdef" || directive == "ifndef" || directive == "elif" ||
                  directive == "elifdef" || directive == "elifndef";
    }
    continued_condition = condition && !line.empty() && line.back() == '\\';
    // The identifiers of the line, with the one before each (for reduce_lab::detail).
    std::string previous, before_previous;
    for (std::size_t i = 0; i < line.size();) {
      if (!is_identifier_start(line[i])) {
        if (line.compare(i, 2, "::") == 0) {
          before_previous = previous;
          previous = "::";
          i += 2;
          continue;
        }
        if (!std::isspace(static_cast<unsigned char>(line[i]))) before_previous = previous, previous = std::string(1, line[i]);
        ++i;
        continue;
      }
      if (i > 0 && std::isdigit(static_cast<unsigned char>(line[i - 1]))) {  // 1e5f, 0x1F: part of a number
        while (i < line.size() && is_identifier_char(line[i])) ++i;
        continue;
      }
      std::size_t end = i;
      while (end < line.size() && is_identifier_char(line[end])) ++end;
      const std::string name = line.substr(i, end - i);
      bool tells_apart = false;
      if (name.rfind("REDUCE_LAB_", 0) == 0) tells_apart = !contains(public_kit_macros(), name);
      else if (name.rfind("REDUCE_EMU", 0) == 0 || name.rfind("reduce_emu", 0) == 0) tells_apart = true;
      else if (name == "detail" && previous == "::" && before_previous == "reduce_lab") tells_apart = true;
      else if (condition && contains(build_dependent_macros(), name)) tells_apart = true;
      if (tells_apart)
        tells.push_back({static_cast<int>(number) + 1, name == "detail" ? "reduce_lab::detail" : name,
                         trimmed(number < original_lines.size() ? original_lines[number] : line)});
      before_previous = previous;
      previous = name;
      i = end;
    }
  }
  return tells;
}

}  // namespace reduce_lab::grader
