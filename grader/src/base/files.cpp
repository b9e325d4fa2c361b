#include "base/files.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace reduce_lab::grader {

std::string read_text(const std::string& path, bool* found) {
  std::ifstream in(path);
  if (found) *found = static_cast<bool>(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<std::string> read_file(const std::string& path) {
  bool found = false;
  std::string text = read_text(path, &found);
  if (!found) return std::nullopt;
  return text;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + " cannot be read (missing, or not a file)");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(path + " is not valid JSON: " + e.what());
  }
}

void write_text(const std::string& path, const std::string& text) {
  const std::filesystem::path target(path);
  std::error_code ignored;
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ignored);
  const std::string temporary = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(temporary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path + " (is its folder writable?)");
  }
  std::error_code error;
  std::filesystem::rename(temporary, target, error);
  if (error) throw std::runtime_error("cannot write " + path + ": " + error.message());
}

void write_json(const std::string& path, const nlohmann::json& value) { write_text(path, value.dump(2) + "\n"); }

std::string own_executable() {
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  return length > 0 ? std::string(self, static_cast<std::size_t>(length)) : std::string();
}

}  // namespace reduce_lab::grader
