// ./lab calibrate's arithmetic and its output: rounds of speed records in, per lab min /
// median / max and suggested minimums out, written as a CMake initial-cache file that CMake
// really reads, over a build folder that already has the defaults.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "calibration.hpp"
#include "base/files.hpp"
#include "kit.hpp"

using namespace reduce_lab::grader;

namespace {

// A speed record as check_speedup writes it, with the figures calibration reads.
nlohmann::json speed_record(int lab, double ratio, double gbs, double fraction) {
  nlohmann::json figures = {{"device", "Test GPU"},
                            {"n", 67108864},
                            {"ratio", ratio},
                            {"lab", {{"median_ms", 0.1}, {"gbs", gbs}}},
                            {"baseline", {{"median_ms", 0.1 * ratio}}}};
  nlohmann::json thresholds = {{"min_speedup", 1.5}};
  if (lab == 7) {
    figures["bandwidth_fraction"] = fraction;
    thresholds["min_bandwidth_fraction"] = 0.75;
  }
  return {{"lab", lab}, {"check", "speedup"}, {"status", "PASS"}, {"figures", figures}, {"thresholds", thresholds}};
}

}  // namespace

TEST_CASE("kit calibrate") {
  CHECK(suggested_minimum(2.0, 0.9) == 1.8);
  CHECK(suggested_minimum(1.2, 0.9) == 1.08);  // not 1.07: binary rounding is kept out
  CHECK(suggested_minimum(1.0699, 0.9) == 0.96);
  CHECK(suggested_minimum(87.45, 0.9) == 78.7);

  const auto dir = fresh_dir("calibrate");
  const double lab2[] = {2.30, 2.38, 2.36}, lab7[] = {1.49, 1.51, 1.40}, share[] = {0.87, 0.86, 0.88};
  for (int round = 0; round < 3; ++round) {
    const auto folder = dir / "rounds" / ("round-" + std::to_string(round + 1));
    std::filesystem::create_directories(folder);
    write_json((folder / "lab2.speedup.json").string(), speed_record(2, lab2[round], 900, 0));
    write_json((folder / "lab7.speedup.json").string(), speed_record(7, lab7[round], 3000 + round, share[round]));
    write_json((folder / "device.json").string(), {{"name", "Test GPU"}, {"copy_gbs", 4000 + round}, {"cub", {{"gbs", 3500}}}});
  }
  // A round where lab 2 was not timed (its figures hold only the thresholds) counts for the others.
  write_json((dir / "rounds" / "round-3" / "lab2.speedup.json").string(),
             {{"lab", 2}, {"status", "FAIL"}, {"figures", nlohmann::json::object()}, {"thresholds", {{"min_speedup", 1.5}}}});

  const nlohmann::json calibration = calibrate((dir / "rounds").string(), 0.9, "v-test");
  CHECK(calibration["device"] == "Test GPU");
  CHECK(calibration["rounds"] == 3);
  const nlohmann::json& two = calibration["labs"]["2"];
  CHECK(two["ratio"]["rounds"] == 2);
  CHECK(two["ratio"]["min"] == 2.30);
  CHECK(two["ratio"]["max"] == 2.38);
  CHECK(two["ratio"]["median"].get<double>() == Approx(2.34));
  CHECK(two["suggested"]["REDUCE_LAB_MIN_SPEEDUP_LAB2"] == 2.07);
  CHECK(two["used"]["min_speedup"] == 1.5);
  const nlohmann::json& seven = calibration["labs"]["7"];
  CHECK(seven["ratio"]["median"] == 1.49);
  CHECK(seven["suggested"]["REDUCE_LAB_MIN_SPEEDUP_LAB7"] == 1.0);  // its gate is the bandwidth
  CHECK(seven["suggested"]["REDUCE_LAB_MIN_BANDWIDTH_LAB7"] == 0.77);
  CHECK(seven["gbs"]["median"] == 3001);
  CHECK(calibration["copy_gbs"]["median"] == 4001);
  CHECK(calibration["labs"]["1"]["ratio"].is_null());  // never timed: no suggestion
  CHECK(calibration["labs"]["1"]["suggested"].empty());
  CHECK(calibration_table(calibration).find("never timed") != std::string::npos);

  // CMake reads the file over a cache that already holds the defaults (FORCE), as
  // ./lab grade --thresholds does on an existing build folder.
  const auto cache = dir / "thresholds.cmake";
  write_text(cache.string(), thresholds_cache(calibration));
  const auto project = dir / "project";
  std::filesystem::create_directories(project);
  std::ofstream(project / "CMakeLists.txt")
      << "cmake_minimum_required(VERSION 3.25)\nproject(thresholds NONE)\n"
      << "set(REDUCE_LAB_MIN_SPEEDUP_LAB1 3.0 CACHE STRING \"\")\n"
      << "set(REDUCE_LAB_MIN_SPEEDUP_LAB2 1.6 CACHE STRING \"\")\n"
      << "set(REDUCE_LAB_MIN_SPEEDUP_LAB7 1.0 CACHE STRING \"\")\n"
      << "set(REDUCE_LAB_MIN_BANDWIDTH_LAB7 0.75 CACHE STRING \"\")\n"
      << "file(WRITE \"${CMAKE_BINARY_DIR}/used.txt\" \"${REDUCE_LAB_MIN_SPEEDUP_LAB1} ${REDUCE_LAB_MIN_SPEEDUP_LAB2} "
      << "${REDUCE_LAB_MIN_SPEEDUP_LAB7} ${REDUCE_LAB_MIN_BANDWIDTH_LAB7}\")\n";
  const std::string build = (dir / "build").string();
  const std::string quiet = " >" + (dir / "cmake.log").string() + " 2>&1";
  REQUIRE(std::system(("cmake -S '" + project.string() + "' -B '" + build + "'" + quiet).c_str()) == 0);
  CHECK(read_text(dir / "build" / "used.txt") == "3.0 1.6 1.0 0.75");
  const int status = std::system(("cmake -C '" + cache.string() + "' -S '" + project.string() + "' -B '" + build + "'" + quiet).c_str());
  INFO(read_text(dir / "cmake.log"));
  REQUIRE(status == 0);
  CHECK(read_text(dir / "build" / "used.txt") == "3.0 2.07 1.00 0.77");
  std::filesystem::remove_all(dir);
}
