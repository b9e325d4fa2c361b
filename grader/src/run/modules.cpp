#include "run/modules.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "base/catalog.hpp"
#include "base/files.hpp"
#include "base/settings.hpp"

namespace reduce_lab::grader {

namespace {

bool file_exists(const std::string& path) { return static_cast<bool>(std::ifstream(path)); }

const char* flavor_suffix(Flavor flavor) {
#if defined(REDUCE_LAB_EMU)
  (void)flavor;
  return "emu";  // the emulator counts in its only flavour
#else
  return flavor == Flavor::plain ? "gpu" : "gpucount";
#endif
}

}  // namespace

std::string module_file_stem(int number, Flavor flavor) {
  char stem[32];
  std::snprintf(stem, sizeof stem, "lab%02d.%s", number, flavor_suffix(flavor));
  return stem;
}

std::string module_file(const std::string& dir, int number, Flavor flavor) {
  return dir + "/" + module_file_stem(number, flavor) + ".so";
}

std::string first_compiler_error(const std::string& log_text) {
  std::istringstream lines(log_text);
  std::string line, previous;
  while (std::getline(lines, line)) {
    if (line.find("error") != std::string::npos && line.find("warning") == std::string::npos) {
      // gcc prints "In function ..." on the line before; nvcc puts file(line): on the error line.
      if (!previous.empty() && previous.find("In function") != std::string::npos)
        return previous + "\n" + line;
      return line;
    }
    previous = line;
  }
  return {};
}

namespace {

// Where a lab file registers itself: the line number and text of its REDUCE_LAB_SINGLE(...)
// (MULTIPASS, GENERIC) line; 0 when the file cannot be read or has none.
std::pair<int, std::string> registration_line(const std::string& path) {
  bool found = false;
  std::istringstream lines(read_text(path, &found));
  std::string line;
  for (int number = 1; found && std::getline(lines, line); ++number) {
    const std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos) continue;
    for (const char* form : {"REDUCE_LAB_SINGLE(", "REDUCE_LAB_MULTIPASS(", "REDUCE_LAB_GENERIC("})
      if (line.compare(start, std::strlen(form), form) == 0) return {number, line.substr(start)};
  }
  return {0, {}};
}

// Why a module that loaded cannot be graded as lab `number`, or nothing. `path` is the lab file
// the build compiled (for the line to change), `source` how messages name it.
std::string mismatch(const ModuleInfo& info, int number, const std::string& stem, const std::string& path,
                     const std::string& source) {
  if (info.abi_version != kAbiVersion)
    return stem + ".so was built against version " + std::to_string(info.abi_version) +
           " of the kit's lab interface (grader/include/reduce_lab/abi.h), and this grader reads version " +
           std::to_string(kAbiVersion) + ": the module is left from another version of the kit. Rebuild it with " +
           "./lab grade " + std::to_string(number) + ".";
  if (info.lab == number) return {};
  const auto [line, text] = registration_line(path);
  const std::string registered = std::to_string(info.lab), expected = std::to_string(number);
  std::string message = source + " registers itself as lab " + registered;
  message += line > 0 ? " (line " + std::to_string(line) + ": " + text + ")" : "";
  message += ", but grader/labs.json expects lab " + expected + " in that file. ";
  message += line > 0 ? "Change the " + registered + " to " + expected + " in line " + std::to_string(line) + " of " +
                            source
                      : "Change the first argument of its REDUCE_LAB_* line to " + expected;
  return message + ", then grade it again (a rebuild alone changes nothing).";
}

std::string fingerprint_of(const std::string& path) {
  struct stat about {};
  if (stat(path.c_str(), &about) != 0) return {};
  return path + " " + std::to_string(about.st_size) + " " + std::to_string(about.st_mtim.tv_sec) + "." +
         std::to_string(about.st_mtim.tv_nsec);
}

}  // namespace

std::string module_fingerprint(int number) {
  const std::string dir = settings().module_dir;
  std::string fingerprint;
  for (Flavor flavor : {Flavor::plain, Flavor::counted}) {
    const std::string one = fingerprint_of(module_file(dir, number, flavor));
    if (!one.empty() && fingerprint.find(one) == std::string::npos) fingerprint += (fingerprint.empty() ? "" : "; ") + one;
  }
  return fingerprint;
}

