// ./lab bench's sweep at a few small sizes: every reference solution is timed at every size,
// right every time, beside CUB (GPU builds) and the copy, and bench.json's figures add up; lab 8
// gets its rows table (bench.json's "rows") on a matrix of the sweep's largest size.
// On the emulator the times mean nothing; the sweep and its files are what is checked.
#include <cmath>
#include <cstdlib>
#include <vector>

#include "bench.hpp"
#include "base/catalog.hpp"
#include "measure/charts.hpp"
#include "kit.hpp"
#include "checks/rows_speed_check.hpp"
#include "base/inputs.hpp"
#include "base/reference.hpp"
#include "base/settings.hpp"
#include "sum_spread.hpp"

using namespace reduce_lab::grader;

TEST_CASE("kit bench") {
  set_environment("REDUCE_LAB_SAMPLES", "20");
  BenchPlan plan;
  // Two sizes: every sample rewrites a cache-sized buffer, which costs more than the labs here.
  plan.low_log = 8;
  plan.high_log = 9;
  const nlohmann::json bench = run_bench(plan);
  INFO(bench.dump(1).substr(0, 4000));
  CHECK(bench["left_out"].empty());
  CHECK(bench["sizes"] == nlohmann::json({256, 512}));
  int labs = 0;
  bool copy = false;
  for (const nlohmann::json& series : bench["series"]) {
    INFO(series["name"]);
    REQUIRE(series["points"].size() == 2);
    const std::string kind = series["kind"];
    labs += kind == "lab";
    copy = copy || kind == "copy";
    for (const nlohmann::json& point : series["points"]) {
      CHECK(point["samples"] == 20);
      CHECK(point.value("ok", true));
      const double bytes = (kind == "copy" ? 8.0 : 4.0) * point["n"].get<double>();
      CHECK(point["gbs"].get<double>() == Approx(bytes / (point["median_ms"].get<double>() * 1e-3) / 1e9));
    }
  }
  // A line per lab and variant (lab 9's K), but the row labs (lab 8), which have their table below,
  // and the labs without a speed test (lab 12), which are never timed.
  std::size_t lab_lines = 0;
  for (int lab = 1; lab <= lab_count(); ++lab)
    if (lab_info(lab).kind != reduce_lab::LabKind::rows && has_check(lab, "speedup"))
      lab_lines += lab_info(lab).variants.size();
  CHECK(labs == static_cast<int>(lab_lines));
  CHECK(copy);

  // Lab 8 is not a line of the sweep but its rows table, on a matrix of the sweep's largest size
  // (2^9 floats): the row lengths that fit, m filling it.
  REQUIRE(bench.contains("rows"));
  const nlohmann::json& rows = bench["rows"];
  CHECK(rows["lab"] == 8);
  CHECK(rows["name"] == "lab 8 (rows)");
  CHECK(rows["device"] == bench["device"]);
  CHECK(rows["samples"] == 20);
  CHECK(rows["elements"] == 512);
  const double copy_gbs = rows["copy_gbs"].get<double>();
  CHECK(copy_gbs > 0);
  std::vector<std::size_t> lengths;
  for (const nlohmann::json& shape : rows["shapes"]) {
    const std::size_t m = shape["rows"], n = shape["columns"];
    INFO(m << " x " << n);
    lengths.push_back(n);
    CHECK(m == 512 / n);
    CHECK(shape["bytes"] == 4 * (m * n + m));  // the matrix read, a float a row written
    std::vector<const char*> contenders = {"lab"};
#if defined(REDUCE_LAB_HAVE_CUB)
    contenders.push_back("cub");
    REQUIRE(shape.contains("cub"));
    CHECK(shape["cub_ratio"].get<double>() ==
          Approx(shape["cub"]["median_ms"].get<double>() / shape["lab"]["median_ms"].get<double>()));
#else
    CHECK_FALSE(shape.contains("cub"));
#endif
    for (const char* contender : contenders) {
      INFO(contender);
      const nlohmann::json& figures = shape[contender];
      CHECK(figures["samples"] == 20);
      const double gbs = figures["gbs"].get<double>();
      CHECK(gbs == Approx(4.0 * static_cast<double>(m * n + m) / (figures["median_ms"].get<double>() * 1e-3) / 1e9));
      CHECK(figures["copy_share"].get<double>() == Approx(gbs / copy_gbs));
    }
  }
  CHECK(lengths == std::vector<std::size_t>{1, 7, 32, 33});
  CHECK(bench_rows_lengths(std::size_t{1} << 26) ==
        std::vector<std::size_t>{1, 7, 32, 33, 1000, 4096, 100000, 10000000});

  const std::string table = bench_table(bench);
  CHECK(table.find("2^9") != std::string::npos);
  CHECK(table.find("lab 7") != std::string::npos);
  // The rows table follows the sweep's, a line per row length.
  const std::string rows_table = bench_rows_table(rows);
  CHECK(table.find(rows_table) != std::string::npos);
  CHECK(rows_table.find("lab 8 GB/s") != std::string::npos);
  CHECK(rows_table.find("\n        15        33 ") != std::string::npos);
  const std::string rows_svg = bench_rows_svg(rows);
  CHECK(rows_svg.find("class=\"copy\"") != std::string::npos);
  CHECK(rows_svg.find("data-series=\"lab 8 (rows)\"") != std::string::npos);
  const std::string svg = bench_svg(bench);
  std::size_t lines = 0;
  for (std::size_t at = svg.find("class=\"series\""); at != std::string::npos; at = svg.find("class=\"series\"", at + 1))
    ++lines;
  CHECK(lines == bench["series"].size());
  // Lab 9's every K in every block size, at the sweep's largest n: a line per K, a point per size.
  REQUIRE(bench.contains("block_sizes"));
  const nlohmann::json& blocks = bench["block_sizes"];
  CHECK(blocks["lab"] == 9);
  CHECK(blocks["n"] == 512);
  REQUIRE(blocks["series"].size() == lab_info(9).variants.size());
  for (const nlohmann::json& series : blocks["series"]) {
    std::vector<unsigned> sizes;
    for (const nlohmann::json& point : series["points"]) {
      CHECK(point.value("ok", false));
      CHECK(point["samples"] == 20);
      sizes.push_back(point["block_size"]);
    }
    CHECK(sizes == std::vector<unsigned>{128, 256, 512, 1024});
  }
  CHECK(table.find(block_sizes_table(blocks)) != std::string::npos);
  CHECK(block_sizes_table(blocks).find("\n512 ") != std::string::npos);
  const std::string blocks_svg = block_sizes_svg(blocks);
  CHECK(blocks_svg.find("data-series=\"K = 16\"") != std::string::npos);

  BenchPlan backwards;
  backwards.low_log = 12;
  backwards.high_log = 10;
  CHECK_THROWS_WITH(run_bench(backwards), Catch::Contains("2^LOW to 2^HIGH"));
}

