// grader/src's folders are layers (grader/src/README.md): a file includes headers of its own
// folder and of the layers below it, never above, so that a change in one layer can only break the
// layers over it, and each folder's README says what it owns.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "kit.hpp"

using namespace reduce_lab::grader;

namespace {

// From the bottom up; "" is grader/src itself: the entry points, the commands and the tools.
const std::vector<std::string> kLayers = {"base", "run", "measure", "checks", "report", "show", ""};

int rank_of(const std::string& layer) {
  const auto found = std::find(kLayers.begin(), kLayers.end(), layer);
  return found == kLayers.end() ? -1 : static_cast<int>(found - kLayers.begin());
}

// The layer of a path relative to grader/src: its first folder, or "" for a file at the top.
std::string layer_of(const std::filesystem::path& relative) {
  const auto first = relative.begin();
  return std::next(first) == relative.end() ? std::string() : first->string();
}

}  // namespace

TEST_CASE("kit layers: grader/src's files include only their own layer and the layers below") {
  const std::filesystem::path src = std::filesystem::path(source_root()) / "grader" / "src";
  for (const std::string& layer : kLayers) {
    if (layer.empty()) continue;
    INFO(layer << "/ needs a README.md that says what it owns and what it may use");
    CHECK(std::filesystem::is_regular_file(src / layer / "README.md"));
  }
  static const std::regex include(R"re(^\s*#\s*include\s+"([^"]+)")re");
  int files = 0, includes = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(src)) {
    const std::string extension = entry.path().extension().string();
    if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".hpp" && extension != ".cu")) continue;
    const std::filesystem::path relative = std::filesystem::relative(entry.path(), src);
    const std::string layer = layer_of(relative);
    INFO(relative.string());
    REQUIRE(rank_of(layer) >= 0);  // a folder that is no layer: add it to kLayers and grader/src/README.md
    ++files;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      std::smatch match;
      if (!std::regex_search(line, match, include)) continue;
      const std::string target = match[1];
      // The grader's own headers are named from grader/src ("checks/plans.hpp"); others (the lab
      // headers, the emulator's, nlohmann) are not layers.
      if (!std::filesystem::is_regular_file(src / target)) continue;
      ++includes;
      const std::string target_layer = layer_of(target);
      INFO(relative.string() << " (" << (layer.empty() ? "top" : layer) << ") includes " << target << " ("
                             << (target_layer.empty() ? "top" : target_layer) << "), a layer above it");
      CHECK(rank_of(target_layer) <= rank_of(layer));
    }
  }
  CHECK(files > 100);  // the walk found the grader
  CHECK(includes > 300);
}

TEST_CASE("kit layers: docs/figures/layers.svg is what tools/draw-layers draws of the folders now") {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) {
    WARN("python3 is not installed: the layer diagram's check is skipped (Debian and Ubuntu: apt-get install python3)");
    return;
  }
  const std::string command = "python3 '" + source_root() + "/tools/draw-layers' --check";
  INFO(command << ": run tools/draw-layers and commit docs/figures/layers.svg");
  CHECK(std::system(command.c_str()) == 0);
}

namespace {

const char* const kMeasureText = R"(
function measure(svg, view) {
  const texts = Array.from(svg.querySelectorAll('text')).map((e) => {
    const b = e.getBBox();
    return {text: e.textContent, x: b.x, y: b.y, width: b.width, height: b.height};
  });
  return {width: view.width, height: view.height, texts: texts};
}
)";

}  // namespace

TEST_CASE("kit layers: the layer diagram, laid out by headless Chromium, keeps every label inside and apart") {
  if (find_chromium().empty()) {
    WARN("headless Chromium was not found: the layer diagram is not rendered (Debian and Ubuntu: apt-get install chromium)");
    return;
  }
  const std::string svg = read_text(std::filesystem::path(source_root()) / "docs" / "figures" / "layers.svg");
  REQUIRE_FALSE(svg.empty());
  const nlohmann::json drawn = render_in_chromium(fresh_dir("layers"), {{"layers", svg}}, kMeasureText)["layers"];
  INFO(drawn.dump(1).substr(0, 4000));
  REQUIRE_FALSE(drawn.contains("error"));
  const nlohmann::json& texts = drawn["texts"];
  CHECK(texts.size() > 40);  // the title, seven boxes of three lines, the matrix
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const nlohmann::json& a = texts[i];
    INFO(a["text"]);
    CHECK(a["width"].get<double>() > 0);
    CHECK(a["x"].get<double>() >= 0);
    CHECK(a["y"].get<double>() >= 0);
    CHECK(a["x"].get<double>() + a["width"].get<double>() <= drawn["width"].get<double>());
    CHECK(a["y"].get<double>() + a["height"].get<double>() <= drawn["height"].get<double>());
    for (std::size_t j = i + 1; j < texts.size(); ++j) {
      const nlohmann::json& b = texts[j];
      const bool apart = a["x"].get<double>() + a["width"].get<double>() <= b["x"].get<double>() ||
                         b["x"].get<double>() + b["width"].get<double>() <= a["x"].get<double>() ||
                         a["y"].get<double>() + a["height"].get<double>() <= b["y"].get<double>() ||
                         b["y"].get<double>() + b["height"].get<double>() <= a["y"].get<double>();
      INFO("overlaps " << b["text"]);
      CHECK(apart);
    }
  }
}
