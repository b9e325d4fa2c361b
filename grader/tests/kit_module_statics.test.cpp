// Every lab module keeps its own statics. GCC binds the static of an inline function or of a
// template STB_GNU_UNIQUE, which makes the first module a process loads own it for every later
// one, RTLD_LOCAL or not; the grader loads several modules in one process (a lab and its
// baseline, ./lab show's lab and the reference, the suite's shared profile), so the kit compiles
// them without it (cmake/ReduceLab.cmake, reduce_lab_add_module). No device needed: the symbol
// tables are read from the files, and the modules are loaded, not run.
#include <dlfcn.h>
#include <elf.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "base/files.hpp"
#include "base/settings.hpp"
#include "run/modules.hpp"

using namespace reduce_lab::grader;

namespace {

// Whether the mangled `name` is the C++ library's own (namespace std, or a guard or local
// static of it): std::string's npos and empty representation, say. A GCC whose libstdc++ is
// linked into each module (an H200 host's g++ 13) defines those STB_GNU_UNIQUE in every module,
// -fno-gnu-unique or not. They are constants of one library, the same in every module, so
// sharing them changes nothing; a lab's or the kit's own statics never live in std.
bool standard_library_symbol(const std::string& name) {
  std::string rest = name;
  for (const char* prefix : {"_ZGV", "_ZZ", "_Z"}) {
    if (rest.rfind(prefix, 0) == 0) {
      rest = rest.substr(std::strlen(prefix));
      break;
    }
  }
  if (rest.rfind("NK", 0) == 0) rest = rest.substr(2);
  else if (rest.rfind("N", 0) == 0) rest = rest.substr(1);
  // std:: is St; Sa, Sb, Ss, Si, So and Sd are its allocator, basic_string, string and streams.
  return rest.size() >= 2 && rest[0] == 'S' && std::strchr("tabsiod", rest[1]) != nullptr;
}

// The names of the dynamic symbols of the 64-bit ELF file `bytes` bound STB_GNU_UNIQUE, but for
// the C++ library's own.
std::vector<std::string> unique_symbols(const std::string& bytes) {
  std::vector<std::string> names;
  if (bytes.size() < sizeof(Elf64_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) return names;
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shoff == 0) return names;
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  if (header.e_shoff + sections.size() * sizeof(Elf64_Shdr) > bytes.size()) return names;
  std::memcpy(sections.data(), bytes.data() + header.e_shoff, sections.size() * sizeof(Elf64_Shdr));
  for (const Elf64_Shdr& table : sections) {
    if (table.sh_type != SHT_DYNSYM || table.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strings = sections[table.sh_link];
    for (std::size_t at = table.sh_offset; at + sizeof(Elf64_Sym) <= table.sh_offset + table.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym symbol;
      std::memcpy(&symbol, bytes.data() + at, sizeof symbol);
      if (ELF64_ST_BIND(symbol.st_info) != STB_GNU_UNIQUE || symbol.st_shndx == SHN_UNDEF) continue;
      const std::string name = bytes.data() + strings.sh_offset + symbol.st_name;
      if (!standard_library_symbol(name)) names.push_back(name);
    }
  }
  return names;
}

// The lab modules this tree built: the graded labs', the stubs', and the broken-lab cases'.
std::vector<std::filesystem::path> built_modules() {
  std::vector<std::filesystem::path> modules;
  const std::filesystem::path labs = settings().module_dir;
  std::error_code ignored;
  for (const std::filesystem::path& dir : {labs, std::filesystem::path(settings().stub_dir)}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir, ignored))
      if (entry.path().extension() == ".so" && !entry.is_symlink()) modules.push_back(entry.path());
  }
  for (const auto& entry : std::filesystem::recursive_directory_iterator(labs.parent_path() / "broken", ignored))
    if (entry.path().extension() == ".so" && !entry.is_symlink()) modules.push_back(entry.path());
  return modules;
}

}  // namespace

TEST_CASE("kit harness modules keep their own statics: the library's own are not theirs") {
  // The five an H200 host's modules bound: std::string's, in both ABIs.
  for (const char* name : {"_ZNSs4nposE", "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE4nposE",
                           "_ZNSs4_Rep20_S_empty_rep_storageE", "_ZNSs4_Rep11_S_max_sizeE", "_ZNSs4_Rep11_S_terminalE"})
    CHECK(standard_library_symbol(name));
  // A lab's statics, as lab 8 had them, and a template kernel's shared array in the emulator.
  for (const char* name : {"_ZZ8one_wavevE4wave", "_ZZN10reduce_lab6detail4waveEvE5state", "_ZGVZ8one_wavevE4wave",
                           "_ZZ24TemplatedReductionKernelIfLj1024EEvPKT_PS0_yE7input_s"})
    CHECK_FALSE(standard_library_symbol(name));
}

TEST_CASE("kit harness modules keep their own statics") {
  const std::vector<std::filesystem::path> modules = built_modules();
  REQUIRE_FALSE(modules.empty());
  for (const std::filesystem::path& module : modules) {
    const std::vector<std::string> unique = unique_symbols(read_text(module.string()));
    if (!unique.empty())
      FAIL_CHECK(module.string() + " binds " + std::to_string(unique.size()) + " symbols STB_GNU_UNIQUE, " +
                 unique.front() + " among them");
  }
  // The case that showed it: lab 8's reference and a broken case's copy both define
  // one_wave()'s static, each of its own size. Loaded side by side, each must have its own.
  const std::string own = module_file(settings().module_dir, 8, Flavor::counted);
  const std::string copy = module_file(
      (std::filesystem::path(settings().module_dir).parent_path() / "broken" / "ok_lab8_shuffle_down").string(), 8,
      Flavor::counted);
  if (std::filesystem::exists(own) && std::filesystem::exists(copy)) {
    void* first = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
    void* second = dlopen(own.c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE(first != nullptr);
    REQUIRE(second != nullptr);
    const char* wave = "_ZZ8one_wavevE4wave";
    void* in_first = dlsym(first, wave);
    void* in_second = dlsym(second, wave);
    REQUIRE(in_first != nullptr);
    REQUIRE(in_second != nullptr);
    CHECK(in_first != in_second);
  }
}
