// ./lab show's pictures (grader/src/show/): the layout of known kernels against the book's
// figures, the first difference named, a deadlock drawn up to where it stopped, the docs'
// figures current, the terminal view through a pseudo-terminal at 100 columns, lab 8's matrix
// (who read each element, over the whole launch), and every picture of the docs, of the
// broken-lab suite's labs 1-3 and of lab 8's template row offset as headless Chromium draws it.
// Emulator builds only: the pictures are drawn from the emulator's record.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "base/catalog.hpp"
#include "kit.hpp"
#include "run/modules.hpp"
#include "show/command.hpp"
#include "show/run.hpp"
#include "show/svg.hpp"
#include "show/terminal.hpp"

using namespace reduce_lab::grader;
using namespace reduce_lab::grader::show;

namespace {

const reduce_lab::ModuleInfo& reference(int lab) {
  const LoadedLab loaded = load_lab(lab, Flavor::counted);
  INFO(loaded.problem);
  REQUIRE(loaded);
  return *loaded.info;
}

// The cells of one memory a step used in `use` (Use bits), by index.
std::vector<long long> cells_used(const Picture& p, std::size_t step, const std::string& memory, unsigned char use) {
  std::vector<long long> cells;
  for (std::size_t m = 0; m < p.memories.size(); ++m)
    if (p.memories[m].name == memory)
      for (std::size_t c = 0; c < p.steps[step].cells[m].size(); ++c)
        if (p.steps[step].cells[m][c].use & use) cells.push_back(static_cast<long long>(c));
  return cells;
}

std::vector<long long> range(long long from, long long to, long long step = 1) {
  std::vector<long long> items;
  for (long long i = from; i <= to; i += step) items.push_back(i);
  return items;
}

// The broken-lab suite's cases of labs 1-3 that compiled: (name, module folder).
std::vector<std::pair<std::string, std::string>> broken_cases() {
  std::vector<std::pair<std::string, std::string>> cases;
  const char* root = std::getenv("REDUCE_LAB_BROKEN_BUILD_DIR");
  if (!root || !*root || !std::filesystem::is_directory(root)) return cases;
  static const std::regex name("(ok_)?lab([1-3])_[a-z0-9_]+");
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    const std::string case_name = entry.path().filename().string();
    if (std::regex_match(case_name, name)) cases.push_back({case_name, entry.path().string()});
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

// The module folder of one broken-lab case, empty where the suite is not built here.
std::string broken_case(const std::string& case_name) {
  const char* root = std::getenv("REDUCE_LAB_BROKEN_BUILD_DIR");
  if (!root || !*root) return {};
  const std::filesystem::path dir = std::filesystem::path(root) / case_name;
  return std::filesystem::is_directory(dir) ? dir.string() : std::string();
}

// Lab 8's template row offset (grader/tests/broken) at 4 x 300, beside the reference: rows of
// 300 elements start 256 apart, so they overlap (n > BLOCK_SIZE) and the last row's end is
// never read. At 4 x 10 it would only read past the matrix and stop.
constexpr std::size_t kOverlapSize = 4 * 300;

int lab_of(const std::string& case_name) { return case_name[case_name.find("lab") + 3] - '0'; }

// Lab `lab` of the module folder `dir` drawn beside the reference, as ./lab show draws it.
struct Drawn {
  RecordedRun yours, reference;
  std::string svg;
  bool loaded = false;
};
Drawn draw_case(const std::string& dir, int lab, std::size_t n = 16) {
  Drawn drawn;
  const LoadedLab loaded = load_lab_from(dir, lab, Flavor::counted, dir);
  if (!loaded) return drawn;  // a case that does not compile has nothing to draw
  drawn.loaded = true;
  drawn.yours = record_run(*loaded.info, n);
  drawn.reference = record_run(reference(lab), n);
  Drawing drawing;
  drawing.title = lab_title(lab) + " at n = " + std::to_string(n);
  drawing.reference = &drawn.reference.picture;
  drawing.reference_label = "reference";
  drawing.yours = &drawn.yours.picture;
  drawing.yours_label = "yours (" + std::filesystem::path(dir).filename().string() + ")";
  drawing.difference = first_difference(drawn.reference.picture, drawn.yours.picture);
  drawn.svg = svg(drawing);
  return drawn;
}

std::string run_command(const std::string& command) {
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, got);
    pclose(pipe);
  }
  return out;
}

