// ./lab bench's sweep at a few small sizes: every reference solution is timed at every size,
// right every time, beside CUB (GPU builds) and the copy, and bench.json's figures add up.
// On the emulator the times mean nothing; the sweep and its files are what is checked.
#include <cmath>
#include <cstdlib>

#include "bench.hpp"
#include "charts.hpp"
#include "kit.hpp"
#include "settings.hpp"

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
  CHECK(labs == 7);
  CHECK(copy);
  const std::string table = bench_table(bench);
  CHECK(table.find("2^9") != std::string::npos);
  CHECK(table.find("lab 7") != std::string::npos);
  const std::string svg = bench_svg(bench);
  std::size_t lines = 0;
  for (std::size_t at = svg.find("class=\"series\""); at != std::string::npos; at = svg.find("class=\"series\"", at + 1))
    ++lines;
  CHECK(lines == bench["series"].size());
  BenchPlan backwards;
  backwards.low_log = 12;
  backwards.high_log = 10;
  CHECK_THROWS_WITH(run_bench(backwards), Catch::Contains("2^LOW to 2^HIGH"));
}