// labtools --spread: one input summed by the CPU loop and labs 1, 2, 4 and 7; every result of the
// reference solutions within the tolerance, the deterministic ones (the CPU loop, lab 1's tree)
// one value every run, and the exact sum the grader's own reference.
TEST_CASE("kit bench: spread") {
  const std::size_t n = std::size_t{1} << 12;
  const nlohmann::json spread = sum_spread(n, 3);
  INFO(spread.dump(1).substr(0, 3000));
  CHECK(spread["left_out"].empty());
  const Reference ref = reference(make_input(Pattern::uniform, reduce_lab::DType::f32, n), reduce_lab::Op::sum);
  CHECK(spread["exact"].get<double>() == Approx(ref.value).epsilon(1e-12));
  std::vector<std::string> rows;
  for (const nlohmann::json& row : spread["rows"]) {
    rows.push_back(row["name"].get<std::string>() + " " + row["type"].get<std::string>());
    CHECK(row["in_tolerance"].get<double>() < 1);
    const std::string name = row["name"];
    if (name.rfind("CPU", 0) == 0 || name == "lab 1 (simple)") CHECK(row["distinct"] == 1);
    CHECK(row["results"].size() == (name.rfind("CPU", 0) == 0 ? 1u : 3u));
  }
  CHECK(rows == std::vector<std::string>{"CPU loop (Fig. 10.1) float", "CPU loop (Fig. 10.1) double", "lab 1 (simple) float",
                                         "lab 2 (convergent) float", "lab 4 (segmented) float", "lab 7 (templated) float",
                                         "lab 7 (templated) double"});
  CHECK(sum_spread_table(spread).find("lab 4 (segmented)            float") != std::string::npos);
}