// Columns a line takes in a terminal: colour sequences take none, a UTF-8 character one.
std::size_t columns_of_line(const std::string& line) {
  std::size_t columns = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\033') {
      while (i < line.size() && line[i] != 'm') ++i;
      continue;
    }
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80 && line[i] != '\r') ++columns;
  }
  return columns;
}

}  // namespace

TEST_CASE("kit show layout: lab 1's reference at n = 16 is the book's tree, 8, 4, 2, 1 threads") {
  const RecordedRun run = record_run(reference(1), 16);
  REQUIRE(run.ran);
  CHECK(run.value == 31);  // 1, 2, 3, 1, 2, 3, ... summed
  const Picture& p = run.picture;
  CHECK(p.threads == 8);
  CHECK(p.blocks == 1);
  CHECK_FALSE(p.stop.stopped);
  REQUIRE(p.steps.size() == 5);  // four steps of the tree, then thread 0 copies the sum out
  CHECK(active_threads(p) == std::vector<unsigned>{8, 4, 2, 1, 1});
  // Thread t owns element 2t and adds the element `stride` to its right (Fig. 10.7).
  for (std::size_t s = 0; s < 4; ++s) {
    const long long stride = 1ll << s;
    INFO("step " << s);
    CHECK(cells_used(p, s, "input", kWritten) == range(0, 14, 2 * stride));
    std::vector<long long> read = range(0, 14, 2 * stride);
    for (long long c : range(stride, 15, 2 * stride)) read.push_back(c);
    std::sort(read.begin(), read.end());
    CHECK(cells_used(p, s, "input", kRead) == read);
    CHECK(p.steps[s].lanes_per_warp == std::vector<unsigned>{8u >> s});
    CHECK_FALSE(p.steps[s].barrier.empty());
  }
  CHECK(cells_used(p, 4, "output", kWritten) == std::vector<long long>{0});
  CHECK(p.steps[4].cells[1][0].value == 31);
  // The counts are the grader's: two loads and a store per step, one warp instruction each.
  CHECK(p.steps[0].counts.requests[0] == 2);
  CHECK(p.steps[0].counts.requests[1] == 1);
  CHECK(p.steps[0].counts.instructions[0] == 2);
  CHECK(p.steps[0].counts.active_lanes[0] == 16);
  CHECK_FALSE(first_difference(p, p).found);
}

TEST_CASE("kit show layout: lab 2's reference keeps its owners together, lab 3's tree is in shared memory") {
  const RecordedRun convergent = record_run(reference(2), 16);
  REQUIRE(convergent.ran);
  const Picture& p = convergent.picture;
  REQUIRE(p.steps.size() == 5);
  CHECK(active_threads(p) == std::vector<unsigned>{8, 4, 2, 1, 1});
  for (std::size_t s = 0; s < 4; ++s) {
    INFO("step " << s);
    const long long owners = 8 >> s;
    // Threads 0 .. owners-1, the lowest lanes, each adding the element `owners` to its right.
    for (unsigned t = 0; t < 8; ++t) CHECK(p.steps[s].thread_active[t] == (t < owners));
    CHECK(cells_used(p, s, "input", kWritten) == range(0, owners - 1));
    CHECK(cells_used(p, s, "input", kRead) == range(0, 2 * owners - 1));
  }
  // Lab 1 against lab 2: they part at the first step, where lab 1 writes every other element.
  const Difference d = first_difference(record_run(reference(1), 16).picture, p);
  CHECK(d.found);
  CHECK(d.step == 0);
  CHECK_THAT(d.words, Catch::Contains("input["));

  const RecordedRun shared = record_run(reference(3), 16);
  REQUIRE(shared.ran);
  REQUIRE(shared.picture.steps.size() == 4);
  CHECK(cells_used(shared.picture, 0, "input", kRead) == range(0, 15));
  CHECK(cells_used(shared.picture, 0, "shared", kWritten) == range(0, 7));
  CHECK(cells_used(shared.picture, 1, "input", kRead).empty());
  CHECK(cells_used(shared.picture, 3, "shared", kRead) == range(0, 1));
  CHECK(cells_used(shared.picture, 3, "output", kWritten) == std::vector<long long>{0});
}