std::string lab_source_file(int number, Origin origin) {
  return lab_source_file_in(origin == Origin::stub ? settings().stub_dir : settings().module_dir, number);
}

std::string lab_source_file_in(const std::string& dir, int number) {
  char name[32];
  std::snprintf(name, sizeof name, "lab%02d.source", number);
  bool found = false;
  std::string path = read_text(dir + "/" + name, &found);
  while (!path.empty() && (path.back() == '\n' || path.back() == '\r')) path.pop_back();
  return found ? path : std::string();
}

namespace {

// The lab file a module folder's build compiled (the build writes its path beside the modules),
// else `source` as messages name it, from the kit's folder.
std::string compiled_source(const std::string& dir, int number, const std::string& source) {
  const std::string path = lab_source_file_in(dir, number);
  return path.empty() ? settings().source_root + "/" + source : path;
}

// What each module this process loaded was compiled from, read when it was loaded: a build
// that finishes while a test runs changes the copy on disk, not what the test ran.
std::map<std::string, std::optional<std::string>>& loaded_sources() {
  static std::map<std::string, std::optional<std::string>> sources;
  return sources;
}

std::optional<std::string> read_copy(const std::string& stem) { return read_file(stem + ".source.cu"); }

}  // namespace

std::optional<std::string> compiled_from(int number, Flavor flavor) {
  const std::string stem = settings().module_dir + "/" + module_file_stem(number, flavor);
  if (auto loaded = loaded_sources().find(stem); loaded != loaded_sources().end()) return loaded->second;
  return read_copy(stem);
}

LoadedLab load_lab(int number, Flavor flavor, Origin origin) {
  const std::string dir = origin == Origin::stub ? settings().stub_dir : settings().module_dir;
  const std::string source = origin == Origin::stub ? "labs/" + std::string(lab_info(number).stem) + ".cu"
                                                    : lab_source(number);
  return load_lab_from(dir, number, flavor, source);
}

LoadedLab load_lab_from(const std::string& dir, int number, Flavor flavor, const std::string& source) {
  static std::map<std::string, LoadedLab> cache;
  const std::string stem = dir + "/" + module_file_stem(number, flavor);
  if (auto hit = cache.find(stem); hit != cache.end()) return hit->second;

  LoadedLab result;
  loaded_sources()[stem] = read_copy(stem);
  const std::string log_path = stem + ".log";
  bool have_status = false;
  const std::string status = read_text(stem + ".status", &have_status);
  if (have_status && std::atoi(status.c_str()) != 0) {
    result.summary = "does not compile";
    const std::string error = first_compiler_error(read_text(log_path));
    result.problem = lab_title(number) + " does not compile, so it cannot be graded yet.\nFirst compiler error:\n  " +
                     (error.empty() ? std::string("(none found in the log)") : error) +
                     "\nFull compiler output: " + log_path + "\nFix " + source + " and grade again.";
  } else if (!file_exists(stem + ".so")) {
    result.summary = "not built";
    result.problem = lab_title(number) + " has not been built: " + stem + ".so is missing. " +
                     "Run ./lab grade " + std::to_string(number) + ", which builds it.";
  } else if (void* handle = dlopen((stem + ".so").c_str(), RTLD_NOW | RTLD_LOCAL)) {
    using Entry = const ModuleInfo* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, "reduce_lab_module"));
    const ModuleInfo* info = entry ? entry() : nullptr;
    if (info == nullptr) {
      result.summary = "no REDUCE_LAB_* line";
      result.problem = stem + ".so has no reduce_lab_module(): the REDUCE_LAB_* line at the end of " + source +
                       " is missing.";
    } else if (std::string why = mismatch(*info, number, module_file_stem(number, flavor),
                                          compiled_source(dir, number, source), source);
               !why.empty()) {
      result.summary = info->abi_version != kAbiVersion ? "built by another kit version"
                                                        : "registers lab " + std::to_string(info->lab);
      result.problem = std::move(why);
    } else {
      result.info = info;
    }
  } else {
    result.summary = "does not load";
    result.problem = "could not load " + stem + ".so: " + dlerror();
  }
  cache[stem] = result;
  return result;
}

}  // namespace reduce_lab::grader
