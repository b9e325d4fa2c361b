#include "kit.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "base/settings.hpp"

namespace reduce_lab::grader {

std::string source_root() { return settings().source_root; }

namespace {

// The scratch folders of this process, removed when it ends, so that the suite leaves nothing in
// the temporary folder (REDUCE_LAB_KEEP_TEST_DIRS=1 keeps them, to read after a failure).
// Only the process that made them removes them: a forked child that exits normally runs this too.
struct ScratchFolders {
  std::vector<std::filesystem::path> made;
  pid_t owner = getpid();
  ~ScratchFolders() {
    if (getpid() != owner) return;
    if (const char* keep = std::getenv("REDUCE_LAB_KEEP_TEST_DIRS"); keep && *keep && std::string(keep) != "0") return;
    std::error_code ignored;
    for (const auto& dir : made) std::filesystem::remove_all(dir, ignored);
  }
};

ScratchFolders& scratch_folders() {
  static ScratchFolders folders;
  return folders;
}

}  // namespace

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("reduce_lab_" + name + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  scratch_folders().made.push_back(dir);
  return dir;
}

std::string find_chromium() {
  if (const char* chosen = std::getenv("REDUCE_LAB_CHROMIUM"); chosen && *chosen)
    return access(chosen, X_OK) == 0 ? chosen : "";
  const char* path = std::getenv("PATH");
  for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
    std::istringstream folders(path ? path : "");
    std::string folder;
    while (std::getline(folders, folder, ':'))
      if (!folder.empty() && access((folder + "/" + name).c_str(), X_OK) == 0) return folder + "/" + name;
  }
  return "";
}


namespace {

std::string base64_decode(const std::string& text) {
  static const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned value = 0;
  int bits = 0;
  for (char c : text) {
    const std::size_t index = alphabet.find(c);
    if (index == std::string::npos) continue;  // padding and line breaks
    value = value << 6 | static_cast<unsigned>(index);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((value >> bits) & 0xFF);
    }
  }
  return out;
}

}  // namespace

nlohmann::json render_in_chromium(const std::filesystem::path& dir, const nlohmann::json& charts, const char* measure) {
  const auto page = dir / "render.html";
  // Each SVG is parsed as XML (a malformed one is an error, as in any viewer), put in the
  // document and laid out; the test's measure(svg, view) says what to read of it.
  static const char* const kEach = R"(
const result = {};
for (const [name, text] of Object.entries(charts)) {
  const parsed = new DOMParser().parseFromString(text, 'image/svg+xml');
  const error = parsed.getElementsByTagName('parsererror');
  if (error.length) { result[name] = {error: error[0].textContent}; continue; }
  const svg = document.importNode(parsed.documentElement, true);
  document.body.appendChild(svg);
  result[name] = measure(svg, svg.viewBox.baseVal);
}
document.getElementById('result').textContent = btoa(unescape(encodeURIComponent(JSON.stringify(result))));
)";
  std::ofstream(page) << "<!doctype html><html><body><pre id=\"result\">not run</pre><script>const charts = "
                      << charts.dump() << ";" << measure << kEach << "</script></body></html>\n";
  const std::string command = "timeout 120 '" + find_chromium() +
                              "' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                              "--disable-background-networking --disable-component-update --disable-sync --user-data-dir='" +
                              (dir / "profile").string() + "' --dump-dom 'file://" + page.string() + "' 2>'" +
                              (dir / "chromium.log").string() + "'";
  std::string dom;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) dom.append(buffer, got);
    pclose(pipe);
  }
  const std::size_t begin = dom.find("<pre id=\"result\">");
  const std::size_t end = dom.find("</pre>", begin);
  INFO("Chromium's page:\n" << dom.substr(0, 2000) << "\nits log:\n" << read_text(dir / "chromium.log").substr(0, 2000));
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  const std::string encoded = dom.substr(begin + 17, end - begin - 17);
  REQUIRE(encoded != "not run");
  return nlohmann::json::parse(base64_decode(encoded));
}

}  // namespace reduce_lab::grader