TEST_CASE("kit show layout: a wrong tree draws itself, a deadlock draws up to where it stopped") {
  const auto cases = broken_cases();
  if (cases.empty()) {
    WARN("the broken-lab suite is not built here (REDUCE_LAB_BROKEN_BUILD_DIR): nothing to draw");
    return;
  }
  bool saw_deadlock = false, saw_wrong_tree = false;
  for (const auto& [name, dir] : cases) {
    INFO(name);
    const Drawn drawn = draw_case(dir, lab_of(name));
    if (!drawn.loaded) continue;
    const Difference d = first_difference(drawn.reference.picture, drawn.yours.picture);
    if (name.rfind("ok_", 0) != 0 && name != "lab1_no_barrier") CHECK(d.found);  // each broken lab parts somewhere
    if (name == "lab3_barrier_inside_if") {
      saw_deadlock = true;
      CHECK(drawn.yours.picture.stop.stopped);
      CHECK(drawn.yours.picture.stop.kind == "deadlock");
      CHECK_THAT(drawn.svg, Catch::Contains("class=\"stop\""));
    }
    if (name == "lab2_owner_index_of_lab1") {
      saw_wrong_tree = true;
      CHECK(d.step == 0);
    }
  }
  CHECK(saw_deadlock);
  CHECK(saw_wrong_tree);
}

TEST_CASE("kit show layout: a loop that never ends draws its first steps and the one the time limit stopped") {
  // The record of a block of 8 threads that passed 200,000 barriers, reading shared memory
  // between each, until the emulator's time limit stopped it: what `stride /= 1` records. The
  // layout once made every row again for every access (quadratic: it never returned).
  constexpr unsigned kIntervals = 200000;
  reduce_emu::Record record;
  reduce_emu::RecordedLaunch launch;
  launch.kernel = "SharedMemorySumReductionKernel(Global<const float>, Global<float>)";
  launch.grid = dim3(1);
  launch.block = dim3(8);
  for (unsigned interval = 0; interval < kIntervals; ++interval) {
    reduce_emu::RecordedInstruction ins;
    ins.interval = interval;
    ins.space = reduce_emu::MemorySpace::shared;
    ins.bytes = 4;
    ins.mask = 0xf;
    for (unsigned lane = 0; lane < 4; ++lane) {
      reduce_emu::LaneAccess access;
      access.lane = lane;
      access.shared_offset = 4 * lane;
      ins.lanes.push_back(access);
    }
    launch.instructions.push_back(std::move(ins));
    launch.barriers.push_back({0, interval, "03_shared_memory.cu", 22});
  }
  launch.end.outcome = reduce_emu::LaunchOutcome::fault;
  launch.end.interval = kIntervals;
  launch.end.message = "emulator: the kernel ran past the emulator's time limit of 5 s (REDUCE_LAB_EMU_TIMEOUT)";
  record.launches.push_back(std::move(launch));

  const auto start = std::chrono::steady_clock::now();
  const Picture p = layout(record, 0, 16);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  REQUIRE(p.steps.size() == kStepsDrawn + 1);  // the first steps, and the one it stopped in
  CHECK(p.steps[kStepsDrawn - 1].number == kStepsDrawn - 1);
  CHECK(p.steps.back().number == kIntervals);
  CHECK(p.steps_left_out == kIntervals - kStepsDrawn);
  CHECK(gap_words(p, kStepsDrawn) == "steps 40 to 199999 not drawn");
  CHECK(gap_words(p, 1).empty());
  REQUIRE(p.stop.stopped);
  CHECK(p.stop.kind == "time limit");
  CHECK(p.stop.step == kStepsDrawn);
  CHECK_THAT(stop_words(p, "yours"), Catch::StartsWith("the time limit stopped yours in step 200000: "));
  Drawing drawing;
  drawing.title = "lab 3";
  drawing.yours = &p;
  drawing.yours_label = "yours";
  const std::string text = terminal(drawing, false);
  CHECK_THAT(text, Catch::Contains("steps 40 to 199999 not drawn"));
  CHECK_THAT(text, Catch::Contains(" 200000 "));
  CHECK_THAT(svg(drawing), Catch::Contains("step 200000"));
}

TEST_CASE("kit show matrix: lab 8's reference, every element read once, by the warps its shape picks") {
  // At 4 x 10 the reference reads groups of 2 rows, 20 floats in 5 16-byte vectors, 8 lanes a
  // group (GroupsKernel<float, Sum, 2, 8>): one warp, four groups side by side, reads the whole
  // matrix, row r column c by lane 8 (r / 2) + ((r % 2) * 10 + c) / 4.
  const RecordedRun small = record_run(reference(8), default_size(reference(8)));
  REQUIRE(small.ran);
  const Matrix& m = small.picture.matrix;
  REQUIRE(m.drawn);
  REQUIRE(m.rows == 4);
  REQUIRE(m.columns == 10);
  const MatrixTally t = tally(m);
  CHECK(t.read_once == 40);
  CHECK(t.read_again == 0);
  CHECK(t.never_read == 0);
  CHECK(t.stored_once == 4);
  CHECK(m.loads_outside == 0);
  REQUIRE(m.warps.size() == 1);
  CHECK(m.warp_name(0) == "block 0 warp 0");
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t c = 0; c < 10; ++c)
      CHECK(m.element(r, c).lane == static_cast<int>(r / 2 * 8 + (r % 2 * 10 + c) / 4));
  CHECK(matrix_problems(m, "yours").empty());
  CHECK_FALSE(first_difference(small.picture, small.picture).found);

  // At 4 x 300 a warp per row (WarpPerRowKernel): row r is warp r's alone, in one block.
  const RecordedRun wide = record_run(reference(8), kOverlapSize);
  REQUIRE(wide.ran);
  const Matrix& w = wide.picture.matrix;
  REQUIRE(w.columns == 300);
  CHECK(tally(w).read_once == kOverlapSize);
  REQUIRE(w.warps.size() == 4);
  for (unsigned r = 0; r < 4; ++r) {
    INFO("row " << r);
    CHECK(w.warp_name(r) == "block 0 warp " + std::to_string(r));
    for (std::size_t c = 0; c < 300; ++c) CHECK(w.element(r, c).warps == std::vector<unsigned>{r});
    CHECK(w.results[r].warps == std::vector<unsigned>{r});
    CHECK(w.results[r].count == 1);
  }
}

TEST_CASE("kit show matrix: the template's row offset draws elements read twice and never read") {
  const std::string dir = broken_case("lab8_overlapping_row_offset");
  if (dir.empty()) {
    WARN("the broken-lab suite is not built here (REDUCE_LAB_BROKEN_BUILD_DIR): nothing to draw");
    return;
  }
  const Drawn drawn = draw_case(dir, 8, kOverlapSize);
  REQUIRE(drawn.loaded);
  const Matrix& m = drawn.yours.picture.matrix;
  REQUIRE(m.drawn);
  // Block r reads elements 256 r .. 256 r + 299: row 0's columns 256..299 are also block 1's, and
  // elements 1068..1199 (past 256 x 3 + 299), row 3's columns 168..299, nobody's.
  const MatrixTally t = tally(m);
  CHECK(t.read_again == 3 * 44);
  CHECK(t.never_read == 1200 - 1068);
  REQUIRE(m.element(0, 256).count == 2);
  REQUIRE(m.element(0, 256).warps.size() == 2);
  CHECK(m.warps[m.element(0, 256).warps[0]].block == 0);
  CHECK(m.warps[m.element(0, 256).warps[1]].block == 1);
  CHECK(m.element(0, 255).count == 1);
  CHECK(m.element(3, 168).count == 0);
  CHECK(m.element(3, 167).count == 1);
  const Difference d = first_difference(drawn.reference.picture, drawn.yours.picture);
  CHECK(d.found);
  CHECK(d.words == "yours reads row 0, columns 256..299 twice (block 0 warp 2 and block 1 warp 0); the reference "
                   "once, as every element");
  CHECK_THAT(matrix_problems(m, "Yours"), Catch::StartsWith("Yours: 132 elements read more than once"));
  CHECK_THAT(drawn.svg, Catch::Contains("class=\"matrix-cell again\""));
  CHECK_THAT(drawn.svg, Catch::Contains("class=\"matrix-cell never\""));
  CHECK_THAT(drawn.svg, Catch::Contains("block 1 warp 0"));
  Drawing drawing;
  drawing.title = "lab 8";
  drawing.yours = &drawn.yours.picture;
  drawing.yours_label = "yours";
  const std::string text = terminal(drawing, false);
  CHECK_THAT(text, Catch::Contains("row 3 "));
  CHECK_THAT(text.substr(0, text.find("legend:")), Catch::Contains("○"));
  CHECK_THAT(text, Catch::Contains("row 0 AAAAAAAAAAAAAAAABBBBBBBBBBBBBBBB222222 A\n"));
  CHECK_THAT(text, Catch::Contains("A block 0 warp 0"));
  // The reference's picture has neither mark.
  drawing.yours = &drawn.reference.picture;
  const std::string reference_text = terminal(drawing, false);
  CHECK_THAT(reference_text.substr(0, reference_text.find("legend:")), !Catch::Contains("○"));
  CHECK_THAT(drawn.svg.substr(0, drawn.svg.find("yours (")), !Catch::Contains("matrix-cell again"));
}

TEST_CASE("kit show docs: every lab page shows its reference's picture, and the committed figures are current") {
  for (int lab = 1; lab <= lab_count(); ++lab) {
    INFO(lab_title(lab));
    const std::string file = docs_figure_file(lab);
    const std::filesystem::path committed = std::filesystem::path(source_root()) / "docs" / file;
    CHECK_THAT(read_text(std::filesystem::path(source_root()) / lab_info(lab).doc), Catch::Contains("](" + file + ")"));
    const std::string drawn = docs_figure_svg(reference(lab));
    INFO(committed.string() << " is out of date with the reference solution: run ./lab show --docs and commit it");
    CHECK(read_text(committed) == drawn);
  }
}

TEST_CASE("kit show terminal: at 100 columns through a pseudo-terminal, in colour unless NO_COLOR") {
  const char* modules = std::getenv("REDUCE_LAB_MODULE_DIR");
  REQUIRE(modules);
  if (run_command("command -v script").empty()) {
    WARN("script (util-linux) is not installed: the pseudo-terminal check is skipped");
    return;
  }
  // The program under a pseudo-terminal (script), so it sees a terminal as a student's does.
  auto show = [&](int lab, const std::string& student, const char* environment) {
    const std::string command = std::string("/proc/") + std::to_string(getpid()) + "/exe --show " +
                                std::to_string(lab) + " --student '" + student + "' --reference '" + modules + "'";
    return run_command(std::string("env ") + environment + " COLUMNS=100 TERM=xterm script -qec \"" + command +
                       "\" /dev/null");
  };
  const auto cases = broken_cases();
  std::vector<std::pair<int, std::string>> runs = {{1, modules}, {4, modules}, {7, modules}, {8, modules}};
  for (const auto& [name, dir] : cases)
    if (name == "lab1_owner_test_doubled" || name == "lab3_barrier_inside_if") runs.push_back({lab_of(name), dir});
  for (const auto& [lab, dir] : runs) {
    for (const char* environment : {"NO_COLOR=", "NO_COLOR=1"}) {
      const std::string out = show(lab, dir, environment);
      INFO("lab " << lab << " from " << dir << " with " << environment << ":\n" << out);
      if (lab == 8) {  // a matrix, who read each element
        CHECK_THAT(out, Catch::Contains("row 3"));
        CHECK_THAT(out, Catch::Contains("block 0 warp 0"));
      } else {
        CHECK_THAT(out, Catch::Contains("step"));
        CHECK_THAT(out, Catch::Contains("counts per step"));
      }
      CHECK((out.find("\033[") != std::string::npos) == (std::string(environment) == "NO_COLOR="));
      std::istringstream lines(out);
      std::size_t widest = 0;
      for (std::string line; std::getline(lines, line);) widest = std::max(widest, columns_of_line(line));
      CHECK(widest <= 100);
    }
  }
}

namespace {

// Each picture parsed and laid out by the browser: its size, its step labels, its cells, and
// every drawn element's box (a box outside the picture is clipped).
const char* const kMeasurePictures = R"(
function measure(svg, view) {
  const outside = [];
  for (const e of svg.querySelectorAll('rect, text')) {
    if (e.parentNode !== svg) continue;
    const b = e.getBBox();
    if (b.x < 0 || b.y < 0 || b.x + b.width > view.width + 0.5 || b.y + b.height > view.height + 0.5)
      outside.push(e.tagName + ' ' + (e.getAttribute('class') || '') + ' ' + e.textContent.slice(0, 40));
  }
  const shown = (selector) => Array.from(svg.querySelectorAll(selector)).filter((e) => e.getBBox().width > 0).length;
  const labels = Array.from(svg.querySelectorAll('text.step-label, text.row-label')).map((e) => e.textContent);
  const result = {width: view.width, height: view.height, outside: outside, cells: shown('rect.cell'), labels: labels,
                  matrix: shown('rect.matrix-cell'), again: shown('rect.matrix-cell.again'),
                  hatched: shown('rect.again-hatch'), never: shown('rect.matrix-cell.never')};
  svg.remove();  // the next picture is measured alone
  return result;
}
)";

}  // namespace

TEST_CASE("kit pictures: the docs' figures and the broken labs' pictures, as headless Chromium draws them") {
  nlohmann::json pictures = nlohmann::json::object();
  std::map<std::string, std::size_t> steps;
  for (int lab = 1; lab <= lab_count(); ++lab) {
    const std::string file = docs_figure_file(lab);
    pictures[file] = read_text(std::filesystem::path(source_root()) / "docs" / file);
    steps[file] = record_run(reference(lab), default_size(reference(lab))).picture.steps.size();
  }
  for (const auto& [name, dir] : broken_cases()) {
    const Drawn drawn = draw_case(dir, lab_of(name));
    if (!drawn.loaded) continue;
    pictures[name] = drawn.svg;
    steps[name] = std::max(drawn.reference.picture.steps.size(), drawn.yours.picture.steps.size());
  }
  // Lab 8's pictures are matrices, labelled by row: the docs' 4 x 10 (each element read once),
  // and the template's row offset at 4 x 300 beside the reference (elements read twice, never).
  std::map<std::string, std::size_t> rows;
  rows[docs_figure_file(8)] = 4;
  steps.erase(docs_figure_file(8));
  const std::string overlap = broken_case("lab8_overlapping_row_offset");
  if (!overlap.empty()) {
    const Drawn drawn = draw_case(overlap, 8, kOverlapSize);
    REQUIRE(drawn.loaded);
    pictures["lab8_overlapping_row_offset"] = drawn.svg;
    rows["lab8_overlapping_row_offset"] = 4;
  }
  const nlohmann::json drawn = render_in_chromium(fresh_dir("pictures"), pictures, kMeasurePictures);
  auto labelled = [&](const std::string& name, const std::string& word, std::size_t count) {
    std::map<std::string, int> labels;
    for (const auto& label : drawn[name]["labels"]) ++labels[label.get<std::string>()];
    for (std::size_t s = 0; s < count; ++s) CHECK(labels[word + " " + std::to_string(s)] >= 1);
  };
  for (const auto& [name, count] : steps) {
    INFO(name << ": " << drawn[name].dump());
    REQUIRE(drawn.contains(name));
    REQUIRE_FALSE(drawn[name].contains("error"));
    CHECK(drawn[name]["width"].get<double>() > 100);
    CHECK(drawn[name]["cells"].get<int>() > 0);  // not blank
    CHECK(drawn[name]["outside"].empty());       // nothing clipped
    labelled(name, "step", count);
  }
  for (const auto& [name, count] : rows) {
    INFO(name << ": " << drawn[name].dump());
    REQUIRE(drawn.contains(name));
    REQUIRE_FALSE(drawn[name].contains("error"));
    CHECK(drawn[name]["outside"].empty());
    labelled(name, "row", count);
  }
  if (rows.count("lab8_overlapping_row_offset")) {
    const nlohmann::json& both = drawn["lab8_overlapping_row_offset"];
    INFO(both.dump());
    // Two panels of 4 rows of 300 elements in 38 columns of 8: the reference's unmarked, yours
    // with the overlaps hatched and row 3's end dashed.
    CHECK(both["matrix"].get<int>() == 2 * 4 * 38);
    CHECK(both["again"].get<int>() > 0);
    CHECK(both["hatched"].get<int>() >= both["again"].get<int>());
    CHECK(both["never"].get<int>() > 0);
  }
  const nlohmann::json& figure = drawn[docs_figure_file(8)];
  INFO(figure.dump());
  CHECK(figure["matrix"].get<int>() == 40);
  CHECK(figure["again"].get<int>() == 0);
  CHECK(figure["never"].get<int>() == 0);
}
